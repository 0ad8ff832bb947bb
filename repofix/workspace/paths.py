"""Path hygiene for what comes back from the sandbox: names checked the way git (with its NTFS and
HFS+ protections) would check them, and a little stricter. A refused path is never checkpointed,
so it can never be delivered, applied or checked out on the host."""

from __future__ import annotations

import re
import unicodedata

MAX_COMPONENT_BYTES = 255  # NAME_MAX of ext4, tmpfs, btrfs, xfs; APFS and NTFS allow about as much
MAX_PATH_BYTES = 2048
SPECIAL = 0  # the git mode the sandbox reports for a fifo, socket or device
# Code points HFS+ ignores when comparing names: ".g\u200cit" is ".git" there.
_HFS_IGNORED = dict.fromkeys(
    [0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF]
)
_GIT_FILES = (".gitmodules", ".gitattributes", ".gitignore", ".mailmap")  # git refuses these as symlinks
_DOTGIT_SHORT = re.compile(r"^(git|gi7eba)~\d+$")  # NTFS 8.3 names of .git
_MODULES_SHORT = re.compile(r"^(gitmod|gi7d29)~\d+$")  # ... and of .gitmodules


def _normal(component: str) -> str:
    """The name as a case-insensitive, HFS+/NTFS-normalising filesystem would see it."""
    text = unicodedata.normalize("NFC", component.translate(_HFS_IGNORED)).casefold()
    text = text.split(":", 1)[0]  # NTFS alternate data streams: ".git::$INDEX_ALLOCATION"
    return text.rstrip(". ")  # NTFS drops trailing dots and spaces


def path_problem(path: str, mode: int | None = None) -> str | None:
    """Why `path` (with git `mode`, None: not known) must not enter a checkpoint, or None if it may."""
    try:
        raw = path.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8"
    if len(raw) > MAX_PATH_BYTES:
        return f"the path is {len(raw)} bytes long (the limit is {MAX_PATH_BYTES})"
    for component in path.split("/"):
        size = len(component.encode())
        if size > MAX_COMPONENT_BYTES:
            return f"a component of its name is {size} bytes long (the limit is {MAX_COMPONENT_BYTES})"
        if any(ord(c) < 32 or ord(c) == 127 for c in component) or "\\" in component:
            return "its name holds a control character or a backslash"
        if component in ("", ".", ".."):
            return "its name has an empty, '.' or '..' component"
        normal = _normal(component)
        if normal == ".git" or _DOTGIT_SHORT.match(normal):
            return "a component of its name is (or a filesystem would read it as) .git"
    if mode == SPECIAL:
        return "it is a special file (a fifo, socket or device), not a regular file or symlink"
    name = _normal(path.rsplit("/", 1)[-1])
    if mode == 0o120000 and (name in _GIT_FILES or _MODULES_SHORT.match(name)):
        return f"{path.rsplit('/', 1)[-1]} must not be a symlink (git refuses it)"
    return None
