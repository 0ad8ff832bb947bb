"""Path patterns like '/users/<int:id>/posts/<slug>' and the router that matches them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

_CONVERTERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "str": (r"[^/]+", str),
    "int": (r"\d+", int),
    "path": (r".+", str),
}
_PARAM_RE = re.compile(r"<(?:(?P<conv>\w+):)?(?P<name>\w+)>")


@dataclass
class Route:
    method: str
    pattern: str
    handler: Callable
    regex: re.Pattern
    converters: dict[str, Callable[[str], Any]]

    def match_path(self, path: str) -> dict[str, Any] | None:
        m = self.regex.fullmatch(path)
        if m is None:
            return None
        return {name: self.converters[name](value) for name, value in m.groupdict().items()}


def compile_pattern(pattern: str) -> tuple[re.Pattern, dict[str, Callable[[str], Any]]]:
    if not pattern.startswith("/"):
        raise ValueError(f"route pattern must start with '/': {pattern!r}")
    regex, converters, pos = "", {}, 0
    for m in _PARAM_RE.finditer(pattern):
        conv = m.group("conv") or "str"
        if conv not in _CONVERTERS:
            raise ValueError(f"unknown converter {conv!r} in {pattern!r}")
        part, func = _CONVERTERS[conv]
        regex += re.escape(pattern[pos:m.start()]) + f"(?P<{m.group('name')}>{part})"
        converters[m.group("name")] = func
        pos = m.end()
    regex += re.escape(pattern[pos:])
    return re.compile(regex), converters


class Router:
    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, method: str, pattern: str, handler: Callable) -> Route:
        regex, converters = compile_pattern(pattern)
        route = Route(method.upper(), pattern, handler, regex, converters)
        self.routes.append(route)
        return route

    def match(self, method: str, path: str) -> tuple[Route, dict[str, Any]] | None:
        """The first route registered for `method` whose pattern matches `path`."""
        method = method.upper()
        for route in self.routes:
            if route.method != method:
                continue
            params = route.match_path(path)
            if params is not None:
                return route, params
        return None
