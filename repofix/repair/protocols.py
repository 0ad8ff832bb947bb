"""A special method that returns a value of the wrong kind: `__iter__` returning `self.stack`, a
list, where Python wants an iterator (`iter() returned non-iterator of type 'list'`), `__len__`
returning the items, not their count. The call its protocol demands was left out; the candidate
puts it back around the returned value (`return iter(self.stack)`). No wrapper of the scope makes
it when the module never calls that builtin elsewhere.

The same for a function whose annotation declares a container it does not return: `-> tuple[int,
int, int, int]` returning `self.rgba[i:i + 4]`, a slice of a bytearray (csp-format's pixel,
heldout37), gets `tuple(...)` around it; only a value that is no such container for sure (a
generator, `map`, `zip`, `reversed`, a dict's view) or may be another kind of sequence (a slice).
And a function declared to return a `float`, an `int`, a `str` or a `bool` that returns a name, an
attribute, an item or another call as it is gets the conversion: morphify's `_decimal_convert(val:
Any) -> float` returned `val` for `float(val)` (heldout45), and no scope offers `float()` in a
module that calls it nowhere else."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from repofix.repair.raises import raises_text
from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.wrappers import literal_or_text, wrap_in

# the builtin whose result each special method must return
PROTOCOL = {
    "__iter__": "iter",
    "__reversed__": "reversed",
    "__len__": "len",
    "__length_hint__": "len",
    "__str__": "str",
    "__repr__": "repr",
    "__bytes__": "bytes",
    "__int__": "int",
    "__index__": "int",
    "__float__": "float",
    "__bool__": "bool",
    "__hash__": "hash",
}
# as likely as a callable named for the value (wrappers.NAMED_PRIOR): the one call a bug dropped here
PRIOR = 0.45
SLICED = 0.35  # a slice may be of the declared kind already (a list's of a list)
# the constructor of each container a return annotation may declare
DECLARED = {
    "tuple": "tuple",
    "Tuple": "tuple",
    "list": "list",
    "List": "list",
    "set": "set",
    "Set": "set",
    "frozenset": "frozenset",
    "FrozenSet": "frozenset",
    "bytes": "bytes",
}
# the scalars a return annotation may declare, each converted by the builtin of its name
SCALARS = ("float", "int", "str", "bool")
SCALAR_PRIOR = 0.3  # the value may be of the kind already (an int local of an int function)
# calls that give that scalar for sure: `int(len(x))` is `len(x)`
GIVES = {
    "int": ("len", "ord", "hash", "__len__", "__index__", "count", "index", "find", "rfind", "bit_length")
}
# values that are no container of any declared kind: lazy iterators and a dict's views
LAZY = ("map", "filter", "zip", "reversed", "enumerate", "iter")
VIEWS = ("keys", "values", "items")


def protocol_return(src: SourceFile, node: ast.AST, func: ast.AST | None) -> Iterator[Mutation]:
    """`return value` in a special method (a method: its first parameter is the instance) as
    `return builtin(value)`; not a value that is that call already, `self` from `__iter__` (an
    iterator is its own), a literal, text from `__str__` or `__repr__`, or another object's call of
    the same method (`return self.inner.__len__()`), which may well be of the right kind."""
    if not (isinstance(node, ast.Return) and isinstance(func, ast.FunctionDef) and node.value is not None):
        return
    builtin = PROTOCOL.get(func.name)
    if builtin is None or not func.args.args:
        return
    value = node.value
    if isinstance(value, ast.Constant) or builtin in ("str", "repr") and raises_text(value):
        return  # text for sure (`'<{}>'.format(...)`, `''.join(...)`): `repr()` of it quotes it again
    if isinstance(value, ast.Call):  # `iter(...)` already, or `self.inner.__iter__()`
        callee = getattr(value.func, "id", None) or getattr(value.func, "attr", "")
        if callee in (builtin, func.name):
            return
    if (
        isinstance(value, ast.Name)
        and value.id == func.args.args[0].arg
        and builtin in ("iter", "str", "repr")
    ):
        return  # `return self`: an iterator's own; `str(self)` from `__str__` recurses forever
    yield wrap_in(src, value, builtin, PRIOR)


def declared_return(src: SourceFile, node: ast.AST, func: ast.AST | None) -> Iterator[Mutation]:
    """`return value` as `return T(value)` where the function declares it returns a `T` (a tuple,
    list, set, frozenset or bytes) and `value` is a lazy iterator, a dict's view or a slice; or a
    `float`, `int`, `str` or `bool` and `value` is returned as it is (`_converted`)."""
    if not (
        isinstance(node, ast.Return)
        and isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.value is not None
        and func.returns is not None
    ):
        return
    declared = func.returns.value if isinstance(func.returns, ast.Subscript) else func.returns
    name = declared.attr if isinstance(declared, ast.Attribute) else getattr(declared, "id", "")
    value = node.value
    if name in SCALARS:
        yield from _converted(src, value, name)
        return
    builtin = DECLARED.get(name)
    if builtin is None:
        return
    if isinstance(value, ast.GeneratorExp):
        yield wrap_in(src, value, builtin, PRIOR)
    elif isinstance(value, ast.Call):
        callee = value.func
        lazy = isinstance(callee, ast.Name) and callee.id in LAZY
        view = isinstance(callee, ast.Attribute) and callee.attr in VIEWS and not value.args
        if lazy or view:
            yield wrap_in(src, value, builtin, PRIOR)
    elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        yield wrap_in(src, value, builtin, SLICED)


def _converted(src: SourceFile, value: ast.expr, builtin: str) -> Iterator[Mutation]:
    """`builtin(value)` for a value returned as it is that may be of another kind: a name, an
    attribute, an item or, for a number, a call of anything but `builtin` itself; not a literal,
    arithmetic, a comparison or text for sure, whose kind the code says. A call that should give
    text or a truth value mostly does (`", ".join(...)`, `isinstance(...)`): `str()` or `bool()`
    around it would only be one more patch that behaves alike."""
    if isinstance(value, ast.Call) and (
        builtin in ("str", "bool")
        or (isinstance(value.func, ast.Name) and value.func.id in (builtin, *GIVES.get(builtin, ())))
        or (isinstance(value.func, ast.Attribute) and value.func.attr in GIVES.get(builtin, ()))
    ):
        return
    if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not literal_or_text(value):
        text = src.segment(value)
        edit = Edit(*src.span(value), f"{builtin}({text})")
        yield src.mutation("declared-conversion", f"wrap {text} in {builtin}()", [edit], SCALAR_PRIOR)
