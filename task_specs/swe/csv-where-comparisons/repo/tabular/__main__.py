"""python -m tabular FILE [--where COL=VALUE]... [--select a,b] [--sort COL [--desc]] [--format F]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tabular.output import FORMATS
from tabular.query import Query
from tabular.reader import TableError, read_csv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tabular")
    parser.add_argument("file", type=Path)
    parser.add_argument("-w", "--where", action="append", default=[])
    parser.add_argument("-s", "--select", default="")
    parser.add_argument("--sort")
    parser.add_argument("--desc", action="store_true")
    parser.add_argument("-n", "--limit", type=int)
    parser.add_argument("-d", "--delimiter", default=",")
    parser.add_argument("-f", "--format", choices=sorted(FORMATS), default="table")
    args = parser.parse_args(argv)
    try:
        table = read_csv(args.file.read_text(encoding="utf-8"), args.delimiter)
        query = Query(args.where, [c.strip() for c in args.select.split(",") if c.strip()],
                      args.sort, args.desc, args.limit)
        columns, rows = query.run(table)
    except (OSError, TableError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(FORMATS[args.format](columns, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
