"""Path hygiene at its edges: the byte limits (bytes, not characters), each empty or dot component,
each control character class, every NTFS short name and HFS+-ignored code point of .git, every file
git refuses as a symlink. Each case kills a mutant that test_workspace_paths.py let through."""

from __future__ import annotations

import pytest

from repofix.workspace.paths import path_problem

LINK, FILE = 0o120000, 0o100644


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        pytest.param("/".join(["d" * 203] * 10) + "/" + "x" * 8, False, id="2048-bytes"),
        pytest.param("/".join(["d" * 203] * 10) + "/" + "x" * 9, True, id="2049-bytes"),
        pytest.param("é" * 127 + "x", False, id="component-255-bytes"),
        pytest.param("é" * 128, True, id="component-256-bytes-in-128-characters"),
        pytest.param("/".join(["é" * 100] * 11), True, id="2210-bytes-in-1110-characters"),
    ],
)
def test_length_limits_count_bytes(path, refused) -> None:
    assert (path_problem(path, FILE) is not None) is refused


@pytest.mark.parametrize("path", ["a//b", "./a", "a/./b", "a/..", "../a", "a/", "/a"])
def test_empty_and_dot_components_are_refused(path) -> None:
    assert "'.' or '..' component" in (path_problem(path, FILE) or "")


@pytest.mark.parametrize(
    ("char", "refused"),
    [
        ("\x00", True),
        ("\x1f", True),
        ("\x7f", True),
        ("\t", True),
        (" ", False),
        ("~", False),
        ("\x80", False),
    ],
)
def test_control_characters_are_refused_and_spaces_are_not(char, refused) -> None:
    assert (path_problem(f"a{char}b.py", FILE) is not None) is refused


@pytest.mark.parametrize(
    "component",
    [
        "gi7eba~1",
        "GIT~12",
        "GI7EBA~3",
        ".gi\ufefft",
        "\u202e.git",
        ".git\u206f",
        ".gi\u200et",
        ".GIT. .",
        ".git:x",
    ],
)
def test_every_spelling_of_dotgit_is_refused(component) -> None:
    assert ".git" in (path_problem(f"{component}/config", FILE) or "")


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        (".gitmodules", True),
        (".gitignore", True),
        (".mailmap", True),
        (".gitattributes", True),
        ("GITMOD~1", True),
        ("gi7d29~4", True),
        (".gitmodules.", True),
        (".gitkeep", False),
        ("gitmod~x", False),
    ],
)
def test_files_git_refuses_as_symlinks(name, refused) -> None:
    assert (path_problem(f"lib/{name}", LINK) is not None) is refused
    assert path_problem(f"lib/{name}", FILE) is None  # as regular files they are fine


def test_an_unknown_mode_is_not_a_special_file() -> None:
    assert path_problem("pkg/mod.py", None) is None
    assert path_problem(".gitmodules", None) is None


@pytest.mark.parametrize("name", [".env", ".flake8", ".a", "-", ".git-blame-ignore-revs", ".gitx"])
def test_names_that_sort_near_dot_git_are_ordinary(name) -> None:
    """Only .git itself (and what a filesystem reads as it) is refused, not what sorts before or after it."""
    assert path_problem(f"{name}/x.py", FILE) is None
    assert path_problem(name, FILE) is None


def test_a_refused_symlink_is_named_by_its_own_name() -> None:
    assert path_problem("lib/sub/.gitmodules", LINK) == ".gitmodules must not be a symlink (git refuses it)"


@pytest.mark.parametrize(
    ("char", "ignored"),
    [
        ("\u200b", False),  # zero width space: HFS+ keeps it
        ("\u200c", True),
        ("\u200d", True),
        ("\u200e", True),
        ("\u200f", True),
        ("\u2010", False),
        ("\u2029", False),  # just before the run HFS+ ignores (U+202A..U+202E)
        ("\u202a", True),
        ("\u202e", True),
        ("\u202f", False),  # just after it
        ("\u2069", False),  # just before the second run (U+206A..U+206F)
        ("\u206a", True),
        ("\u206f", True),
        ("\u2070", False),  # just after it
        ("\ufeff", True),
    ],
)
def test_only_the_code_points_hfs_ignores_hide_a_dotgit(char, ignored) -> None:
    assert (path_problem(f".gi{char}t/config", FILE) is not None) is ignored
