"""python -m wraptext [-w WIDTH] [--justify] [FILE]"""

from __future__ import annotations

import argparse
import sys

from wraptext.justify import justify
from wraptext.tokens import split_paragraphs
from wraptext.wrap import fill


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wraptext")
    parser.add_argument("file", nargs="?", type=argparse.FileType("r"), default=sys.stdin)
    parser.add_argument("-w", "--width", type=int, default=70)
    parser.add_argument("--justify", action="store_true")
    args = parser.parse_args(argv)
    text = args.file.read()
    if args.justify:
        print("\n\n".join("\n".join(justify(p, args.width)) for p in split_paragraphs(text)))
    else:
        print(fill(text, args.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
