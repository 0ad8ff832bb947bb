"""python -m bytefmt 1536 [--binary]   |   python -m bytefmt --parse "1.5 KiB" """

from __future__ import annotations

import argparse
import sys

from bytefmt.format import format_size
from bytefmt.parse import parse_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bytefmt")
    parser.add_argument("value")
    parser.add_argument("--binary", action="store_true", help="use KiB, MiB, ...")
    parser.add_argument("--parse", action="store_true", help="turn a size into bytes")
    parser.add_argument("-p", "--precision", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        if args.parse:
            print(parse_size(args.value))
        else:
            print(format_size(parse_size(args.value), args.binary, args.precision))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
