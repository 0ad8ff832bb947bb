"""A sandbox's tar on its way out onto the host (`sandboxes/trees.extract_tar`: bwrap's setup copies its
workspace and home out through it, and `copy_out`): made by code the sandbox runs, so a forged one is
refused or defused, never written through, and what a real one holds arrives as it is."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from repofix.sandboxes import SandboxError
from repofix.sandboxes.extract import extract_tar


def tar_of(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def entry(name: str, kind: bytes = tarfile.REGTYPE, data: bytes | None = None, **fields) -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if data is not None else 0
    info.mode = fields.pop("mode", 0o644)
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


def outside_of(tmp_path: Path) -> Path:
    target = tmp_path / "host-secret"
    target.write_text("host secret\n")
    target.chmod(0o600)
    return target


FORGED: list[tuple[str, Callable[[Path], tuple]]] = [
    ("hard link to an absolute path", lambda t: (entry("x", tarfile.LNKTYPE, linkname=str(outside_of(t))),)),
    ("hard link up and out", lambda t: (entry("x", tarfile.LNKTYPE, linkname="../host-secret"),)),
    ("member up and out", lambda t: (entry("../escaped", data=b"x"),)),
    (  # a symlink it made, then a file written through it
        "file through its own symlink",
        lambda t: (entry("d", tarfile.SYMTYPE, linkname=str(t)), entry("d/escaped", data=b"x")),
    ),
    (  # a hard link through its own symlink to what lies outside
        "hard link through its own symlink",
        lambda t: (
            entry("d", tarfile.SYMTYPE, linkname=str(t)),
            entry("x", tarfile.LNKTYPE, linkname="d/host-secret"),
        ),
    ),
]


def _deep_symlinks(t: Path) -> tuple:
    """CVE-2025-4517's shape: symlinks whose resolved path passes PATH_MAX, where tarfile's realpath
    check (before Python 3.11.13) stops looking; the file under them is refused by name."""
    made, chain = [], ""
    for letter in "abcdefghijklmnopqrst":
        made += [entry(chain + "d" * 247, tarfile.DIRTYPE, mode=0o755)]
        made += [entry(chain + letter, tarfile.SYMTYPE, linkname="d" * 247)]
        chain += letter + "/"
    made += [entry(chain + "esc", tarfile.SYMTYPE, linkname=str(t)), entry(chain + "esc/escaped", data=b"x")]
    return tuple(made)


FORGED += [
    ("symlinks past PATH_MAX", _deep_symlinks),
    (  # tarfile extracts a hard link whose target it left out as the member itself
        "hard link to a device it left out",
        lambda t: (
            entry("disk", tarfile.BLKTYPE, devmajor=7, devminor=0),
            entry("h", tarfile.LNKTYPE, linkname="disk"),
        ),
    ),
    (
        "a folder where it sent a file",
        lambda t: (entry("a", data=b"x"), entry("a", tarfile.DIRTYPE, mode=0o755)),
    ),
    (  # open() follows the symlink: tarfile's realpath check alone stood between, and it can be outrun
        "a file where it sent a symlink",
        lambda t: (entry("esc", tarfile.SYMTYPE, linkname=str(t / "escaped")), entry("esc", data=b"x")),
    ),
]


@pytest.mark.parametrize(("name", "forged"), FORGED, ids=[f[0] for f in FORGED])
def test_a_forged_tar_writes_nothing_outside_nor_links_to_it(tmp_path, name, forged):
    members = forged(tmp_path)
    dest = tmp_path / "dest"
    with pytest.raises(SandboxError, match="refused what the sandbox sent out"):
        extract_tar(tar_of(*members), dest)
    assert not (tmp_path / "escaped").exists()
    inside = [Path(folder, f) for folder, _, files in os.walk(dest) for f in files]
    assert all(p.is_symlink() or p.lstat().st_nlink == 1 for p in inside), inside  # no link to host-secret
    secret = tmp_path / "host-secret"
    if secret.exists():
        assert secret.stat().st_nlink == 1 and secret.read_text() == "host secret\n"


def test_an_absolute_member_lands_inside(tmp_path):
    dest = tmp_path / "dest"
    extract_tar(tar_of(entry(str(tmp_path / "escaped"), data=b"x")), dest)
    assert not (tmp_path / "escaped").exists()
    assert (dest / str(tmp_path / "escaped").lstrip("/")).read_bytes() == b"x"


def test_devices_and_fifos_are_left_out_the_rest_arrives(tmp_path):
    dest = tmp_path / "dest"
    data = tar_of(
        entry("disk", tarfile.BLKTYPE, devmajor=8, devminor=0),
        entry("tty", tarfile.CHRTYPE, devmajor=5, devminor=0),
        entry("pipe", tarfile.FIFOTYPE),
        entry("kept.txt", data=b"kept\n"),
    )
    extract_tar(data, dest)
    assert sorted(p.name for p in dest.iterdir()) == ["kept.txt"]


def test_no_setuid_bit_nor_owner_of_its_choosing(tmp_path):
    dest = tmp_path / "dest"
    extract_tar(tar_of(entry("sh", data=b"#!/bin/sh\n", mode=0o6755, uid=0, gid=0, uname="root")), dest)
    info = (dest / "sh").stat()
    assert stat.S_IMODE(info.st_mode) == 0o755
    assert info.st_uid == os.geteuid()
    extract_tar(tar_of(entry("theirs", data=b"x", uid=4242, gid=4242)), tmp_path / "dest2")
    assert (tmp_path / "dest2" / "theirs").stat().st_uid == os.geteuid()


def test_the_folder_s_own_entry_is_the_folder(tmp_path):
    """The runner's tar holds `.` first (the folder itself): not refused, not a member of its own."""
    extract_tar(tar_of(entry(".", tarfile.DIRTYPE, mode=0o700), entry("./a", data=b"a")), tmp_path / "dest")
    assert (tmp_path / "dest" / "a").read_bytes() == b"a"


