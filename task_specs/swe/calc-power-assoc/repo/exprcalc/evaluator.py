"""Evaluate a syntax tree against a mapping of variables."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Callable

from exprcalc.errors import EvalError
from exprcalc.nodes import Binary, Call, Name, Node, Num, Unary

FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs, "min": min, "max": max, "sqrt": math.sqrt, "round": round,
}
CONSTANTS = {"pi": math.pi, "e": math.e}


def _binary(op: str, a: float, b: float) -> float:
    if op in "/%" and b == 0:
        raise EvalError("division by zero")
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "%":
        return a % b
    try:
        return a**b
    except OverflowError as exc:
        raise EvalError("result too large") from exc


def evaluate(node: Node, variables: Mapping[str, float] | None = None) -> float:
    env = {**CONSTANTS, **(variables or {})}
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        if node.id not in env:
            raise EvalError(f"unknown variable {node.id!r}")
        return env[node.id]
    if isinstance(node, Unary):
        value = evaluate(node.operand, env)
        return -value if node.op == "-" else value
    if isinstance(node, Binary):
        return _binary(node.op, evaluate(node.left, env), evaluate(node.right, env))
    if isinstance(node, Call):
        if node.func not in FUNCTIONS:
            raise EvalError(f"unknown function {node.func!r}")
        try:
            return FUNCTIONS[node.func](*(evaluate(a, env) for a in node.args))
        except (TypeError, ValueError) as exc:
            raise EvalError(f"{node.func}(): {exc}") from exc
    raise EvalError(f"cannot evaluate {node!r}")
