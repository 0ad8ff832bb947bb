"""python -m mdlite [FILE]  (reads stdin without FILE)"""

import argparse
import sys

from mdlite.render import to_html


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="mdlite")
    parser.add_argument("file", nargs="?", type=argparse.FileType("r", encoding="utf-8"), default=sys.stdin)
    args = parser.parse_args(argv)
    print(to_html(args.file.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
