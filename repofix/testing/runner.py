"""Run the test command in a sandbox and turn what happened into a `TestRun`."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import uuid
import zlib
from collections.abc import Sequence
from pathlib import Path

from repofix.atomic import write_atomic
from repofix.sandboxes.base import CommandResult, Sandbox, SandboxError
from repofix.testing import command as cmd
from repofix.testing.junit import ReportError, parse_junit
from repofix.testing.model import Outcome, RunStatus, TestResult, TestRun


class TestRunError(RuntimeError):
    """The test run could not be prepared in the sandbox, or its report not read back."""

    __test__ = False


_PLUGIN_SOURCE = (Path(__file__).parent / "pytest_plugin.py").read_text(encoding="utf-8")
_CHUNK = 96 * 1024  # raw bytes per read: base64 of it stays well under the sandbox's output cap


def run_tests(
    sandbox: Sandbox,
    command: str | None = None,
    *,
    tests: Sequence[str] = (),
    timeout: float | None = None,
    log_dir: Path | None = None,
) -> TestRun:
    """Run `command` (default: detected from the repository) in `sandbox`, optionally only the
    given test ids (pytest commands only), and read pytest's JUnit report back from the sandbox."""
    if command is None:
        command = cmd.detect_command(sandbox.read_files(list(cmd.DETECTION_FILES)))
    selection = tuple(tests) if tests and cmd.is_pytest(command) else ()
    report_dir = f"/tmp/repofix-tests-{uuid.uuid4().hex[:12]}"
    plugin = f"{report_dir}/{cmd.PLUGIN_MODULE}.py"
    setup = sandbox.run(
        ["sh", "-c", f"mkdir -m 0700 {report_dir} && cat > {plugin}"],
        stdin=_PLUGIN_SOURCE,
        timeout=60,
        clean=True,
    )
    if not setup.ok:
        raise TestRunError(
            f"could not prepare the test report directory in the sandbox "
            f"(is /tmp writable there?): {setup.output[-500:]}"
        )
    try:
        result = sandbox.run(
            cmd.wrap(command, workdir=sandbox.workdir, report_dir=report_dir, selection=selection),
            timeout=timeout,
            clean=True,
        )
        if cmd.plugin_failed(result.output):  # node ids then come from JUnit names instead
            result = sandbox.run(
                cmd.wrap(
                    command, workdir=sandbox.workdir, report_dir=report_dir, selection=selection, plugin=False
                ),
                timeout=timeout,
                clean=True,
            )
        xml, progress = _read_reports(sandbox, [f"{report_dir}/report.xml", f"{report_dir}/progress.jsonl"])
    except BaseException:
        with contextlib.suppress(SandboxError):  # the original error is the one worth raising
            sandbox.run(["rm", "-rf", report_dir], timeout=60, clean=True)
        raise
    sandbox.run(["rm", "-rf", report_dir], timeout=60, clean=True)
    run = classify(command, result, xml, progress, workdir=sandbox.workdir, selection=selection)
    if log_dir is not None:
        run.log_path = str(save_log(log_dir, run))
    return run


