"""repofix: an autonomous, test-driven coding agent for repositories."""

__version__ = "0.1.0"
