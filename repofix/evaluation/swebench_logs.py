"""SWE-bench's verdict: parse a test log the way the row's `log_parser` does, then apply SWE-bench's
rules to the status map it gives.

These are repofix's own equivalents of `swebench.harness.log_parsers` (Python parsers) and
`swebench.harness.grading` (release 5.0.2), written to the same observable behaviour, quirks
included, because the dataset's test ids were produced by those parsers: a pytest id is cut at its
first space (`test_x[a b("foo",`), an `XPASS` line is never recorded, a skipped PASS_TO_PASS test
is kept, a skipped FAIL_TO_PASS test is a failure. When the official package is importable
(`pip install 'repofix[swebench]'`), `official()` gives its parser and rules instead, and the
grader uses them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

StatusMap = dict[str, str]  # test id -> "PASSED" | "FAILED" | "SKIPPED" | "ERROR" | "XFAIL"
Parser = Callable[[str], StatusMap]

PASSED, FAILED, SKIPPED, ERROR, XFAIL = "PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"
_STATUSES = (FAILED, PASSED, SKIPPED, ERROR, XFAIL)
_SKIP_COUNT = re.compile(r"^\[\d+\]$")  # `SKIPPED [2] file.py:3: reason`: [2] is no test id
_COLOUR = re.compile(r"\[(\d+)m")
_CONTROL = str.maketrans("", "", "".join(chr(c) for c in range(1, 32)))


def _status_words(line: str) -> list[str] | None:
    """The words of a `-rA` status line (`PASSED id`, `FAILED id - message`), or None."""
    if not line.startswith(_STATUSES):
        return None
    if line.startswith(FAILED):
        line = line.replace(" - ", " ")
    words = line.split()
    if len(words) < 2 or (words[0] == SKIPPED and _SKIP_COUNT.match(words[1])):
        return None
    return words


def parse_pytest(log: str) -> StatusMap:
    """`-rA` summary lines; the id is the first word after the status (cut at its first space)."""
    found: StatusMap = {}
    for line in log.split("\n"):
        words = _status_words(line)
        if words:
            found[words[1]] = words[0]
    return found


def parse_pytest_options(log: str) -> StatusMap:
    """As parse_pytest, but a parameter that is a path keeps only its last part: `[/tmp/x/y.txt]`
    becomes `[/y.txt]` (temporary paths differ between machines)."""
    found: StatusMap = {}
    for line in log.split("\n"):
        words = _status_words(line)
        if not words:
            continue
        name = words[1]
        option = re.search(r"(.*?)\[(.*)\]", name)
        if option:
            main, value = option.groups()
            if value.startswith("/") and not value.startswith("//") and "*" not in value:
                value = "/" + value.split("/")[-1]
            name = f"{main}[{value}]"
        found[name] = words[0]
    return found


def parse_pytest_v2(log: str) -> StatusMap:
    """Colour codes and control characters removed; the whole rest of the line is the id (spaces
    kept), and `id STATUS` lines of older pytest versions count too."""
    found: StatusMap = {}
    for raw in log.split("\n"):
        line = _COLOUR.sub("", raw).translate(_CONTROL)
        if line.startswith(_STATUSES):
            if line.startswith(FAILED):
                line = line.split(" - ", 1)[0]
            words = line.split()
            if len(words) >= 2 and not (words[0] == SKIPPED and _SKIP_COUNT.match(words[1])):
                found[" ".join(words[1:])] = words[0]
        elif line.endswith(_STATUSES):
            words = line.split()
            if len(words) >= 2:
                found[" ".join(words[:-1])] = words[-1]
    return found


def parse_matplotlib(log: str) -> StatusMap:
    return parse_pytest(log.replace("MouseButton.LEFT", "1").replace("MouseButton.RIGHT", "3"))


def parse_seaborn(log: str) -> StatusMap:
    found: StatusMap = {}
    for line in log.split("\n"):
        words = line.split()
        if len(words) < 2:
            continue
        if line.startswith(FAILED):
            found[words[1]] = FAILED
        elif f" {PASSED} " in line:
            if words[1] == PASSED:
                found[words[0]] = PASSED
        elif line.startswith(PASSED):
            found[words[1]] = PASSED
    return found


def parse_sympy(log: str) -> StatusMap:
    """sympy's bin/test: `____ path.py:test_name ____` headers are failures; `test_x ok|F|E` lines."""
    found: StatusMap = {
        f"{path}.py:{name}": FAILED for _, path, name, _ in re.findall(r"(_*) (.*)\.py:(.*) (_*)", log)
    }
    endings = ((" E", ERROR), (" F", FAILED), (" ok", PASSED))
    for raw in log.split("\n"):
        line = raw.strip()
        if line.startswith("test_"):
            for ending, status in endings:
                if line.endswith(ending):
                    found[line.split()[0]] = status
    return found


