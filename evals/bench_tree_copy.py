"""Copying a tree into a sandbox: the tar of the tree made on the host, by GNU tar (now) against
Python's tarfile (the baseline: what `tar_directory` did before), on generated trees of 1,000 to
50,000 small files and on a real one (this Python's standard library), and `copy_in` end to end.

    python evals/bench_tree_copy.py [--runs 3] [--backend bwrap] [--out evals/results/bench_tree_copy.md]

Medians over --runs, both ways measured in this one run (these machines are noisy)."""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import sysconfig
import tarfile
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repofix.sandboxes import open_sandbox  # noqa: E402
from repofix.sandboxes.trees import tar_directory  # noqa: E402

warnings.simplefilter("ignore")


def tarfile_baseline(source: Path) -> bytes:
    """The tar as Python's tarfile made it (repofix before this change)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for folder, dirs, files in os.walk(source):
            dirs.sort()
            for name in [*dirs, *sorted(files)]:
                path = Path(folder, name)
                info = archive.gettarinfo(path, arcname=path.relative_to(source).as_posix())
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                if info.isreg():
                    with open(path, "rb") as handle:
                        archive.addfile(info, handle)
                else:
                    archive.addfile(info)
    return buffer.getvalue()


def generated(root: Path, count: int) -> Path:
    for n in range(count):
        path = root / f"d{n // 100}" / f"f{n % 100}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {n}\n")
    return root


def median_s(action, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backend", default="bwrap")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "bench_tree_copy.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        trees = [
            (f"generated, {n:,} files", generated(Path(tmp, str(n)), n)) for n in (1_000, 10_000, 50_000)
        ]
        trees.append(("Python's standard library", Path(sysconfig.get_paths()["stdlib"])))
        for label, tree in trees:
            files = sum(len(names) for _, _, names in os.walk(tree))
            size = len(tar_directory(tree)) / 2**20
            before = median_s(lambda tree=tree: tarfile_baseline(tree), args.runs)
            now = median_s(lambda tree=tree: tar_directory(tree), args.runs)

            def copy(tree=tree) -> None:
                with open_sandbox(None, backend=args.backend) as box:
                    box.copy_in(tree)

            copy_in = median_s(copy, args.runs)
            rows.append(
                f"| {label} | {files:,} | {size:.0f} | {before:.2f} | {now:.2f} | {before / now:.1f}x | {copy_in:.2f} |"
            )
            print(rows[-1], flush=True)
    table = "\n".join(
        [
            f"# Copying a tree into a sandbox ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
            "",
            f"`python evals/bench_tree_copy.py --runs {args.runs} --backend {args.backend}`; medians of"
            f" {args.runs} runs, both tars made in this one run on {os.cpu_count()} cores.",
            "",
            "| tree | files | tar MiB | tarfile s (baseline) | GNU tar s (now) | speed-up | copy_in s"
            f" ({args.backend}, now) |",
            "| --- | --- | --- | --- | --- | --- | --- |",
            *rows,
            "",
        ]
    )
    args.out.write_text(table)
    print(table)


if __name__ == "__main__":
    main()
