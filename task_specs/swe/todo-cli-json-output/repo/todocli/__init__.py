"""todocli: a to-do list on the command line."""

__version__ = "0.8.0"
