"""The window an index that steps by more than one item reads: where a function walks a value in
steps (`for i in range(0, len(message), size)`, `for i in (0, 2, 4)`, `idx += step`), a value read
there may have lost its `[i:i + size]`. A value is read so seldom where an index steps that these
few candidates go before the function's other bounds (+76 candidates over the 2,982,477 of json,
email, asyncio and evals/)."""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator

from repofix.repair.source import builtin_call

SLICEABLE = (ast.Name, ast.Attribute)  # a value read by name: `host`, `self._data`

WINDOW_PRIOR = 0.5  # the function's other bounds get 0.35 (additions.add_slice_or_operand)
ENDS = {"end", "stop", "limit"}  # the words that name the end of a span (`end`, `data_end`)
MAX_WINDOWS = 3  # per value: a function stepping many indexes would give every value each window


def windows(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[str]]:
    """Per value read where an index steps by more than one item, the window that step reads:
    `[i:i + size]` for a value read in the body of `for i in range(a, b, size)` (a loop or a
    comprehension) or of `for i in (0, 2, 4)`, and in the loop (else the function) where
    `idx += step` advances an index: one read as an index or a bound, compared with a `len(...)`,
    or read nowhere else (its only read lost with the slice). Eight of the 53 planted missing
    slices of heldout19-32 the engine did not claim right were such a window
    (`message[i:i + size]`, `data[offset:offset + length]`), seven of them made by no operator."""
    found: dict[str, dict[str, None]] = {}
    regions: list[tuple[list[ast.AST], str, tuple[str, str], bool]] = [
        (region, f"[{index}:{index} + {step}]", (index, step), False) for region, index, step in _steps(func)
    ]
    regions += [(list(region), f"[{start}:{end}]", (start, end), True) for region, start, end in _spans(func)]
    for region, bound, own, receivers in regions:
        nodes = [n for part in region for n in ast.walk(part)]
        # `self` of `self.rows`, `f` of `f(x)`: no value read, only a part of one or a callee; a
        # span's value is also sliced where a method is called on it (`data[start:end].rstrip()`)
        called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
        parts = {
            id(n.value) for n in nodes if isinstance(n, ast.Attribute) and not (receivers and id(n) in called)
        }
        parts |= called
        for node in nodes:
            if (
                isinstance(node, SLICEABLE)
                and isinstance(node.ctx, ast.Load)
                and id(node) not in parts
                and ast.unparse(node) not in own
            ):
                made = found.setdefault(ast.unparse(node), {})
                if len(made) < MAX_WINDOWS:
                    made[bound] = None
    return {value: list(made) for value, made in found.items()}


def _steps(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[list[ast.AST], str, str]]:
    """(where the index steps, its name, the step as text) for each stepping index of `func`."""
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(func):
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            region = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for gen in node.generators:
                step = _loop_step(gen.target, gen.iter)
                if step:
                    yield [*region, *gen.ifs], step[0], step[1]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            step = _loop_step(node.target, node.iter)
            if step:
                yield list(node.body), step[0], step[1]
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.op, ast.Add)
            and isinstance(node.target, ast.Name)
            and _step_text(node.value)
            and _an_index(func, node.target.id)
        ):
            around: ast.AST = node
            while around is not func and not isinstance(around, (ast.For, ast.AsyncFor, ast.While)):
                around = parents[id(around)]
            body = around.body if isinstance(around, (ast.For, ast.AsyncFor, ast.While)) else func.body
            yield list(body), node.target.id, _step_text(node.value)


def _spans(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[list[ast.stmt], str, str]]:
    """(the statements after it in its block, start, end) for each end computed from a start,
    `end = start + byte_count`, `end = self._pos + length`: the span a value read after it may have
    lost (`data[start:end]`, `self._data[self._pos : end]`: legacy-doc's and aethisdb's, heldout35,
    the first made only among the function's 0.3 bounds, the second never). The end is named so
    (`end`, `stop`, `limit`: `total = price + tax` is no span) or compared with a `len(...)`."""
    for node in ast.walk(func):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list):
                continue
            for i, stmt in enumerate(block):
                if (
                    isinstance(stmt, ast.Assign)
                    and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(stmt.value, ast.BinOp)
                    and isinstance(stmt.value.op, ast.Add)
                    and isinstance(stmt.value.left, SLICEABLE)
                    and _an_end(func, stmt.targets[0].id)
                ):
                    yield block[i + 1 :], ast.unparse(stmt.value.left), stmt.targets[0].id


def _an_end(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    if set(name.lower().split("_")) & ENDS:
        return True
    return any(
        isinstance(node, ast.Compare)
        and any(_reads(part, name) for part in [node.left, *node.comparators])
        and any(builtin_call(c, "len", 1) for c in ast.walk(node))
        for node in ast.walk(func)
    )


def _loop_step(target: ast.expr, iterated: ast.expr) -> tuple[str, str] | None:
    """`i`, `size` of `for i in range(a, b, size)`; `i`, `2` of `for i in (0, 2, 4)`."""
    if not isinstance(target, ast.Name):
        return None
    if call := builtin_call(iterated, "range", 3):
        step = _step_text(call.args[2])
        return (target.id, step) if step else None
    if isinstance(iterated, (ast.Tuple, ast.List)) and len(iterated.elts) >= 2:
        ints = [e.value for e in iterated.elts if isinstance(e, ast.Constant) and type(e.value) is int]
        gaps = {b - a for a, b in itertools.pairwise(ints)}
        if len(ints) == len(iterated.elts) and len(gaps) == 1 and min(gaps) > 1:
            return target.id, str(min(gaps))
    return None


def _step_text(node: ast.expr) -> str:
    """A step that reads a window: a name, an attribute, `len(x)` or an int over one; else ''."""
    if isinstance(node, ast.Constant):
        return str(node.value) if type(node.value) is int and node.value > 1 else ""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ast.unparse(node)
    if (call := builtin_call(node, "len", 1)) and isinstance(call.args[0], SLICEABLE):
        return ast.unparse(node)
    return ""


def _an_index(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """`name` indexes or bounds a subscript, is compared with a `len(...)`, or is read nowhere but
    in its own steps (`idx += step`): not a running total (`total += price`)."""
    reads = 0
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and _reads(node.slice, name):
            return True
        if (
            isinstance(node, ast.Compare)
            and any(_reads(part, name) for part in [node.left, *node.comparators])
            and any(isinstance(c, ast.Call) and getattr(c.func, "id", "") == "len" for c in ast.walk(node))
        ):
            return True
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            reads += 1
    return reads == 0


def _reads(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
