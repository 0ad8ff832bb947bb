"""Command line: `python -m semverkit sort|max|check|bump ...`."""

from __future__ import annotations

import argparse
import sys

from semverkit.compare import max_version, sort_versions
from semverkit.ranges import satisfies
from semverkit.version import InvalidVersion, parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="semverkit")
    sub = parser.add_subparsers(dest="command", required=True)
    p_sort = sub.add_parser("sort", help="print versions in ascending precedence")
    p_sort.add_argument("versions", nargs="+")
    p_sort.add_argument("-r", "--reverse", action="store_true")
    p_max = sub.add_parser("max", help="print the highest version")
    p_max.add_argument("versions", nargs="+")
    p_max.add_argument("--pre", action="store_true", help="consider pre-releases")
    p_check = sub.add_parser("check", help="exit 0 if VERSION satisfies RANGE")
    p_check.add_argument("version")
    p_check.add_argument("range")
    p_bump = sub.add_parser("bump", help="print the next version")
    p_bump.add_argument("part", choices=["major", "minor", "patch"])
    p_bump.add_argument("version")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "sort":
            for v in sort_versions(args.versions, reverse=args.reverse):
                print(v)
        elif args.command == "max":
            best = max_version(args.versions, include_prerelease=args.pre)
            if best is None:
                print("no matching version", file=sys.stderr)
                return 1
            print(best)
        elif args.command == "check":
            return 0 if satisfies(args.version, args.range) else 1
        elif args.command == "bump":
            print(parse(args.version).bump(args.part))
    except InvalidVersion as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
