"""A sandbox folder's tar on its way out, onto the host: bwrap's setup brings its workspace and home
back through it, and `copy_out` too. Made by code the sandbox runs, so it is checked by name before
anything is written, not trusted to be what a tar of a folder would be."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from repofix.safetext import visible, visible_path
from repofix.sandboxes.base import SandboxError


def extract_tar(data: bytes, dest: Path, max_bytes: int | None = None) -> None:
    """Write the tar `data` into `dest` (absent or empty). tarfile's own checks are not enough: its
    realpath check gives up past 4,096 characters of symlinks before Python 3.11.13 (CVE-2025-4517),
    and a hard link to a missing target extracts the member unfiltered. So: no name leaves `dest`,
    none lies under a symlink or a file the tar made, none comes twice (a file sent after a symlink
    of its name is written where the symlink points), a hard link only links a file the tar wrote; a
    device, a fifo or a sparse file is left out; files add up to at most `max_bytes`; owners and
    setuid bits are not kept. Symlinks are kept as they are: only the sandbox follows them (a
    virtualenv's `bin/python -> /usr/bin/python3`)."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise SandboxError(f"cannot copy out of the sandbox into {visible_path(str(dest))}: not empty")
    kinds: dict[str, str] = {}  # name -> "dir", "file" or "link"
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:  # no decompression
            for member in archive:
                kind = _kind(member)
                if kind is None or (kind == "dir" and not member.name.strip("./")):
                    continue  # a device, a fifo: nothing a run needs; `.`: the folder itself
                name = _checked(member.name, kinds)
                if name in kinds and not kinds[name] == kind == "dir":  # a file is written through a symlink
                    raise _refused(f"{name!r} is sent twice")
                if member.islnk() and kinds.get(_checked(member.linkname, kinds)) != "file":
                    raise _refused(f"{name!r} is a hard link to {member.linkname!r}, no file it sent")
                total += member.size if member.isreg() else 0
                if max_bytes is not None and total > max_bytes:
                    raise _refused(f"its files add up to more than {max_bytes >> 20} MiB")
                kinds[name] = kind
                archive.extract(member.replace(name=name, deep=False), dest, filter=_attributes)
    except (tarfile.TarError, OSError) as error:
        raise SandboxError(
            f"could not copy what the sandbox sent out into {visible_path(str(dest))}: {visible(str(error))}"
        ) from None


def _kind(member: tarfile.TarInfo) -> str | None:
    if member.isdir():
        return "dir"
    if member.issym():
        return "link"
    if (member.isreg() and not member.issparse()) or member.islnk():
        return "file"
    return None


def _checked(raw: str, kinds: dict[str, str]) -> str:
    """`raw` as a plain relative name, every folder above it one the tar made as a folder (or none)."""
    parts = [part for part in raw.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or "\0" in raw:
        raise _refused(f"{raw!r} is no name inside the folder")
    for end in range(1, len(parts)):
        above = "/".join(parts[:end])
        if kinds.get(above, "dir") != "dir":
            raise _refused(f"{raw!r} lies under {above!r}, which it sent as a {kinds[above]}")
    return "/".join(parts)


def _refused(why: str) -> tarfile.FilterError:
    return tarfile.FilterError(f"refused what the sandbox sent out: {why}")


def _attributes(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
    """No owner, no setuid/setgid bit, user read/write (tarfile's data filter on the mode); a symlink
    checked as a link to itself, then given its target back."""
    if member.issym():
        kept = tarfile.data_filter(member.replace(linkname=".", deep=False), dest)
        return kept.replace(linkname=member.linkname, deep=False)
    return tarfile.data_filter(member, dest)
