class ConfigError(Exception):
    """Base class for confini errors."""


class ParseError(ConfigError):
    def __init__(self, message: str, lineno: int, source: str = "<string>") -> None:
        super().__init__(f"{source}:{lineno}: {message}")
        self.lineno = lineno


class InterpolationError(ConfigError):
    pass