_DJANGO_OK = (" ... ok", " ... OK", " ...  OK")
_DJANGO_WRAPPED = (  # a test's "ok" pushed to the next line by a message printed in between
    r"^(.*?)\s\.\.\.\sTesting\ against\ Django\ installed\ in\ ((?s:.*?))\ silenced\)\.\nok$",
    r"^(.*?)\s\.\.\.\sInternal\ Server\ Error:\ \/(.*)\/\nok$",
    r"^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$",
)


def parse_django(log: str) -> StatusMap:
    """Django's runtests.py at verbosity 2: `name (module.Class) ... ok|skipped|FAIL|ERROR`."""
    found: StatusMap = {}
    previous: str | None = None
    for raw in log.split("\n"):
        line = raw.strip()
        if "--version is equivalent to version" in line:
            found["--version is equivalent to version"] = PASSED
        if " ... " in line:
            previous = line.split(" ... ")[0]
        for ending in _DJANGO_OK:
            if line.endswith(ending):
                if line.startswith("Applying sites.0002_alter_domain_unique...test_no_migrations"):
                    line = line.split("...", 1)[-1].strip()  # django__django-7188's interleaved output
                found[line.rsplit(ending, 1)[0]] = PASSED
                break
        if " ... skipped" in line:
            found[line.split(" ... skipped")[0]] = SKIPPED
        if line.endswith(" ... FAIL"):
            found[line.split(" ... FAIL")[0]] = FAILED
        if line.startswith("FAIL:"):
            found[line.split()[1].strip()] = FAILED
        if line.endswith(" ... ERROR"):
            found[line.split(" ... ERROR")[0]] = ERROR
        if line.startswith("ERROR:"):
            found[line.split()[1].strip()] = ERROR
        if line.lstrip().startswith("ok") and previous is not None:
            found[previous] = PASSED
    for pattern in _DJANGO_WRAPPED:
        for match in re.finditer(pattern, log, re.MULTILINE):
            found[match.group(1)] = PASSED
    return found


# The `log_parser` names of SWE-bench's rows, and the parser each is an alias of.
PARSERS: dict[str, Parser] = {
    "parse_log_pytest": parse_pytest,
    "parse_log_pytest_options": parse_pytest_options,
    "parse_log_pytest_v2": parse_pytest_v2,
    "parse_log_django": parse_django,
    "parse_log_seaborn": parse_seaborn,
    "parse_log_sympy": parse_sympy,
    "parse_log_matplotlib": parse_matplotlib,
    **{
        f"parse_log_{name}": parse_pytest
        for name in ("astroid", "flask", "marshmallow", "pvlib", "pyvista", "sqlfluff", "xarray")
    },
    **{f"parse_log_{name}": parse_pytest_options for name in ("pydicom", "requests", "pylint")},
    **{f"parse_log_{name}": parse_pytest_v2 for name in ("astropy", "scikit", "sphinx")},
}
# Older rows have no `log_parser` field: SWE-bench then chose the parser by repository.
REPO_PARSERS = {
    "astropy/astropy": "parse_log_astropy",
    "django/django": "parse_log_django",
    "marshmallow-code/marshmallow": "parse_log_marshmallow",
    "matplotlib/matplotlib": "parse_log_matplotlib",
    "mwaskom/seaborn": "parse_log_seaborn",
    "pallets/flask": "parse_log_flask",
    "psf/requests": "parse_log_requests",
    "pvlib/pvlib-python": "parse_log_pvlib",
    "pydata/xarray": "parse_log_xarray",
    "pydicom/pydicom": "parse_log_pydicom",
    "pylint-dev/astroid": "parse_log_astroid",
    "pylint-dev/pylint": "parse_log_pylint",
    "pytest-dev/pytest": "parse_log_pytest",
    "pyvista/pyvista": "parse_log_pyvista",
    "scikit-learn/scikit-learn": "parse_log_scikit",
    "sqlfluff/sqlfluff": "parse_log_sqlfluff",
    "sphinx-doc/sphinx": "parse_log_sphinx",
    "sympy/sympy": "parse_log_sympy",
}


