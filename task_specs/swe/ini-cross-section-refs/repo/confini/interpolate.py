"""${name} interpolation.

`${name}` is replaced by the value of `name` in the same section, falling back to the DEFAULT
section; referenced values are interpolated in turn. `$$` is a literal dollar sign.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from confini.errors import InterpolationError
from confini.parser import DEFAULT_SECTION

_REF_RE = re.compile(r"\$(\$|\{([^}]*)\})")
MAX_DEPTH = 10


def _lookup(sections: Mapping[str, Mapping[str, str]], section: str, key: str) -> str:
    for name in (section, DEFAULT_SECTION):
        values = sections.get(name, {})
        if key in values:
            return values[key]
    raise InterpolationError(f"[{section}]: unknown reference ${{{key}}}")


def interpolate(sections: Mapping[str, Mapping[str, str]], section: str, value: str,
                _chain: tuple[str, ...] = ()) -> str:
    """Expand every reference in `value`, read in the context of `section`."""
    if len(_chain) > MAX_DEPTH:
        raise InterpolationError(f"[{section}]: references nested too deeply: {' -> '.join(_chain)}")

    def replace(match: re.Match) -> str:
        if match.group(1) == "$":
            return "$"
        key = match.group(2).strip().lower()
        if not key:
            raise InterpolationError(f"[{section}]: empty reference ${{}}")
        if key in _chain:
            raise InterpolationError(f"[{section}]: circular reference: {' -> '.join((*_chain, key))}")
        raw = _lookup(sections, section, key)
        return interpolate(sections, section, raw, (*_chain, key))

    return _REF_RE.sub(replace, value)
