"""semverkit: parse, compare and match semantic versions (https://semver.org)."""

from semverkit.compare import compare, max_version, sort_versions
from semverkit.ranges import satisfies
from semverkit.version import InvalidVersion, Version, parse

__all__ = ["InvalidVersion", "Version", "compare", "max_version", "parse", "satisfies", "sort_versions"]
