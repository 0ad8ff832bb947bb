"""repofix's equivalents of SWE-bench's log parsers and grading rules: their documented quirks, and
agreement with the official `swebench` package on generated logs.

The official package comes in with heavy dependencies (datasets, modal), so it is not installed
beside repofix: the comparison runs it in the interpreter named by REPOFIX_SWEBENCH_PYTHON (CI
makes one, see .ci/run), or in-process when `swebench` is importable here; otherwise it skips,
and in CI it fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess

import pytest

from repofix.evaluation import swebench_logs as logs

ID = 'tests/test_cli.py::test_locate_app[cliapp.factory-create_app2("foo", "bar")]'


def test_pytest_parser_cuts_ids_at_the_first_space_and_skips_what_is_no_test():
    log = "\n".join(
        [
            f"PASSED {ID}",
            "FAILED tests/test_a.py::test_b - AssertionError: 1 - 2",
            "SKIPPED [2] tests/test_a.py:10: needs network",
            "XPASS tests/test_a.py::test_xpass reason",
            "XFAIL tests/test_a.py::test_xfail - known",
            "ERROR tests/test_a.py::test_c - fixture missing",
            "PASSED",
        ]
    )
    assert logs.parse_pytest(log) == {
        'tests/test_cli.py::test_locate_app[cliapp.factory-create_app2("foo",': "PASSED",
        "tests/test_a.py::test_b": "FAILED",
        "tests/test_a.py::test_xfail": "XFAIL",
        "tests/test_a.py::test_c": "ERROR",
    }


def test_other_parsers_keep_their_own_quirks():
    assert logs.parse_pytest_v2(f"\x1b[32mPASSED\x1b[0m {ID}\ntests/a.py::t PASSED") == {
        ID: "PASSED",
        "tests/a.py::t": "PASSED",
    }
    assert logs.parse_pytest_options("PASSED t.py::test_f[/tmp/x1/data.txt]\nPASSED t.py::test_g[//net]") == {
        "t.py::test_f[/data.txt]": "PASSED",
        "t.py::test_g[//net]": "PASSED",
    }
    assert logs.parse_matplotlib("PASSED t.py::test_m[MouseButton.LEFT]") == {"t.py::test_m[1]": "PASSED"}
    assert logs.parse_sympy("test_a ok\ntest_b F\n____ sympy/core/tests/test_x.py:test_c ____") == {
        "test_a": "PASSED",
        "test_b": "FAILED",
        "sympy/core/tests/test_x.py:test_c": "FAILED",
    }
    assert logs.parse_django("test_a (m.T) ... ok\ntest_b (m.T) ... skipped 'x'\ntest_c (m.T) ... FAIL") == {
        "test_a (m.T)": "PASSED",
        "test_b (m.T)": "SKIPPED",
        "test_c (m.T)": "FAILED",
    }


@pytest.mark.parametrize(
    "case, found, passed, maintained, failed",
    [
        ("t[a", {"t[a b]": "PASSED", "t[a c]": "XFAIL"}, True, True, False),  # cut id, all agree: matched
        ("t[a", {"t[a b]": "PASSED", "t[a c]": "FAILED"}, False, False, True),  # they disagree: absent
        (
            "t",
            {"t": "SKIPPED"},
            False,
            True,
            True,
        ),  # skipped: fine for PASS_TO_PASS, a failure for FAIL_TO_PASS
        ("t", {}, False, False, True),  # absent: failed
        ("t", {"t[x]": "PASSED"}, False, False, True),  # no [ to cut in: exact ids only
    ],
)
def test_rules(case, found, passed, maintained, failed):
    assert logs.test_passed(case, found) is passed
    assert logs.test_maintained(case, found) is maintained
    assert logs.test_failed(case, found) is failed


def test_resolution_needs_every_listed_test_and_fail_only_counts_explicit_failures():
    found = {"a": "PASSED", "b": "SKIPPED", "c": "FAILED"}
    assert logs.resolved(logs.tests_report(found, ["a"], ["b"]))
    assert not logs.resolved(logs.tests_report(found, ["a", "b"], []))
    assert logs.resolved(logs.tests_report(found, ["a", "missing"], [], "fail_only"))
    assert not logs.resolved(logs.tests_report(found, ["c"], [], "fail_only"))


# -- agreement with the official package -----------------------------------------------------------
_NAMES = [
    "tests/test_a.py::test_one",
    ID,
    "t.py::test_p[/tmp/q/r.txt]",
    "t.py::test_m[MouseButton.RIGHT]",
    "t.py::test_s[a b c]",
    "test_plain",
    "lib/x.py::T::test_y[1-2]",
    "t.py::test_w[*/x]",
]


def _line(rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    status = rng.choice(["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL", "XPASS"])
    return rng.choice(
        [
            f"{status} {name}",
            f"FAILED {name} - AssertionError: 1 - 2",
            f"SKIPPED [{rng.randint(1, 9)}] t.py:3: why",
            f"{name} {status}",
            f"{name} PASSED [ 50%]",
            f"\x1b[31m{status}\x1b[0m {name}",
            f"{status}",
            f"{name.split('::')[-1]} (mod.Tests) ... {rng.choice(['ok', 'OK', 'skipped', 'FAIL', 'ERROR'])}",
            f"FAIL: {name} (mod.Tests)",
            "ok",
            "  ok",
            "ERROR: test_x (mod.Tests)",
            "test_x (m.T) ... System check identified no issues (0 silenced).",
            f"test_{rng.choice(['a', 'b'])} {rng.choice(['ok', 'F', 'E'])}",
            f"____ sympy/a/test_b.py:test_{status} ____",
            "noise line",
            "",
            f"   {status} {name}   ",
        ]
    )


def _cases(count: int = 400) -> list[dict]:
    rng = random.Random(18)
    cases = []
    for _ in range(count):
        log = "\n".join(_line(rng) for _ in range(rng.randint(0, 12)))
        keys = [rng.choice(_NAMES + ["t[a", "t[a b]", "t[a c]"]) for _ in range(4)]
        found = {k: rng.choice(["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"]) for k in keys}
        listed = [rng.choice(_NAMES + ["t[a", "t[a b]", "missing", "t["]) for _ in range(rng.randint(0, 4))]
        cases.append(
            {
                "log": log,
                "found": found,
                "f2p": listed[:2],
                "p2p": listed[2:],
                "eval_type": rng.choice(["pass_and_fail", "fail_only"]),
            }
        )
    return cases


_OFFICIAL = r"""
import json, sys
from swebench.harness.constants import EvalType, ResolvedStatus
from swebench.harness.grading import get_eval_tests_report, get_resolution_status
from swebench.harness.log_parsers import PARSER_REGISTRY
names, cases = json.load(sys.stdin)
out = []
for case in cases:
    report = get_eval_tests_report(case["found"], {"FAIL_TO_PASS": case["f2p"], "PASS_TO_PASS": case["p2p"]},
                                   eval_type=EvalType(case["eval_type"]))
    out.append({"parsed": {n: PARSER_REGISTRY[n](case["log"], None) for n in names},
                "report": {k: report[k] for k in ("FAIL_TO_PASS", "PASS_TO_PASS")},
                "resolved": get_resolution_status(report) == ResolvedStatus.FULL.value})
json.dump(out, sys.stdout)
"""


def _official_results(names: list[str], cases: list[dict]) -> list[dict]:
    python = os.environ.get("REPOFIX_SWEBENCH_PYTHON")
    if python is None and importlib.util.find_spec("swebench") is not None:
        import sys

        python = sys.executable
    if python is None:
        reason = "needs the official swebench package (pip install swebench, or REPOFIX_SWEBENCH_PYTHON=<python with it>)"
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide it: {reason}")
        pytest.skip(reason)
    done = subprocess.run(
        [python, "-c", _OFFICIAL],
        input=json.dumps([names, cases]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_parsers_and_rules_agree_with_the_official_package():
    names = sorted(logs.PARSERS)
    cases = _cases()
    official = _official_results(names, cases)
    for case, theirs in zip(cases, official, strict=True):
        for name in names:
            assert logs.PARSERS[name](case["log"]) == theirs["parsed"][name], (name, case["log"])
        ours = logs.tests_report(case["found"], case["f2p"], case["p2p"], case["eval_type"])
        assert ours == theirs["report"], case
        assert logs.resolved(ours) is theirs["resolved"], case