# -- SWE-bench's rules ------------------------------------------------------------------------------
def resolve_case(case: str, found: StatusMap) -> str | None:
    """The key of `case` in `found`. A listed id with more `[` than `]` was cut inside its
    parameters (by an older parser): it matches the ids it begins, when they all agree on
    passing or not."""
    if case in found:
        return case
    if case.count("[") > case.count("]"):
        matches = [key for key in found if key.startswith(case)]
        if matches and len({found[key] in (PASSED, XFAIL) for key in matches}) == 1:
            return matches[0]
    return None


def test_passed(case: str, found: StatusMap) -> bool:
    key = resolve_case(case, found)
    return key is not None and found[key] in (PASSED, XFAIL)


def test_maintained(case: str, found: StatusMap) -> bool:
    """PASS_TO_PASS: passing, or skipped (a skip is no regression)."""
    key = resolve_case(case, found)
    return key is not None and found[key] in (PASSED, XFAIL, SKIPPED)


def test_failed(case: str, found: StatusMap) -> bool:
    """Absent from the log, failed, errored, or skipped."""
    key = resolve_case(case, found)
    return key is None or found[key] in (FAILED, ERROR, SKIPPED)


test_passed.__test__ = test_maintained.__test__ = test_failed.__test__ = False  # type: ignore[attr-defined]


def tests_report(
    found: StatusMap, fail_to_pass: list[str], pass_to_pass: list[str], eval_type: str = "pass_and_fail"
) -> dict[str, dict[str, list[str]]]:
    """SWE-bench's tests_status for FAIL_TO_PASS and PASS_TO_PASS. A test neither passing nor
    failing (e.g. an XPASS id present in the map) is in neither list, as in SWE-bench."""

    def sort(cases: list[str], ok: Callable[[str, StatusMap], bool]) -> dict[str, list[str]]:
        if eval_type == "fail_only":  # only an explicit FAILED counts against
            return {
                "success": [c for c in cases if found.get(c) != FAILED],
                "failure": [c for c in cases if found.get(c) == FAILED],
            }
        success: list[str] = []
        failure: list[str] = []
        for case in cases:
            if ok(case, found):
                success.append(case)
            elif test_failed(case, found):
                failure.append(case)
        return {"success": success, "failure": failure}

    return {
        "FAIL_TO_PASS": sort(fail_to_pass, test_passed),
        "PASS_TO_PASS": sort(pass_to_pass, test_maintained),
    }


def resolved(report: dict[str, dict[str, list[str]]]) -> bool:
    """RESOLVED_FULL: every FAIL_TO_PASS and PASS_TO_PASS test in `success` (an empty list counts as all)."""

    def rate(part: dict[str, list[str]]) -> float:
        total = len(part["success"]) + len(part["failure"])
        return 1.0 if total == 0 else len(part["success"]) / total

    return rate(report["FAIL_TO_PASS"]) == 1 and rate(report["PASS_TO_PASS"]) == 1


# -- which implementation ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Grader:
    """A parser and SWE-bench's rules, from repofix or from the official package."""

    source: str  # "repofix" or "swebench <version>"
    parse: Callable[[str, str], StatusMap]  # (parser name, log) -> status map
    report: Callable[[StatusMap, list[str], list[str], str], dict[str, dict[str, list[str]]]]
    resolved: Callable[[dict[str, dict[str, list[str]]]], bool]


OWN = Grader("repofix", lambda name, log: PARSERS[name](log), tests_report, resolved)


def official() -> Grader | None:
    """The official `swebench` package's parsers and rules, when it is installed."""
    try:
        from importlib.metadata import version

        from swebench.harness.constants import EvalType, ResolvedStatus
        from swebench.harness.grading import get_eval_tests_report, get_resolution_status
        from swebench.harness.log_parsers import PARSER_REGISTRY
    except ImportError:
        return None

    def parse(name: str, log: str) -> StatusMap:
        return PARSER_REGISTRY[name](log, None)  # the Python parsers never read the test spec

    def report(
        found: StatusMap, f2p: list[str], p2p: list[str], eval_type: str
    ) -> dict[str, dict[str, list[str]]]:
        full = get_eval_tests_report(
            found, {"FAIL_TO_PASS": f2p, "PASS_TO_PASS": p2p}, eval_type=EvalType(eval_type)
        )
        return {key: full[key] for key in ("FAIL_TO_PASS", "PASS_TO_PASS")}

    def is_resolved(tests: dict[str, dict[str, list[str]]]) -> bool:
        return get_resolution_status(tests) == ResolvedStatus.FULL.value

    return Grader(f"swebench {version('swebench')}", parse, report, is_resolved)


def grader() -> Grader:
    return official() or OWN
