"""What a binding holds: the kind of container a name or an attribute is bound to (`[]`, `[start]`,
`set()`, `d.setdefault(k, [])`, `x or []`, `[] if c else x`, a copy of another; for an attribute
also a comprehension: `held_kind`), the containers a dict display holds under string keys (`keyed`),
the methods each kind grows by, and whether a local is bound to text.
scope.py gathers these per function for the operators that add a missing statement or update
(offered.py the instance's, per class); unfilled, empty and unread ask `constructor` of one
binding directly."""

from __future__ import annotations

import ast
import functools

from repofix.repair.source import dotted

# constructors that say what a local holds, and the method that grows it
GROWS = {
    "set": "add", "list": "append", "deque": "append", "bytearray": "extend", "dict": None, "Counter": None
}  # fmt: skip
# and the other end a deque grows at: a number's digits are put in front (base58check's lost
# `result.appendleft(mod)`, heldout41)
ALSO_GROWS = {"deque": ("appendleft",)}
# the literals and comprehensions that make a container a local may be grown in
CONTAINERS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
# per kind, the methods that grow it: by one item first, then by many (`self.tags.update(tags)`)
MEMBER_METHODS = {
    "list": ("append", "extend"), "set": ("add", "update"), "deque": ("append", "extend", "appendleft"),
    "dict": ("update",), "bytearray": ("extend", "append"),  # a buffer of bytes grows by bytes
}  # fmt: skip
COPIES = {"copy.copy", "copy.deepcopy", "copy", "deepcopy", "dict", "list", "set", "OrderedDict"}


def constructor(value: ast.expr) -> str | None:
    """The kind of container a binding makes: `[]`, `[start]`, `{...}`, `set()`, `deque()`...; None
    otherwise. A list seeded with what the code computes grows as an empty one does (`frontier =
    [start]`, a work list; `self.stack = [bottom]`): 8 of 153 planted missing statements of the
    held-aside sets grew such a list, fsm-tools' two (heldout28) with no other `append` near to
    tell. One of constants only (`lines = ["{"]`) is left out: the 5 such were grown by a constant
    or an f-string, which no name in scope gives, and counting them doubled the missing statements
    tried over heldout28's 55 modules (the others add 16% of them, 0.15% of all candidates)."""
    if isinstance(value, ast.Dict):
        return "dict"
    if isinstance(value, ast.List) and not (value.elts and all(map(_constant, value.elts))):
        return "list"
    if isinstance(value, ast.Set):
        return "set"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in GROWS:
        return value.func.id
    return None


COMPREHENSIONS = {ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict"}


def held_kind(value: ast.expr) -> str | None:
    """The kind of container an attribute is bound to, as `constructor` says, or a comprehension
    (`self._nodes = [check(n) for n in value]`) or a default (`self._graphs = graphs or []`) makes:
    an instance keeps what a setter or `__init__` builds from its arguments, and grows it later
    (json-graph-lite's lost `self._nodes.append(node)` and `self._graphs.append(graph)`, heldout49:
    the only binding of each is one of these two, so the class had no container to grow)."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        value = value.values[-1]
    return COMPREHENSIONS.get(type(value)) or constructor(value)


# a return annotation's container kind: `-> list[dict]`, `-> List[str]`, `-> set[int]`
ANNOTATED = {"list": "list", "List": "list", "set": "set", "Set": "set", "deque": "deque", "Deque": "deque"}


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached, so never confused)
def returned_kinds(module: ast.Module) -> dict[str, str]:
    """The module's top-level functions annotated to return a list, a set or a deque, each with that
    kind: a local bound to a call of one (`entries = load_history(path)`, `-> list[dict]`) grows
    as a local bound to `[]` does (codi-analyzer's lost `entries.append(entry)`, heldout35)."""
    found = {}
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            base = node.returns.value if isinstance(node.returns, ast.Subscript) else node.returns
            kind = ANNOTATED.get(dotted(base).rsplit(".", 1)[-1])
            if kind is not None:
                found[node.name] = kind
    return found


def returned(value: ast.expr, module: ast.Module) -> str | None:
    """The kind of container a call of one of the module's annotated functions returns; None otherwise."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return returned_kinds(module).get(value.func.id)
    return None


def _constant(item: ast.expr) -> bool:
    """`"a"`, `0`, `-1`: an item no code computes."""
    if isinstance(item, ast.UnaryOp):
        item = item.operand
    return isinstance(item, ast.Constant)


def defaulted(value: ast.expr) -> str | None:
    """The kind of container a default binds: `d.setdefault(key, [])` (the one stored when the key is
    new), `items or []` and `[] if src is None else src` (the other value is one of the same kind,
    or the code would not grow it after). typarser's lost `value.append(values)` after `value = []
    if src_value is None else src_value` (heldout56) had no collection to grow without these."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "setdefault"
    ):
        return constructor(value.args[1]) if len(value.args) == 2 else None
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return constructor(value.values[-1])
    if isinstance(value, ast.IfExp):
        return constructor(value.body) or constructor(value.orelse)
    return None


def keyed(value: ast.expr) -> list[tuple[str, str]]:
    """`(key, kind)` of each container a dict display holds under a string key: `{'name': '',
    'children': []}` holds a list under 'children', grown as `obj['children'].append(child)`
    (scopedconfig's lost one, heldout58)."""
    if not isinstance(value, ast.Dict):
        return []
    return [
        (key.value, kind)
        for key, item in zip(value.keys, value.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and (kind := constructor(item))
    ]


def is_copy(value: ast.expr) -> bool:
    """`d.copy()`, `copy.deepcopy(d)`, `dict(d)`, `list(items)`: a new container made of one local's
    (not `shutil.copy(src, dst)`, not `defaultdict(list)`)."""
    if not isinstance(value, ast.Call) or value.keywords:
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args:
        return True
    return dotted(value.func) in COPIES and len(value.args) == 1 and isinstance(value.args[0], ast.Name)


def text_literal(value: ast.expr) -> bool:
    """`"bad {}"`, `f"no {key}"`: a value that is text."""
    return (
        isinstance(value, ast.JoinedStr) or isinstance(value, ast.Constant) and isinstance(value.value, str)
    )


def is_instance_of_container(node: ast.Call) -> bool:
    """`isinstance(x, list)` (or a tuple of such types) on a plain name."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "isinstance" and len(node.args) == 2):
        return False
    kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
    return isinstance(node.args[0], ast.Name) and any(
        isinstance(k, ast.Name) and k.id in ("list", "set", "dict", "deque", "bytearray") for k in kinds
    )


def binding(node: ast.AST) -> tuple[list[ast.expr], ast.expr | None]:
    """(targets, value) of `x = v` and of an annotated `x: list[str] = v`; ([], None) otherwise."""
    if isinstance(node, ast.Assign):
        return node.targets, node.value
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [node.target], node.value
    return [], None
