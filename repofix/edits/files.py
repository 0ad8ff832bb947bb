"""The files an edit works on: an overlay of its changes over the caller's source, and the paths the
model writes made relative to the repository (or refused)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from repofix.edits.model import EditError, ErrorKind, FileContent, FileSource

_MISSING = object()


class Files:
    """The files as the edit goes along: an overlay of changes over the caller's source."""

    def __init__(self, source: FileSource, known: Iterable[str] | None) -> None:
        self.source = source
        self.overlay: dict[str, FileContent] = {}
        self._known_paths = known
        self._known: set[str] | None = None

    @property
    def known(self) -> set[str]:
        """Paths for "did you mean" suggestions; read only when some path is missing (may be costly)."""
        if self._known is None:
            if self._known_paths is not None:
                self._known = set(self._known_paths)
            elif isinstance(self.source, Mapping):
                self._known = {p for p, c in self.source.items() if c is not None}
            else:
                self._known = set()
        return self._known

    def original(self, path: str) -> FileContent:
        if isinstance(self.source, Mapping):
            return self.source.get(path)
        return self.source(path)

    def read(self, path: str) -> FileContent:
        got = self.overlay.get(path, _MISSING)
        return self.original(path) if got is _MISSING else got  # type: ignore[return-value]

    def write(self, path: str, content: FileContent) -> None:
        self.overlay[path] = content

    def changes(self) -> dict[str, FileContent]:
        return {p: c for p, c in self.overlay.items() if c != self.original(p)}


def clean_path(path: str | None, root: str = "") -> str | None:
    if path is None:
        return None
    path = path.replace("\\", "/")
    root = root.rstrip("/")
    if root and path.startswith(root + "/"):  # absolute, inside the repository (as models write them)
        path = path[len(root) + 1 :]
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        where = f" or under {root}/" if root else ""
        raise EditError(
            ErrorKind.BAD_PATH,
            f"{path}: outside the repository; use a path relative to the repository root{where}.",
            path,
        )
    norm = posixpath.normpath(path)
    if norm == ".." or norm.startswith("../") or norm == ".":
        raise EditError(ErrorKind.BAD_PATH, f"{path}: the path leaves the repository.", path)
    return norm
