"""exprcalc: parse and evaluate arithmetic expressions without eval()."""

from exprcalc.errors import CalcError, EvalError, ParseError
from exprcalc.evaluator import evaluate
from exprcalc.parser import parse


def calc(text: str, **variables: float) -> float:
    return evaluate(parse(text), variables)


__all__ = ["CalcError", "EvalError", "ParseError", "calc", "evaluate", "parse"]
