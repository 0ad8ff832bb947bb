class CalcError(Exception):
    """Base class for everything exprcalc raises."""


class ParseError(CalcError):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} at position {position}")
        self.position = position


class EvalError(CalcError):
    pass
