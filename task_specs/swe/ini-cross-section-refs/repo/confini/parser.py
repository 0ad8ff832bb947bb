"""INI text -> {section: {key: raw value}}.

Supported: `[section]` headers, `key = value` and `key: value`, full-line comments starting with
`#` or `;`, and continuation lines (indented lines extend the previous value, joined with '\n').
Keys are case-insensitive (stored lower-case); section names are case-sensitive.
"""

from __future__ import annotations

from confini.errors import ParseError

DEFAULT_SECTION = "DEFAULT"


def parse_ini(text: str, source: str = "<string>") -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {DEFAULT_SECTION: {}}
    current: dict[str, str] | None = None
    last_key: str | None = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        if line[0] in " \t" and last_key is not None and current is not None:
            current[last_key] += "\n" + stripped
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                raise ParseError("unterminated section header", lineno, source)
            name = stripped[1:-1].strip()
            if not name:
                raise ParseError("empty section name", lineno, source)
            current = sections.setdefault(name, {})
            last_key = None
            continue
        if current is None:
            raise ParseError("key outside of any section", lineno, source)
        cut = min((i for i in (stripped.find("="), stripped.find(":")) if i > 0), default=-1)
        if cut < 0:
            raise ParseError(f"expected 'key = value', got {stripped!r}", lineno, source)
        last_key = stripped[:cut].strip().lower()
        current[last_key] = stripped[cut + 1:].strip()
    return sections
