"""Screening PyPI projects for the next held-aside set (bench_builtin_sets.py freezes it): a list of
candidates, each candidate screened once, and the passed ones qualified by the rules the frozen
sets' notes record. It plants no bug and runs no engine: a set's bugs exist only after its freeze.

    python evals/bench_builtin_screen.py list --out /work/cache/screen56/list.txt [--seed N]
    python evals/bench_builtin_screen.py screen --list /work/cache/screen56/list.txt --from 0 --count 500
    python evals/bench_builtin_screen.py qualify --list /work/cache/screen56/list.txt

`screen` appends one JSON line per project to <cache>/status.jsonl and skips the projects already
there, so a stopped run resumes; downloads and suites run in bubblewrap (screen_sandbox.py).
The rules: screen_list.py (the list), screen_check.py (one project), screen_qualify.py (the picks)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from screen_check import screen
from screen_list import DEFAULT_SEED, PYPI_TSV, write_list
from screen_qualify import qualify_all, table
from screen_sandbox import available, download_python

DEFAULT_CACHE = Path("/work/cache/screen56")


def status_path(cache: Path) -> Path:
    return cache / "status.jsonl"


def read_status(cache: Path) -> dict[str, dict]:
    """The records screened so far, by spec (the last line of a spec stands)."""
    path = status_path(cache)
    if not path.exists():
        return {}
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["spec"]: r for r in records}


def read_list(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def screened(todo: list[tuple[int, str]], cache: Path, workers: int) -> Iterator[dict]:
    """Records of `todo`'s projects as they finish (in list order)."""
    python = download_python(cache)
    if workers <= 1:
        for index, spec in todo:
            yield {"index": index, **screen(spec, cache, python)}
        return
    with ProcessPoolExecutor(workers) as pool:
        specs = [spec for _, spec in todo]
        screens = pool.map(screen, specs, [cache] * len(specs), [python] * len(specs))
        for (index, _), record in zip(todo, screens, strict=True):
            yield {"index": index, **record}


def run_screen(specs: list[str], start: int, count: int | None, cache: Path, workers: int) -> None:
    """Screen specs[start:start+count] not yet in the status file, appending each record."""
    if not available():
        raise SystemExit("bubblewrap cannot make a sandbox here: suites of downloaded projects are not run")
    cache.mkdir(parents=True, exist_ok=True)
    done = read_status(cache)
    end = len(specs) if count is None else start + count
    todo = [(i, s) for i, s in enumerate(specs[start:end], start) if s not in done]
    print(f"{len(todo)} to screen ({end - start - len(todo)} of {start}:{end} done before)", flush=True)
    with status_path(cache).open("a") as status:
        for record in screened(todo, cache, workers):
            record["at"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
            status.write(json.dumps(record) + "\n")
            status.flush()
            what = record.get("reason") or f"{record['tests']} tests, {sum(record['sites'].values())} sites"
            print(
                f"{record['index']} {record['spec']} {record['verdict']}: {what} ({record['seconds']} s)",
                flush=True,
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["list", "screen", "qualify"])
    parser.add_argument("--out", type=Path, help="list: where to write the candidates")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="list: the shuffle's seed")
    parser.add_argument("--list", type=Path, help="screen, qualify: the candidates, name==version a line")
    parser.add_argument("--from", dest="start", type=int, default=0, help="screen: the first index")
    parser.add_argument("--count", type=int, help="screen: how many (default: to the list's end)")
    parser.add_argument(
        "--cache", type=Path, default=DEFAULT_CACHE, help="sdists, status (not in the repository)"
    )
    parser.add_argument("--workers", type=int, default=1, help="screen: processes")
    parser.add_argument("--want", type=int, default=8, help="qualify: stop after this many qualified")
    parser.add_argument(
        "--hashseeds",
        choices=["25", "100"],
        default="25",
        help="qualify: stable runs per PYTHONHASHSEED 0..3",
    )
    args = parser.parse_args(argv)
    if args.action == "list":
        if args.out is None:
            parser.error("list needs --out")
        if not PYPI_TSV.is_file():
            parser.error(f"{PYPI_TSV}: no such file (the machine's list of PyPI packages)")
        print(write_list(args.out, args.seed))
        return
    if args.list is None:
        parser.error(f"{args.action} needs --list")
    if not args.list.is_file():
        parser.error(f"--list {args.list}: no such file (make one with the list action)")
    specs = read_list(args.list)
    if args.action == "screen":
        run_screen(specs, args.start, args.count, args.cache, args.workers)
        return
    rows = qualify_all(specs, read_status(args.cache), args.cache, args.want, int(args.hashseeds))
    print(table(rows))


if __name__ == "__main__":
    main()
