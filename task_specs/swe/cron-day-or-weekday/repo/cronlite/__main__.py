"""python -m cronlite "*/15 9-17 * * MON-FRI" [-n 5] [--from 2024-01-01T00:00]"""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from cronlite.expression import CronSyntaxError
from cronlite.schedule import upcoming


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cronlite")
    parser.add_argument("expression")
    parser.add_argument("-n", type=int, default=5, help="how many run times to show")
    parser.add_argument("--from", dest="start", type=dt.datetime.fromisoformat, default=None)
    args = parser.parse_args(argv)
    start = args.start or dt.datetime.now()
    try:
        for moment in upcoming(args.expression, start, args.n):
            print(moment.strftime("%Y-%m-%d %H:%M %a"))
    except (CronSyntaxError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
