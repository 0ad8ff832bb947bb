"""confini: read INI files with typed getters and ${var} interpolation."""

from confini.config import Config
from confini.errors import ConfigError, InterpolationError, ParseError

__all__ = ["Config", "ConfigError", "InterpolationError", "ParseError"]