def save_log(log_dir: Path, run: TestRun) -> Path:
    """Write the run's full output to a new file in `log_dir` (write-then-rename)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"tests-{len(list(log_dir.glob('tests-*.log'))) + 1:03d}.log"
    return write_atomic(path, f"$ {run.command}\n{run.output}")


_READ_ALL = (
    "import base64,sys,zlib\n"
    "out=[]\n"
    "for p in sys.argv[1:]:\n"
    "    try: out.append(base64.b64encode(zlib.compress(open(p,'rb').read())).decode())\n"
    "    except FileNotFoundError: out.append('-')\n"
    "sys.stdout.write(' '.join(out))\n"
)


def _read_reports(sandbox: Sandbox, paths: list[str]) -> list[bytes | None]:
    """Read report files outside the workspace: in one command when they fit the output cap."""
    got = sandbox.run(["python3", "-c", _READ_ALL, *paths], timeout=60, clean=True)
    if got.ok and not got.truncated:
        parts = got.stdout.strip().split(" ")
        if len(parts) == len(paths):
            return [None if part == "-" else zlib.decompress(base64.b64decode(part)) for part in parts]
    return [_read_outside(sandbox, path) for path in paths]


def _read_outside(sandbox: Sandbox, path: str) -> bytes | None:
    """Read a file outside the workspace in compressed chunks; command output is capped, so a
    chunk whose output came back truncated is asked for again, smaller."""
    chunks: list[bytes] = []
    offset, size = 0, _CHUNK
    while True:
        code = (
            "import base64,sys,zlib\n"
            f"try: f=open({path!r},'rb')\n"
            "except FileNotFoundError: sys.exit(3)\n"
            f"f.seek({offset}); d=f.read({size}); sys.stdout.write(str(len(d))+' '+"
            "base64.b64encode(zlib.compress(d)).decode())\n"
        )
        got = sandbox.run(["python3", "-c", code], timeout=60, clean=True)
        if got.exit_code == 3:
            return None
        if got.truncated and size > 1024:
            size //= 4
            continue
        if not got.ok:
            raise TestRunError(
                f"could not read {path} back from the sandbox (python3 is needed there): {got.output[-300:]}"
            )
        length, _, payload = got.stdout.strip().partition(" ")
        chunks.append(zlib.decompress(base64.b64decode(payload)))
        offset += int(length)
        if int(length) < size:
            return b"".join(chunks)


def _progress(text: bytes | None) -> tuple[list[dict], bool]:
    events = []
    for line in (text or b"").decode("utf-8", "replace").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a kill
    return events, any(e.get("event") == "session" for e in events)


def classify(
    command: str,
    result: CommandResult,
    xml: bytes | None,
    progress: bytes | None,
    *,
    workdir: str = "",
    selection: tuple[str, ...] = (),
) -> TestRun:
    """Decide what the run was: pure, so it can be checked against real pytest runs."""
    events, pytest_ran = _progress(progress)
    run = TestRun(
        command=command,
        status=RunStatus.COMPLETED,
        exit_code=result.exit_code,
        output=result.output,
        duration=result.duration,
        selection=selection,
    )
    if workdir:
        run.output = run.output.replace(workdir.rstrip("/") + "/", "")
    if xml:
        try:
            run.results = parse_junit(xml, strip_prefix=workdir)
        except ReportError as exc:
            run.detail = str(exc)
    if not run.results and events:
        run.results = _from_progress(events)
    run.structured = pytest_ran or xml is not None
    started = [e["id"] for e in events if e.get("event") == "start"]
    finished = {
        e["id"] for e in events if e.get("event") == "report" and e.get("when") in ("call", "teardown")
    }
    unfinished = [i for i in started if i not in finished]
    if result.timed_out:
        run.status = RunStatus.TIMEOUT
        run.running = unfinished[-1] if unfinished else None
        where = f" while running {run.running}" if run.running else ""
        run.detail = f"timed out after {result.duration:.0f}s{where}; {len(run.results)} results before that"
    elif (
        result.oom_killed
        or result.exit_code is None
        or (result.exit_code < 0)
        or (pytest_ran and xml is None and result.exit_code not in (2, 3, 4, 5))
    ):
        run.status = RunStatus.CRASHED
        run.running = unfinished[-1] if unfinished else None
        cause = (
            "out of memory"
            if result.oom_killed
            else (f"signal {result.signal}" if result.signal else f"exit code {result.exit_code}")
        )
        where = f" while running {run.running}" if run.running else ""
        run.detail = f"the test process died ({cause}){where} before writing its report"
    elif not run.structured:
        _classify_unstructured(run, result)
    else:
        _classify_pytest(run, result)
    return run


def _classify_unstructured(run: TestRun, result: CommandResult) -> None:
    text = result.output
    module = re.search(r"-m\s+([\w.]+)", run.command)
    no_module = module is not None and re.search(rf"No module named '?{re.escape(module[1])}\b", text)
    if result.exit_code == 127 or no_module or "command not found" in text:
        run.status = RunStatus.RUNNER_MISSING
        run.detail = (text.strip().splitlines() or ["exit code 127"])[-1][:200]
        run.structured = False
    elif "ImportError while loading conftest" in text:
        run.status, run.structured = RunStatus.IMPORT_ERROR, True
        run.detail = "a conftest.py failed to import; no test ran"
    elif result.exit_code == 4 and ("usage:" in text or "error:" in text):
        run.status, run.structured = RunStatus.USAGE_ERROR, True
        run.detail = (text.strip().splitlines() or [""])[-1][:200]


def _classify_pytest(run: TestRun, result: CommandResult) -> None:
    collect_errors = [r for r in run.results.values() if r.phase == "collect"]
    code = result.exit_code
    if collect_errors:
        ran = len(run.results) > len(collect_errors)
        imports = all(
            ("ImportError" in r.message or "ModuleNotFoundError" in r.message) for r in collect_errors
        )
        run.status = RunStatus.IMPORT_ERROR if imports and not ran else RunStatus.COLLECTION_ERROR
        kind = "import" if imports else "collect"
        run.detail = (
            f"{len(collect_errors)} test module(s) failed to {kind}: "
            + ", ".join(r.id for r in collect_errors[:5])
            + ("" if ran else "; no test ran")
        )
    elif code == 5 or (code == 0 and not run.results):
        run.status, run.detail = RunStatus.NO_TESTS, "no tests were collected"
    elif code == 3:
        run.status, run.detail = RunStatus.INTERNAL_ERROR, "pytest hit an internal error"
    elif code == 4:
        run.status = RunStatus.USAGE_ERROR
        run.detail = (result.output.strip().splitlines() or [""])[-1][:200]
    elif code == 2 and not run.results:
        run.status, run.detail = RunStatus.USAGE_ERROR, "pytest was interrupted before running tests"


def _from_progress(events: list[dict]) -> dict[str, TestResult]:
    """Results rebuilt from the plugin's progress stream when no JUnit report exists."""
    results: dict[str, TestResult] = {}
    for e in events:
        if e.get("event") != "report":
            continue
        outcome = Outcome(e["outcome"]) if e["outcome"] in Outcome._value2member_map_ else Outcome.ERROR
        if e.get("when") in ("setup", "teardown", "collect") and outcome is Outcome.FAILED:
            outcome = Outcome.ERROR
        message = (e.get("crash") or ["", 0, ""])[2]
        if e["id"] not in results or outcome.bad:
            results[e["id"]] = TestResult(e["id"], outcome, message=message, phase=e.get("when", "call"))
    return results
