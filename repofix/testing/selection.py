"""Which tests to run after an edit: the failing and directly affected ones first.

"Directly affected" is cheap and static: test files that were edited, test modules named after
an edited module (`pkg/foo.py` -> `test_foo.py`, `foo_test.py`), and tests whose failure
traceback passed through an edited file. The full suite still runs before anything is declared
done (the done rule counts a missing test as failing).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from repofix.testfiles import is_test_module
from repofix.testing.model import TestRun


def select_tests(last: TestRun, changed: Iterable[str], test_files: Iterable[str] = ()) -> list[str]:
    """Node ids and test files to run next, most useful first; empty means "run everything".

    `last` is the most recent run (its failures come first), `changed` the edited paths and
    `test_files` the repository's test files (to find modules named after edited code)."""
    changed = [c for c in changed if c.endswith(".py")]
    picked: dict[str, None] = {}
    for test_id in last.failing:
        picked[test_id] = None
    for test_id, result in last.results.items():
        if result.outcome.bad and any(f.path in changed for f in result.frames):
            picked[test_id] = None
    stems = {PurePosixPath(c).stem for c in changed if not is_test_module(c)}
    for path in changed:
        if is_test_module(path):
            picked[path] = None
    for path in test_files:
        stem = PurePosixPath(path).stem
        if is_test_module(path) and (
            stem.removeprefix("test_") in stems or stem.removesuffix("_test") in stems
        ):
            picked[path] = None
    # Node ids inside an already selected file add nothing but command-line length.
    files = {p for p in picked if "::" not in p}
    return [p for p in picked if "::" not in p or p.split("::")[0] not in files]
