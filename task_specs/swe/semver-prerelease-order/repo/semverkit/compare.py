"""Version precedence, following section 11 of the SemVer 2.0.0 specification."""

from __future__ import annotations

from collections.abc import Iterable

from semverkit.version import Version, parse


def _as_version(value: Version | str) -> Version:
    return value if isinstance(value, Version) else parse(value)


def _prerelease_key(prerelease: tuple[str, ...]) -> tuple:
    # A release sorts after all of its pre-releases: (1,) > (0, ...).
    if not prerelease:
        return (1,)
    return (0, prerelease)


def sort_key(value: Version | str) -> tuple:
    """Key for sorted(): build metadata is ignored, as the spec requires."""
    version = _as_version(value)
    return (version.core, _prerelease_key(version.prerelease))


def compare(a: Version | str, b: Version | str) -> int:
    """Return -1, 0 or 1 as `a` has lower, equal or higher precedence than `b`."""
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def sort_versions(values: Iterable[Version | str], reverse: bool = False) -> list[Version]:
    return sorted((_as_version(v) for v in values), key=sort_key, reverse=reverse)


def max_version(values: Iterable[Version | str], include_prerelease: bool = False) -> Version | None:
    candidates = [_as_version(v) for v in values]
    if not include_prerelease:
        candidates = [v for v in candidates if not v.is_prerelease]
    return max(candidates, key=sort_key, default=None)
