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
from repofix.sandboxes.trees import extract_tar


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
    extract_tar(tar_of(entry("theirs", data=b"x", uid=4242, gid=4242)), dest)
    assert (dest / "theirs").stat().st_uid == os.geteuid()


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
