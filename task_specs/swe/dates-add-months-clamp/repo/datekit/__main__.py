"""python -m datekit 2024-01-15 +1m -2b"""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from datekit.offsets import apply_offset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="datekit", description="Apply offsets to a date.")
    parser.add_argument("date", help="ISO date, or 'today'")
    parser.add_argument("offsets", nargs="*", help="offsets applied left to right, e.g. +1m -2b")
    args = parser.parse_args(argv)
    try:
        day = dt.date.today() if args.date == "today" else dt.date.fromisoformat(args.date)
        for offset in args.offsets:
            day = apply_offset(day, offset)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(day.isoformat())
    return 0


if __name__ == "__main__":
    sys.exit(main())
