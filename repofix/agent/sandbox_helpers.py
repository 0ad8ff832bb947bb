# Preloaded into the sandbox's persistent Python namespace (stdlib only, Python >= 3.8), so one
# `python` action can chain many steps and print only what matters. Not imported on the host.
# Loaded after repofix/junitid.py, which gives it `nodeid_from_junit`.
import fnmatch as _fnmatch
import os as _os
import re as _re
import subprocess as _subprocess
import xml.etree.ElementTree as _ET

_SKIP = {".git", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".pytest_cache"}


def find(pattern="**/*", root="."):
    """Repository files whose relative path matches a glob (`**` spans folders)."""
    regex = _re.compile(_fnmatch.translate(pattern).replace(".*/", "(.*/)?"))
    hits = []
    for folder, dirs, files in _os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        for name in sorted(files):
            path = _os.path.relpath(_os.path.join(folder, name), root)
            if regex.match(path) or _fnmatch.fnmatch(name, pattern):
                hits.append(path)
    return hits


def grep(pattern, glob="**/*.py", root=".", limit=200):
    """Lines matching a regular expression, as 'path:line: text' strings."""
    regex, out = _re.compile(pattern), []
    for path in find(glob, root):
        try:
            with open(_os.path.join(root, path), encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, 1):
                    if regex.search(line):
                        out.append("%s:%d: %s" % (path, number, line.rstrip()[:200]))
                        if len(out) >= limit:
                            return out
        except OSError:
            continue
    return out


def show(path, start=1, end=None):
    """Print a file region with line numbers."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    end = min(end or len(lines), len(lines))
    for number in range(max(start, 1), end + 1):
        print("%5d  %s" % (number, lines[number - 1]))


def tests(*ids, timeout=600):
    """Run pytest (all, or the given node ids / files) and return {test id: outcome}."""
    report = "/tmp/repofix-helper-report.xml"
    _subprocess.run(
        [
            "python",
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--junitxml",
            report,
            "-o",
            "junit_family=xunit1",
            *ids,
        ],
        capture_output=True,
        timeout=timeout,
    )
    outcomes = {}
    try:
        root = _ET.parse(report).getroot()
    except (OSError, _ET.ParseError):
        return {"<no report>": "error"}
    for case in root.iter("testcase"):
        test_id = nodeid_from_junit(case.get("classname", ""), case.get("name", ""), case.get("file"))  # noqa: F821
        kinds = {child.tag for child in case}
        outcomes[test_id] = (
            "failed"
            if "failure" in kinds
            else "error"
            if "error" in kinds
            else "skipped"
            if "skipped" in kinds
            else "passed"
        )
    return outcomes
