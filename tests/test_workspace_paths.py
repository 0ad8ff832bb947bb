"""Names from the sandbox as git (with its NTFS/HFS+ protections) would judge them, and the one
sanitiser for text shown to people."""

from __future__ import annotations

import pytest

from repofix.safetext import visible, visible_path
from repofix.workspace.paths import path_problem

LINK = 0o120000


@pytest.mark.parametrize(
    "path, mode, expected",
    [
        (".GIT/hooks/post-checkout", 0o100755, ".git"),
        ("sub/.git", 0o100644, ".git"),
        ("a/.Git/config", 0o100644, ".git"),
        (".git./config", 0o100644, ".git"),  # NTFS drops trailing dots
        (".git /x", 0o100644, ".git"),  # ... and spaces
        ("GIT~1/config", 0o100644, ".git"),  # NTFS short name
        (".g\u200cit/config", 0o100644, ".git"),  # HFS+ ignores zero-width joiners
        (".git::$INDEX_ALLOCATION/x", 0o100644, ".git"),  # NTFS alternate data stream
        (".gitmodules", LINK, "must not be a symlink"),
        ("lib/.GitModules", LINK, "must not be a symlink"),
        (".gitattributes", LINK, "must not be a symlink"),
        ("bad\udcffname.py", 0o100644, "not valid UTF-8"),
        ("d/" + "x" * 256, 0o100644, "256 bytes long"),
        ("/".join(["d" * 200] * 11), 0o100644, "the limit is 2048"),
        ("line\nbreak.py", 0o100644, "control character"),
        ("back\\slash.py", 0o100644, "backslash"),
        ("pipe.py", 0, "special file"),
    ],
)
def test_refused_names(path, mode, expected):
    problem = path_problem(path, mode)
    assert problem is not None and expected in problem


@pytest.mark.parametrize(
    "path, mode",
    [
        ("pkg/mod.py", 0o100644),
        (".gitmodules", 0o100644),
        (".github/workflows/ci.yml", 0o100644),
        ("docs/.gitkeep", 0o100644),
        ("git~x/file", 0o100644),
        ("ünïcode/名前.py", 0o100644),
        ("n" * 255, 0o100644),
        ("link", LINK),
        ("run.sh", 0o100755),
        ("a.git/b", 0o100644),
    ],
)
def test_ordinary_names_pass(path, mode):
    assert path_problem(path, mode) is None


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("plain text, ünïcode 名前\n\tindented", "plain text, ünïcode 名前\n\tindented"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),
        ("fake\rDONE", "fake\\x0dDONE"),
        ("\u202eevil", "\\u202eevil"),
        ("c1\x9bcsi", "c1\\x9bcsi"),
        ("del\x7f", "del\\x7f"),
    ],
)
def test_visible_escapes_what_a_terminal_would_interpret(raw, shown):
    assert visible(raw) == shown


def test_visible_one_line_and_paths():
    assert visible("a\nb", one_line=True) == "a\\x0ab"
    assert visible_path("x\udcffy/\x1b.py") == "x\\xffy/\\x1b.py"
