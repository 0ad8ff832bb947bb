"""Data shapes shared by the edit parsers, the locator and `apply_edit`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

# What `apply_edit` reads the current files from: a mapping (missing key or None = no such file)
# or a function returning the content, or None when the path does not exist.
FileContent = str | bytes | None
FileSource = Mapping[str, FileContent] | Callable[[str], FileContent]


class ErrorKind(str, Enum):
    NO_EDIT = "no_edit"  # nothing in the text looks like an edit
    MALFORMED = "malformed"  # an edit block or diff that cannot be parsed
    BAD_PATH = "bad_path"  # absolute path or one escaping the repository
    FILE_NOT_FOUND = "file_not_found"
    FILE_EXISTS = "file_exists"  # creating a file that exists with other content
    NO_MATCH = "no_match"  # a hunk / SEARCH text found nowhere
    AMBIGUOUS = "ambiguous"  # found in several places that give different results
    CONFLICT = "conflict"  # two hunks of one edit overlap
    BINARY = "binary"  # binary file without usable binary data, or text edit of a binary file
    SYNTAX_ERROR = "syntax_error"  # the edited Python file no longer parses


@dataclass(frozen=True)
class Hunk:
    """One change: `lines` are (op, text) pairs with op in ' ', '-', '+'; text has no line ending.

    `old_start` is the 0-based index the author claims the first old line is at (None if unknown).
    `old_no_eol`/`new_no_eol`: the hunk carried a "\\ No newline at end of file" marker after its
    old / new side. `declared_old`: the old line count its `@@` header declares (None without one).
    """

    lines: tuple[tuple[str, str], ...]
    old_start: int | None = None
    old_no_eol: bool = False
    new_no_eol: bool = False
    declared_old: int | None = None

    @property
    def lost_lines(self) -> bool:
        """The header declares more old lines than the hunk has: some were left out."""
        return self.declared_old is not None and self.declared_old > len(self.old)

    @property
    def old(self) -> list[str]:
        return [t for op, t in self.lines if op != "+"]

    @property
    def new(self) -> list[str]:
        return [t for op, t in self.lines if op != "-"]

    @property
    def has_eol_markers(self) -> bool:
        return self.old_no_eol or self.new_no_eol


@dataclass
class FileEdit:
    """One file's worth of change, whatever format it came in."""

    kind: str  # "modify" | "create" | "delete" | "rename" | "copy" | "write" | "replace"
    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)
    content: str | bytes | None = None  # for "write" (whole file) and binary literals
    binary: bool = False
    binary_delta: bytes | None = None  # git delta against the old content
    alternatives: list[list[Hunk]] = field(default_factory=list)  # other readings of a SEARCH block

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""


@dataclass(frozen=True)
class Region:
    """Closest region of the actual file to a hunk that did not match (1-based line numbers)."""

    first_line: int
    lines: tuple[str, ...]
    differences: tuple[str, ...]  # diff lines: '-' expected by the edit, '+' actually in the file


@dataclass
class EditError(Exception):
    """Why an edit was refused, with what the model needs to fix it. `str()` is the message."""

    kind: ErrorKind
    message: str
    path: str | None = None
    hunk: int | None = None  # 1-based index of the hunk / block within its file
    region: Region | None = None
    candidates: list[int] = field(default_factory=list)  # 1-based line numbers
    similar_paths: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.message

    def __hash__(self) -> int:
        return id(self)


@dataclass
class EditResult:
    """Either `changes` (path -> new content, None = delete) or `errors` (then nothing applies)."""

    changes: dict[str, str | bytes | None] = field(default_factory=dict)
    format: str = ""  # "diff" | "search-replace" | "whole-file" | "mixed"
    notes: list[str] = field(default_factory=list)
    errors: list[EditError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def error(self) -> EditError | None:
        return self.errors[0] if self.errors else None

    def message(self) -> str:
        """Text to show the model: the errors, or a short summary of what was applied."""
        if self.errors:
            head = "The edit was NOT applied (no file was changed):"
            return "\n\n".join([head, *(e.message for e in self.errors)])
        done = ", ".join(sorted(self.changes)) or "nothing to change"
        return "\n".join([f"Edit applied: {done}", *self.notes])