def test_what_a_virtualenv_holds_arrives_as_it_is(tmp_path):
    """Symlinks out of the tree (`bin/python -> /usr/bin/python3`) are kept, not followed: only the
    sandbox follows them; a hard link inside the tree stays one."""
    dest = tmp_path / "dest"
    data = tar_of(
        entry("venv/bin", tarfile.DIRTYPE, mode=0o755),
        entry("venv/bin/python", tarfile.SYMTYPE, linkname="/usr/bin/python3"),
        entry("venv/bin/tool", data=b"#!/bin/sh\n", mode=0o755),
        entry("venv/bin/tool2", tarfile.LNKTYPE, linkname="venv/bin/tool", mode=0o755),
    )
    extract_tar(data, dest)
    assert os.readlink(dest / "venv/bin/python") == "/usr/bin/python3"
    assert (dest / "venv/bin/tool").stat().st_ino == (dest / "venv/bin/tool2").stat().st_ino
    assert stat.S_IMODE((dest / "venv/bin/tool").stat().st_mode) == 0o755


def test_no_more_than_the_folder_holds_nor_a_compressed_stream(tmp_path):
    with pytest.raises(SandboxError, match="its files add up to more than 1 MiB"):
        extract_tar(
            tar_of(entry("a", data=b"x" * (600 << 10)), entry("b", data=b"x" * (600 << 10))),
            tmp_path / "d1",
            1 << 20,
        )
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info, data = entry("zeros", data=b"\0" * (1 << 20))
        archive.addfile(info, io.BytesIO(data))
    with pytest.raises(SandboxError, match="could not copy what the sandbox sent out"):
        extract_tar(buffer.getvalue(), tmp_path / "d2", 1 << 30)
    assert not any((tmp_path / "d2").iterdir())


def test_a_sparse_member_is_left_out(tmp_path):
    info, _ = entry("holes", data=b"")
    info.type = tarfile.GNUTYPE_SPARSE
    info.sparse = [(0, 0)]
    info.size = 0
    extract_tar(tar_of((info, b""), entry("kept", data=b"k")), tmp_path / "dest")
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["kept"]
