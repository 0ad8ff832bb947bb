"""Lines that a test's child Python processes run: a command-line tool tested through
`subprocess.run([sys.executable, ...])` runs nowhere the coverage run's tracer sees, so its bugs
were never suspects (Unidecode's `util.main`, tested through `python -c`).

The coverage run writes SITECUSTOMIZE as `sitecustomize.py` into a folder it puts first on the
children's PYTHONPATH; a child Python that finds `REPOFIX_SUBTRACE` in its environment traces
the files under `REPOFIX_SUBTRACE_ROOT` and, as it exits, appends them to that file as one JSON
line (the test that started it is named by the file). The sitecustomize it shadows, if any, is
run after it."""

import json
import os

SITECUSTOMIZE = r'''"""repofix: trace this Python for the coverage run of a repair (see subtrace.py)."""
import json
import os
import sys


def _trace(out, root):
    import atexit
    import threading

    root = os.path.realpath(root) + os.sep
    wanted = {}  # co_filename -> its set of lines, or None
    seen = {}

    def lines_of(name):
        if name not in wanted:
            real = os.path.realpath(name) if name.endswith(".py") else ""
            keep = real.startswith(root) and "site-packages" not in real
            # by its real path: a name relative to the child's own folder means nothing to the run
            wanted[name] = seen.setdefault(real, set()) if keep else None
        return wanted[name]

    def on_call(frame, event, arg):
        lines = lines_of(frame.f_code.co_filename)
        if lines is None:
            return None
        lines.add(frame.f_lineno)

        def on_line(frame, event, arg):
            if event == "line":
                lines.add(frame.f_lineno)
            return on_line

        return on_line

    def write():
        sys.settrace(None)
        record = {name: sorted(lines) for name, lines in seen.items() if lines}
        if record:
            try:
                with open(out, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps(record) + "\n")
            except FileNotFoundError:  # a child that outlived the coverage run: nothing reads it now
                pass

    atexit.register(write)
    sys.settrace(on_call)
    threading.settrace(on_call)


def _shadowed():
    """Run the sitecustomize this one stands in front of (a distribution's, a venv's)."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)


if __name__ == "sitecustomize" and not getattr(sys, "_repofix_subtrace", False):
    sys._repofix_subtrace = True  # a second copy on the path (or a shadowed one that chains) stops here
    if os.environ.get("REPOFIX_SUBTRACE"):
        _trace(os.environ["REPOFIX_SUBTRACE"], os.environ.get("REPOFIX_SUBTRACE_ROOT", os.getcwd()))
    _shadowed()
'''


CHILDREN_ENV = ("PYTHONPATH", "REPOFIX_SUBTRACE", "REPOFIX_SUBTRACE_ROOT")


def children_folder(folder):
    """Make `folder` a sitecustomize folder for the tests' children."""
    with open(os.path.join(folder, "sitecustomize.py"), "w", encoding="utf-8") as handle:
        handle.write(SITECUSTOMIZE)


def children_traced(folder, out, root):
    """Set the environment a traced test's children start with; returns what to restore after it
    (the untraced tests, and the run itself, see the environment as the test runs see it)."""
    before = {name: os.environ.get(name) for name in CHILDREN_ENV}
    path = os.pathsep.join(p for p in (folder, before["PYTHONPATH"] or "") if p)
    os.environ.update(PYTHONPATH=path, REPOFIX_SUBTRACE=out, REPOFIX_SUBTRACE_ROOT=root)
    return before


def children_restored(before):
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def children_lines(path):
    """{co_filename: lines} from the children's records (nothing if none started or wrote). The
    repository's code ran in those children: a line that is not such a record is skipped."""
    found = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except FileNotFoundError:  # no child Python ran
        return found
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            for name, lines in record.items():
                if isinstance(name, str) and isinstance(lines, list):
                    # a line number, not `true`; a module's frame starts at line 0, no line of the file
                    numbers = [n for n in lines if type(n) is int and n > 0]
                    found.setdefault(name, set()).update(numbers)
    return found
