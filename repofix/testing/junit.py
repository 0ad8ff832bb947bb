"""Read a JUnit XML report (pytest's, or any tool's) into per-test results keyed by node id."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from repofix.junitid import nodeid_from_junit
from repofix.testing.model import Frame, Outcome, TestResult
from repofix.testing.tracebacks import error_lines, parse_frames


class ReportError(ValueError):
    """The report file is not JUnit XML we can read (empty, truncated, or another format)."""


_CAPTURE_HEADER = re.compile(r"^-{3,} Captured (\w+)(?: \w+)? -{3,}$", re.MULTILINE)
_SYNTAX_AT = re.compile(
    r'^\s*File "([^"]+)", line (\d+)\n(.*)\n(?:.*\n)*?.*(?:SyntaxError|IndentationError)', re.M
)
_GENERIC = {"collection failure", "", "failed on setup", "failed on teardown"}


def parse_junit(xml: str | bytes, *, strip_prefix: str = "") -> dict[str, TestResult]:
    """Results in report order. `strip_prefix` (the sandbox's workdir) is removed from paths."""
    if (
        not xml
        or not str(xml[:200] if isinstance(xml, str) else xml[:200].decode("utf-8", "replace")).strip()
    ):
        raise ReportError("the JUnit report is empty: the test process probably died before writing it")
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ReportError(f"the JUnit report is not valid XML ({exc}); it may have been cut short") from exc
    results: dict[str, TestResult] = {}
    for case in root.iter("testcase"):
        result = _case(case, strip_prefix)
        if result.id in results and results[result.id].outcome.bad:
            continue  # a teardown error reported after a failure: keep the first, more useful one
        results[result.id] = result
    return results


def _case(case: ET.Element, strip_prefix: str) -> TestResult:
    props = {p.get("name"): p.get("value", "") for p in case.iter("property")}
    node_id = props.get("nodeid") or nodeid_from_junit(
        case.get("classname", ""), case.get("name", ""), case.get("file")
    )
    outcome, phase, message, text = Outcome.PASSED, "call", "", ""
    for child in case:
        tag = child.tag
        if tag == "failure":
            outcome, message, text = Outcome.FAILED, child.get("message", ""), child.text or ""
        elif tag == "error":
            outcome, message, text = Outcome.ERROR, child.get("message", ""), child.text or ""
            phase = (
                "collect"
                if message == "collection failure"
                else ("teardown" if "teardown" in message else "setup")
            )
        elif tag == "skipped":
            xfail = child.get("type") == "pytest.xfail"
            outcome = Outcome.XFAILED if xfail else Outcome.SKIPPED
            message, text = child.get("message", ""), child.text or ""
    if props.get("repofix_outcome") == "xpassed":
        outcome = Outcome.XPASSED
    if strip_prefix:
        text = text.replace(strip_prefix.rstrip("/") + "/", "")
        message = message.replace(strip_prefix.rstrip("/") + "/", "")
    if outcome.bad and (message.strip() in _GENERIC or message.startswith("failed on ")):
        # pytest's message for errors is generic; the 'E' lines carry the real one.
        message = "\n".join(error_lines(text)) or message
    captured = {"Out": "", "Err": "", "Log": ""}
    for tag, default in (("system-out", "Out"), ("system-err", "Err")):
        for node in case.iter(tag):
            for kind, body in _sections(node.text or "", default):
                captured[kind] = (captured[kind] + body).strip("\n")
    frames = parse_frames(text) if outcome.bad else ()
    syntax = _SYNTAX_AT.search(message)
    if syntax:  # a SyntaxError names its own location: that is the line to fix
        frames = (*frames, Frame(syntax[1], int(syntax[2]), "", (f">   {syntax[3].strip()}",)))
    return TestResult(
        id=node_id,
        outcome=outcome,
        message=message,
        traceback=text,
        frames=frames,
        stdout=captured["Out"],
        stderr=captured["Err"],
        log=captured["Log"],
        phase=phase,
        duration=float(case.get("time") or 0.0),
    )


def _sections(text: str, default: str) -> list[tuple[str, str]]:
    """Split pytest's '---- Captured Out ----' sections; unknown kinds count as `default`."""
    parts = _CAPTURE_HEADER.split(text)
    out = [(default, parts[0])] if parts[0].strip() else []
    for kind, body in zip(parts[1::2], parts[2::2], strict=False):
        kind = {"stdout": "Out", "stderr": "Err", "log": "Log"}.get(kind.lower(), kind.capitalize())
        if body.strip():
            out.append((kind if kind in ("Out", "Err", "Log") else default, body))
    return out
