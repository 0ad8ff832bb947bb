"""Operators for a call that is missing or extra around a value: drop a one-argument wrapper; add a
builtin, or a callable the function or module calls with one argument, around a value that is
returned, assigned, iterated, passed or used as an index, a condition, a bare expression statement
or the receiver of a method call; a builtin that compares around an operand of a comparison (a
`raise <value>` that lost its exception class: raises.py). Part of the additions (additions.for_node
applies them)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.facts import BUILTIN_NAMES
from repofix.repair.nearby import NEAR_PRIOR, near_callees
from repofix.repair.numbers import number_value
from repofix.repair.raises import raises_text
from repofix.repair.scope import Scope
from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.unused import UNUSED_PRIOR

# a callable of the module whose one argument bears the value's name (`def validate(karyotype)`
# around `karyotype`): a call a bug dropped, not a chance fit
NAMED_PRIOR = 0.45
# callables named for one value: a generated module of 3,000 `def fN(x)` made 6,000 candidates of
# that prior on one line of a function reading `x` (the others stay the plain guesses they were)
MAX_NAMED = 4


def wrapper(src: SourceFile, node: ast.Call, scope: Scope) -> Iterator[Mutation]:
    """Drop any one-argument wrapper call (builtin or not), or keep one argument of a two-argument one."""
    if (
        node.keywords
        or any(isinstance(a, ast.Starred) for a in node.args)
        or isinstance(node.func, ast.Attribute)
    ):
        return
    start, end = src.span(node)
    if len(node.args) == 1:
        yield src.mutation(
            "drop-wrapper",
            f"drop call {src.segment(node.func)}()",
            [Edit(start, end, src.segment(node.args[0]))],
            0.35,
        )
    elif len(node.args) == 2 and getattr(node.func, "id", None) in ("max", "min"):
        for arg in node.args:
            yield src.mutation(
                "drop-wrapper",
                f"{src.segment(node)} -> {src.segment(arg)}",
                [Edit(start, end, src.segment(arg))],
                0.35,
            )


def wrap_targets(node: ast.AST) -> list[ast.expr]:
    """Values that a missing wrapper, slice or operand applies to: returned, assigned, iterated,
    passed, or made by a comprehension. Not a raised value: it takes an exception class
    (`raise_value`); `raise int("bad value")` raises a ValueError too, but not the one meant."""
    if isinstance(node, ast.Return) and node.value is not None:
        return _and_elements(node.value)
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        return _and_elements(node.value)
    if isinstance(node, (ast.For, ast.comprehension)):
        return [node.iter]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt]  # `[l for l in lines]` -> `[str(l) for l in lines]`
    if isinstance(node, ast.Call):
        args = [a.value if isinstance(a, ast.Starred) else a for a in node.args]
        return args + [k.value for k in node.keywords if k.arg]
    if isinstance(node, ast.Slice):
        return [b for b in (node.lower, node.upper) if b is not None]  # `xs[:n]` -> `xs[:len(n)]`
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.right, ast.Tuple):
        return list(node.right.elts)  # `"%s in %s" % (name, dirs)` -> `% (repr(name), dirs)`
    if isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC):
        return [node.left, node.right]  # `a + b` -> `a + b[1:]`, `x - int(x)`, `10 ** len(digits)`
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]  # `y if c else x` -> `y if c else abs(x)`
    if isinstance(node, ast.FormattedValue):
        return [node.value]  # `f'"{key}"'` -> `f'"{escape(key)}"'`
    return []


def index_of(node: ast.AST) -> list[ast.expr]:
    """The index a subscript reads or writes with, when it is neither a slice nor a literal: text
    used as a list index lacks its `int()` (`comments[match.group('num')]`, csscompressor's), a
    key written lacks its `len()` (`results[len(report)] = report`, json-checker's, heldout49)."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Load, ast.Store))):
        return []
    literal = isinstance(node.slice, ast.UnaryOp) and isinstance(node.slice.operand, ast.Constant)  # `[-1]`
    return [] if literal or isinstance(node.slice, (ast.Slice, ast.Constant, ast.Tuple)) else [node.slice]


ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)


def _and_elements(value: ast.expr) -> list[ast.expr]:
    """A tuple returned or unpacked, and each of its elements (`a, b = name, name[i + 1:]`); a value
    with a default, and each operand that is not a literal (`return ensure_list(get(key)) or []`)."""
    if isinstance(value, ast.Tuple):
        return [value, *value.elts]
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return [value, *(v for v in value.values if not isinstance(v, ast.Constant | ast.List | ast.Dict))]
    return [value]


def wrap_in(src: SourceFile, value: ast.expr, name: str, prior: float) -> Mutation:
    text = src.segment(value)
    return src.mutation(
        "add-wrapper", f"wrap {text} in {name}()", [Edit(*src.span(value), f"{name}({text})")], prior
    )


def literal_or_text(value: ast.expr) -> bool:
    """A literal, or text for sure (a message built from one, a `__name__`): a builtin around it
    makes a constant the fix would have written as such, or an exception
    (`ValueError(int("entities are disabled"))` raised the ValueError a suite expected, and passed
    xmltodict's and webcolors' suites, wrongly; `int(item.__class__.__name__)` spans')."""
    if isinstance(value, ast.Attribute):
        return value.attr in ("__name__", "__qualname__")
    return isinstance(value, ast.Constant) or raises_text(value)


# the builtins working code calls on a truth value: `int(a == b)` counts it; numpy's `sum(y == c)`,
# `all(x >= 0)` read an array of them (on a plain comparison they raise TypeError, and fail). Of
# 118,569 one-argument calls of a name in the screened projects' code (f50's list below 2,395), none
# calls any other builtin or a class on a comparison, a `not` or an and/or of them, while
# `str(a > b)`, `id(...)`, `ValueError(...)` around one made rivals that held back a right `>` ->
# `>=` three times on heldout37-51 (always true, never meant). Not `print` either: always None.
TRUTH_WRAPPERS = frozenset({"int", "float", "bool", "sum", "all", "any", "len", "max", "min"})


def truth_value(value: ast.expr) -> bool:
    """A value that reads as True or False: a comparison, a `not`, an and/or of such, a bool literal
    (numpy's and pandas' comparisons give arrays of them, which TRUTH_WRAPPERS' `sum`, `all`... read)."""
    if isinstance(value, ast.Compare) or isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return True
    if isinstance(value, ast.BoolOp):
        return all(truth_value(v) for v in value.values)
    return isinstance(value, ast.Constant) and isinstance(value.value, bool)


def misfit_wrapper(value: ast.expr, name: str) -> bool:
    """A wrapper no fix would put around `value`: a builtin around a literal or text (a constant the
    fix would have written as such, or an exception: `literal_or_text`), or around a truth value
    anything but a builtin that reads one (TRUTH_WRAPPERS) or a lower-case callable the module
    defines or imports (`assume(x != 0)`): `str(a > b)` is always true, `ValueError(a > b)` too. A
    fix this gives up: `'same=' + str(a == b)`, which working code does not write either."""
    if literal_or_text(value):
        return name in BUILTIN_NAMES
    if truth_value(value):
        return name in BUILTIN_NAMES and name not in TRUTH_WRAPPERS or name[:1].isupper()
    return False


def add_wrapper(src: SourceFile, value: ast.expr, scope: Scope) -> Iterator[Mutation]:
    """Any wrapper of the scope around a value (not the one it is already a call of); `max(x, 0)`.
    Around a literal, only the module's own callables (`parse_constant("-Infinity")`)."""
    if isinstance(value, ast.Name) and value.id == "NotImplemented":
        return  # a protocol's answer, meant only as it is: `str(NotImplemented)` makes `==` true
    start, end = src.span(value)
    text = src.segment(value)
    near, named = near_callees(src, value), named_for(value, scope)
    for name in dict.fromkeys([*scope.wrappers, *sorted(named)]):
        if isinstance(value, ast.Call) and getattr(value.func, "id", None) == name:
            continue
        if misfit_wrapper(value, name):
            continue
        likely = name in ("abs", "len", "sorted", "list", "int", "max", "min") or name in scope.own
        chance = UNUSED_PRIOR if name in scope.unused or name in named else 0.3 if likely else 0.25
        yield wrap_in(src, value, name, NEAR_PRIOR if name in near else chance)
    for bound in () if literal_or_text(value) or truth_value(value) else ("0",):  # clamping: max(x, 0)
        yield src.mutation(
            "add-wrapper",
            f"{text} -> max({text}, {bound})",
            [Edit(start, end, f"max({text}, {bound})")],
            0.25,
        )


def named_for(value: ast.expr, scope: Scope) -> set[str]:
    """The module's one-argument callables whose argument bears the name of `value` (a name, or an
    attribute's last part: `self.karyotype` too), MAX_NAMED of them at most, by name."""
    name = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
    named = sorted(callee for callee, argument in scope.argument_names.items() if name and argument == name)
    return set(named[:MAX_NAMED])


def range_of(src: SourceFile, node: ast.AST, scope: Scope) -> Iterator[Mutation]:
    """`for _ in newlines` -> `for _ in range(newlines)`: a loop over a name the function uses as a
    number (an index, a bound, a counter, a parameter annotated `int` or defaulting to one), which
    no plain wrapper of the scope makes (`range` is not one: around anything else it is rarely meant)."""
    if isinstance(node, (ast.For, ast.comprehension)) and number_value(node.iter, scope.numbers):
        yield wrap_in(src, node.iter, "range", 0.4)


def unpacked_loop(src: SourceFile, node: ast.AST) -> Iterator[Mutation]:
    """`for i, style in styles` -> `for i, style in enumerate(styles)` or `in styles.items()`: a loop
    that unpacks two names from a plain value, which unpacks neither a sequence nor a mapping as such
    (sqlparams' `enumerate(strip_comments)`). The wrappers a scope has hold neither."""
    if not (
        isinstance(node, (ast.For, ast.comprehension))
        and isinstance(node.target, ast.Tuple)
        and len(node.target.elts) == 2
        and isinstance(node.iter, (ast.Name, ast.Attribute))
    ):
        return
    text = src.segment(node.iter)
    yield wrap_in(src, node.iter, "enumerate", 0.35)
    yield src.mutation(
        "add-wrapper", f"{text} -> {text}.items()", [Edit(*src.span(node.iter), f"{text}.items()")], 0.3
    )


OPERAND_WRAPPERS = ("len", "int", "abs", "str", "type")  # `len(items) > 0`, `int(value) == 3`, `type(a) is B`


def wrap_operand(src: SourceFile, node: ast.Compare, scope: Scope) -> Iterator[Mutation]:
    """A compared value missing its call: `self.kwargs > 0` -> `len(self.kwargs) > 0`, with a builtin
    that compares or one of the function's own one-argument callees."""
    for value in [node.left, *node.comparators]:
        if isinstance(value, (ast.Constant, ast.Starred)):
            continue
        near = near_callees(src, value)
        for name in dict.fromkeys([*scope.own, *OPERAND_WRAPPERS]):
            if not (isinstance(value, ast.Call) and getattr(value.func, "id", None) == name):
                yield wrap_in(src, value, name, NEAR_PRIOR if name in near else 0.25)
