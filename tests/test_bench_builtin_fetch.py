"""The benchmarks' sdist cache (evals/bench_builtin_bugs.fetch): an engine and its baseline run as two
processes on one cache, so on a fresh cache both may unpack the same sdist at once; each gets the
unpacked project, and nothing half-unpacked is left. An sdist whose links lead out of its folder or
to nothing is refused with the link named, and nothing of it is left."""

from __future__ import annotations

import io
import sys
import tarfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

import pytest  # noqa: E402
from bench_builtin_bugs import fetch  # noqa: E402

FILES = {f"tiny-1.0/tiny/part{i}.py": f"VALUE = {i}\n" * 200 for i in range(40)}


def sdist(dest: Path) -> None:
    dest.mkdir(parents=True)
    with tarfile.open(dest / "tiny-1.0.tar.gz", "w:gz") as tar:
        for name, text in FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_processes_unpacking_one_sdist_at_once_each_get_it_whole(tmp_path: Path) -> None:
    for round_ in range(5):  # a race: several rounds of four processes on a fresh cache each
        cache = tmp_path / f"cache{round_}"
        sdist(cache / "sdists")
        with ProcessPoolExecutor(4) as pool:
            folders = list(pool.map(fetch, ["tiny==1.0"] * 4, [cache] * 4))
        assert folders == [cache / "unpacked" / "tiny-1.0"] * 4
        unpacked = sorted(p.relative_to(cache / "unpacked").as_posix() for p in folders[0].rglob("*.py"))
        assert unpacked == sorted(FILES)
        assert [p.name for p in (cache / "unpacked").iterdir()] == ["tiny-1.0"]  # no temporary folder left


def linked_sdist(dest: Path, links: dict[str, str]) -> None:
    dest.mkdir(parents=True)
    with tarfile.open(dest / "linky-1.0.tar.gz", "w:gz") as tar:
        data = b"VALUE = 1\n"
        info = tarfile.TarInfo("linky-1.0/linky.py")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for name, target in links.items():
            link = tarfile.TarInfo(f"linky-1.0/{name}")
            link.type, link.linkname = tarfile.SYMTYPE, target
            tar.addfile(link)


@pytest.mark.parametrize(
    "links",
    [
        {"LICENSE.txt": "../LICENSE.txt"},  # optmatch 1.0.0's: in the archive, out of the folder
        {"docs": "../other-1.0"},  # a folder of a neighbour in the cache
        {"missing.py": "nowhere.py"},  # to nothing
        {"a": "b", "b": "a"},  # a loop
    ],
)
def test_an_sdist_with_a_link_out_of_its_folder_is_refused(tmp_path: Path, links: dict[str, str]) -> None:
    linked_sdist(tmp_path / "sdists", links)
    with pytest.raises(ValueError, match="holds a link out of its folder or to nothing"):
        fetch("linky==1.0", tmp_path)
    assert list((tmp_path / "unpacked").iterdir()) == []  # nothing left half-unpacked


def test_a_link_inside_the_folder_is_kept(tmp_path: Path) -> None:
    linked_sdist(tmp_path / "sdists", {"alias.py": "linky.py"})
    folder = fetch("linky==1.0", tmp_path)
    assert (folder / "alias.py").read_text() == "VALUE = 1\n"
