"""The Config object: typed access to parsed, interpolated values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confini.errors import ConfigError
from confini.interpolate import interpolate
from confini.parser import DEFAULT_SECTION, parse_ini

_MISSING = object()
_BOOLEANS = {"1": True, "yes": True, "true": True, "on": True,
             "0": False, "no": False, "false": False, "off": False}


class Config:
    def __init__(self, sections: dict[str, dict[str, str]]) -> None:
        self._sections = sections

    @classmethod
    def from_string(cls, text: str) -> Config:
        return cls(parse_ini(text))

    @classmethod
    def from_file(cls, path: str | Path) -> Config:
        path = Path(path)
        return cls(parse_ini(path.read_text(encoding="utf-8"), source=str(path)))

    def sections(self) -> list[str]:
        return [name for name in self._sections if name != DEFAULT_SECTION]

    def has(self, section: str, key: str) -> bool:
        key = key.lower()
        return key in self._sections.get(section, {}) or key in self._sections[DEFAULT_SECTION]

    def get(self, section: str, key: str, fallback: Any = _MISSING, raw: bool = False) -> Any:
        if section not in self._sections:
            if fallback is not _MISSING:
                return fallback
            raise ConfigError(f"no section [{section}]")
        key = key.lower()
        value = self._sections[section].get(key, self._sections[DEFAULT_SECTION].get(key))
        if value is None:
            if fallback is not _MISSING:
                return fallback
            raise ConfigError(f"[{section}] has no key {key!r}")
        return value if raw else interpolate(self._sections, section, value, (key,))

    def getint(self, section: str, key: str, fallback: Any = _MISSING) -> Any:
        value = self.get(section, key, fallback)
        try:
            return value if value is fallback else int(value)
        except ValueError as exc:
            raise ConfigError(f"[{section}] {key}: not an integer: {value!r}") from exc

    def getbool(self, section: str, key: str, fallback: Any = _MISSING) -> Any:
        value = self.get(section, key, fallback)
        if value is fallback:
            return value
        try:
            return _BOOLEANS[value.strip().lower()]
        except KeyError:
            raise ConfigError(f"[{section}] {key}: not a boolean: {value!r}") from None

    def getlist(self, section: str, key: str, fallback: Any = _MISSING) -> Any:
        """Comma- or newline-separated values, stripped, empty items dropped."""
        value = self.get(section, key, fallback)
        if value is fallback:
            return value
        return [item.strip() for item in value.replace("\n", ",").split(",") if item.strip()]

    def section(self, name: str) -> dict[str, str]:
        """All keys of a section (DEFAULT keys included), interpolated."""
        keys = {**self._sections[DEFAULT_SECTION], **self._sections.get(name, {})}
        return {key: self.get(name, key) for key in keys}
