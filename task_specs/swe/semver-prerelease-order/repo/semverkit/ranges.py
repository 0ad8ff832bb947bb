"""Version constraints: '^1.2.0', '~1.4', '>=1.0.0, <2.0.0', '1.2.3'."""

from __future__ import annotations

import re

from semverkit.compare import compare
from semverkit.version import Version, parse

_CLAUSE_RE = re.compile(r"^(?P<op>\^|~|>=|<=|>|<|==|=)?\s*(?P<ver>.+)$")


def _pad(text: str) -> str:
    """'1' -> '1.0.0', '1.4' -> '1.4.0' (pre-release/build parts are kept)."""
    core, sep, rest = text.partition("-")
    parts = core.split(".")
    while len(parts) < 3:
        parts.append("0")
    return ".".join(parts) + sep + rest


def _upper_caret(v: Version) -> Version:
    if v.major > 0:
        return Version(v.major + 1, 0, 0)
    if v.minor > 0:
        return Version(0, v.minor + 1, 0)
    return Version(0, 0, v.patch + 1)


def _clause_ok(version: Version, clause: str) -> bool:
    match = _CLAUSE_RE.match(clause.strip())
    if not match:
        raise ValueError(f"bad constraint: {clause!r}")
    op = match.group("op") or "="
    raw = match.group("ver").strip()
    target = parse(_pad(raw))
    c = compare(version, target)
    if op == "^":
        return c >= 0 and compare(version, _upper_caret(target)) < 0
    if op == "~":
        upper = Version(target.major + 1, 0, 0) if raw.count(".") == 0 else Version(
            target.major, target.minor + 1, 0)
        return c >= 0 and compare(version, upper) < 0
    return {
        ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "=": c == 0, "==": c == 0,
    }[op]


def satisfies(version: Version | str, constraint: str) -> bool:
    """True when `version` meets every comma-separated clause of `constraint`.

    A pre-release only satisfies a constraint that mentions a pre-release of the same
    major.minor.patch, as npm and cargo do.
    """
    v = version if isinstance(version, Version) else parse(version)
    clauses = [c for c in constraint.split(",") if c.strip()]
    if not clauses:
        raise ValueError("empty constraint")
    if v.is_prerelease:
        allowed = False
        for clause in clauses:
            raw = _CLAUSE_RE.match(clause.strip()).group("ver").strip()
            t = parse(_pad(raw))
            if t.is_prerelease and t.core == v.core:
                allowed = True
        if not allowed:
            return False
    return all(_clause_ok(v, c) for c in clauses)
