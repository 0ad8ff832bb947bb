"""python -m exprcalc "2 * x + 1" -D x=4"""

import argparse
import sys

from exprcalc import CalcError, calc


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="exprcalc")
    ap.add_argument("expression")
    ap.add_argument("-D", dest="defs", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args(argv)
    variables = {}
    for item in args.defs:
        name, _, value = item.partition("=")
        variables[name.strip()] = float(value)
    try:
        result = calc(args.expression, **variables)
    except CalcError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(int(result) if float(result).is_integer() else result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
