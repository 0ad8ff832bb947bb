"""The syntax tree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Node, ...]


Node = Union[Num, Name, Unary, Binary, Call]


def to_sexpr(node: Node) -> str:
    """Fully parenthesised form, e.g. '(+ 1 (* 2 3))'; used for debugging and tests."""
    if isinstance(node, Num):
        return repr(node.value).removesuffix(".0")
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Unary):
        return f"({node.op} {to_sexpr(node.operand)})"
    if isinstance(node, Binary):
        return f"({node.op} {to_sexpr(node.left)} {to_sexpr(node.right)})"
    return f"({node.func} {' '.join(to_sexpr(a) for a in node.args)})".replace(" )", ")")
