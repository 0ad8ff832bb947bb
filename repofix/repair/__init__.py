"""The built-in repair engine: fault localization, AST mutations and test-guided search.

Offline, no LLM: `repair(sandbox, failing_tests, passing_tests, budget)` returns a RepairResult
with a unified diff when some small mutation makes the failing tests pass and breaks nothing."""

from repofix.repair.checker import RepairError
from repofix.repair.engine import RepairResult, repair
from repofix.repair.limits import Budget

__all__ = ["Budget", "RepairError", "RepairResult", "repair"]
