"""The benchmarks' sdist cache (evals/bench_builtin_bugs.fetch): an engine and its baseline run as two
processes on one cache, so on a fresh cache both may unpack the same sdist at once; each gets the
unpacked project, and nothing half-unpacked is left."""

from __future__ import annotations

import io
import sys
import tarfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evals"))

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
