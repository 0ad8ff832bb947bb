"""python -m unitconv "10 km" mi      or      python -m unitconv "10 km to mi" """

from __future__ import annotations

import argparse
import sys

from unitconv.convert import IncompatibleUnits
from unitconv.quantity import parse_quantity
from unitconv.units import UnknownUnit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="unitconv")
    parser.add_argument("words", nargs="+", help="'10 km to mi', or a quantity then a unit")
    parser.add_argument("-d", "--digits", type=int, default=4)
    args = parser.parse_args(argv)
    text = " ".join(args.words)
    source, sep, target = text.rpartition(" to ")
    if not sep:
        source, _, target = text.rpartition(" ")
    try:
        result = parse_quantity(source).to(target.strip())
    except (ValueError, UnknownUnit, IncompatibleUnits) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.format(args.digits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
