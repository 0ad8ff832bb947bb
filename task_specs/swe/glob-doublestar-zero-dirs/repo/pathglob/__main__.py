"""python -m pathglob PATTERN [ROOT] [--hidden]"""

from __future__ import annotations

import argparse
import sys

from pathglob.translate import PatternError
from pathglob.walk import glob


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pathglob")
    parser.add_argument("pattern")
    parser.add_argument("root", nargs="?", default=".")
    parser.add_argument("--hidden", action="store_true", help="include dot files")
    args = parser.parse_args(argv)
    try:
        paths = glob(args.root, args.pattern, include_hidden=args.hidden)
    except PatternError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0 if paths else 1


if __name__ == "__main__":
    sys.exit(main())
