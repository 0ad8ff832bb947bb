"""A block that does nothing: a `pass` standing alone in a branch or a loop that the failing tests
run. Such a block is a stub, or the one statement it held is missing, and the code around it says
what that statement likely was, so a few candidates built from it go before the hundreds that
add_statement and clone_update make of every collection and every name:

- a branch of an `if`/`elif` chain whose other branches each call `out.append(v)`: the same call
  with `v`, a part of `v` (`{True: cond}` -> `cond`), `None`, or a name this branch's own test
  reads (`elif isinstance(node, Name)` -> `names.add(node)`), or a name spelled after what this
  branch compares where that one's is spelled after its own (following.py: `T_TRUE` under `is
  True` -> `T_FALSE` under `is False`), or a value of a group of constants the module lists
  that no other branch passes (groups.py: `'center'` beside `'left'` and `'right'` of
  `Literal['left', 'right', 'center']`);
- `if x not in seen: pass`: `seen.append(x)`, `seen.add(x)`, the idiom the test sets up;
- `if extra: pass` (or `isinstance(extra, dict)`, `extra is not None`): `kwargs.update(extra)`
  (`extend`, `append`) on a local bound just before or a container the function writes items into;
- any of them: a collection the function grows (or pops from: a work list), grown by a name bound
  on the lines nearest before the block;
- a method whose whole body is `pass`: a container another method of its class makes
  (`self.items = []`, `self.rows[-1]['tags'] = []`) grown by one of its parameters, the container
  whose words the method's name shares first (`append_tag` -> `self.rows[-1]['tags']`).

Inside a block of several statements a `pass` is a leftover, not a place where one is missing:
those are left to the general operators."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from repofix.repair.additions import grown_at
from repofix.repair.containers import constructor
from repofix.repair.facts import BUILTIN_NAMES, module_facts
from repofix.repair.following import FOLLOWED, compared_words, followed
from repofix.repair.groups import GROUPED, PAIRED, left_over, other_of
from repofix.repair.scope import Scope
from repofix.repair.source import SCOPED, Edit, Mutation, SourceFile
from repofix.repair.tested import use_tested

SIBLING = 0.55  # another branch's call, with a value from this one
IDIOM = 0.6  # `if x not in seen: seen.add(x)`
NEAREST = 0.45  # a collection grown by a name bound nearest
NEAREST_LINES = 3  # names bound on the nearest lines before the block grow each collection
STUB = 0.5  # a method's parameter grows a container of its class that its name speaks of (0.4 if not)
GROW_METHODS = ("append", "add")
POPS = ("pop", "popleft")
KINDS = {"list": "append", "set": "add", "deque": "append"}
# how many of each kind a `pass` gets, the likeliest first: a chain of 400 `elif`s that each
# append, or a class of 300 containers, made thousands of candidates for one `pass`
MAX_SIBLING_CALLS = 6  # from the branches nearest this one
MAX_STUB = 6  # containers of the class, those sharing most words with the method's name first


def fill(
    src: SourceFile, node: ast.Pass, parent: ast.AST, func: ast.AST, scope: Scope, module: ast.Module
) -> Iterator[Mutation]:
    """Statements in place of a `pass` that stands alone in a branch, a loop or a method (`func`)."""
    if not _alone(node, parent):
        return
    made: dict[str, float] = {}

    def offer(text: str, prior: float) -> None:
        made[text] = max(prior, made.get(text, 0.0))

    if isinstance(parent, ast.If):
        in_body = parent.body == [node]
        ours = compared_words(parent.test) if in_body else []
        calls = list(_sibling_calls(parent, func, in_body))
        passed: set[object] = {v.value for _, v, _ in calls if isinstance(v, ast.Constant)}
        for call, value, theirs in calls:
            receiver = ast.unparse(call.func)  # not the source: it may span lines inside brackets
            for text, prior in _variants(value, parent.test if in_body else None, call.func):
                offer(f"{receiver}({text})", prior)
            if isinstance(value, ast.Constant) and type(value.value) in (str, int):  # 'center' beside 'left'
                for text in left_over(value.value, passed, module):
                    offer(f"{receiver}({text})", GROUPED)
            if isinstance(value, ast.Constant):  # 0 beside 1, False beside True
                for text in other_of(value.value, passed):
                    offer(f"{receiver}({text})", PAIRED)
            if isinstance(value, ast.Name):  # `T_TRUE` under `is True` -> `T_FALSE` under `is False`
                bound = module_facts(module).names | set(scope.bound)
                for name in followed(value.id, ours, compared_words(theirs), bound):
                    offer(f"{receiver}({name})", FOLLOWED)
        for text in _idiom(parent.test, in_body, scope):
            offer(text, IDIOM)
        if in_body:
            for text in use_tested(parent, func, scope):
                offer(text, NEAREST)
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for text, prior in _stub(parent, module):
            offer(text, prior)
    else:
        # the collections bound nearest, as add_statement's: a dict display of 2,000 lists made 6,000
        # candidates for one `pass`
        grown = dict.fromkeys([*grown_at(scope, node), *((c, "append") for c in _popped(func))])
        for name in _nearest_names(scope, node):
            for collection, method in grown:
                if collection != name:
                    offer(f"{collection}.{method}({name})", NEAREST)
    start, end = src.span(node)
    for text, prior in made.items():
        yield src.mutation(
            "fill-empty",
            f"add '{text}' in place of 'pass' (line {node.lineno})",
            [Edit(start, end, text)],
            prior,
        )


def _alone(node: ast.Pass, parent: ast.AST) -> bool:
    """`node` is all a branch's or loop's body (or `else`) holds, or all a function's besides its
    docstring; not an `except` handler's (`except KeyError: pass` means to do nothing)."""
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        body = parent.body[1:] if len(parent.body) == 2 and _docstring(parent.body[0]) else parent.body
        return body == [node]
    if not isinstance(parent, (ast.If, ast.For, ast.While)):
        return False
    return parent.body == [node] or parent.orelse == [node]


def _docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


@functools.lru_cache(maxsize=16)  # keyed by the function node itself (held while cached)
def _elifs(func: ast.AST) -> dict[int, ast.If]:
    """Per `elif` branch of `func` (by id), the branch above it: walked once per function, not once
    per `pass`."""
    return {id(n.orelse[0]): n for n in ast.walk(func) if isinstance(n, ast.If) and len(n.orelse) == 1}


def _chain(top: ast.If, func: ast.AST) -> list[ast.If]:
    """The `if`/`elif` chain `top` belongs to, first branch first."""
    above = _elifs(func)
    first = top
    while id(first) in above and isinstance(above[id(first)].orelse[0], ast.If):
        first = above[id(first)]
    chain = [first]
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
        chain.append(chain[-1].orelse[0])
    return chain


def _sibling_calls(
    branch: ast.If, func: ast.AST, in_body: bool
) -> Iterator[tuple[ast.Call, ast.expr, ast.expr | None]]:
    """`(call, its one argument, the test of its branch)` of each `receiver.method(value)`
    statement in the chain's other branches (their own statements, not nested ones); the final
    `else`'s test is None."""
    chain = _chain(branch, func)
    at = next(i for i, b in enumerate(chain) if b is branch)
    blocks: list[tuple[int, list[ast.stmt], ast.expr | None]] = [
        (abs(i - at), b.body, b.test) for i, b in enumerate(chain) if not (in_body and b is branch)
    ]
    last = chain[-1].orelse
    if last and not isinstance(last[0], ast.If) and not (not in_body and chain[-1] is branch):
        blocks.append((len(chain) - at, last, None))
    made = 0
    for _, block, test in sorted(blocks, key=lambda b: b[0]):  # the nearest branches first
        for stmt in block:
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and len(call.args) == 1
                and not call.keywords
                and not isinstance(call.args[0], ast.Starred)
            ):
                yield call, call.args[0], test
                made += 1
                if made >= MAX_SIBLING_CALLS:
                    return


def _variants(value: ast.expr, test: ast.expr | None, receiver: ast.expr) -> Iterator[tuple[str, float]]:
    """What this branch may pass where a sibling passes `value`: the names its own test reads
    first (not a callee, a builtin, a class nor the receiver's own: `out.append(len)`,
    `seen.add(seen)`), then `value`'s parts (none bound inside it: a lambda's or a
    comprehension's), `value` itself and `None`."""
    own = {n.id for n in ast.walk(receiver) if isinstance(n, ast.Name)}
    if test is not None:
        called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
        for name in dict.fromkeys(
            n.id for n in ast.walk(test) if isinstance(n, ast.Name) and id(n) not in called
        ):
            if name not in BUILTIN_NAMES and name not in own and not name[:1].isupper():
                yield name, SIBLING
    if not any(isinstance(n, SCOPED) for n in ast.walk(value)):
        callees = {id(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)}
        for part in ast.walk(value):
            if (
                part is not value
                and id(part) not in callees
                and isinstance(part, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
            ):
                yield ast.unparse(part), SIBLING - 0.05
    yield ast.unparse(value), SIBLING - 0.1  # unparsed, a moved `(yield x)` keeps its parentheses
    yield "None", SIBLING - 0.1


def _idiom(test: ast.expr, in_body: bool, scope: Scope) -> Iterator[str]:
    """`if x not in seen:` (or the `else` of `if x in seen:`), also as a clause of an `and` (`if code
    and code not in result:`, localbiz-page, heldout39): `seen` grown by `x`, with the method the
    function grows it by first."""
    if in_body and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for clause in test.values:
            yield from _idiom(clause, in_body, scope)
        return
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return
    wanted = ast.NotIn if in_body else ast.In
    if not isinstance(test.ops[0], wanted):
        return
    if not isinstance(test.comparators[0], (ast.Name, ast.Attribute, ast.Subscript)):
        return  # `x not in a | b`: nothing to grow
    item, collection = ast.unparse(test.left), ast.unparse(test.comparators[0])
    known = [m for c, m in scope.grow if c == collection] + [m for c, m in scope.members if c == collection]
    for method in dict.fromkeys([*known, *GROW_METHODS]):
        yield f"{collection}.{method}({item})"


def _nearest_names(scope: Scope, node: ast.Pass) -> list[str]:
    """The names first bound on the NEAREST_LINES lines nearest before `node` (a loop's targets,
    the last assignments)."""
    before = [n for n in scope.names if scope.bound.get(n, node.lineno + 1) <= node.lineno]
    lines = sorted({scope.bound[n] for n in before}, reverse=True)[:NEAREST_LINES]
    return [n for n in before if scope.bound[n] in lines]


def _popped(func: ast.AST) -> list[str]:
    """Names the function pops from as a list (`stack.pop()`, `queue.popleft()`, `todo.pop(0)`):
    a work list, grown by what is still to do; not a dict's `kwargs.pop('opts', None)`."""
    return [
        n.func.value.id
        for n in ast.walk(func)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in POPS
        and isinstance(n.func.value, ast.Name)
        and not n.keywords
        and (
            not n.args
            or len(n.args) == 1
            and isinstance(n.args[0], ast.Constant)
            and type(n.args[0].value) is int
        )
    ]


def _stub(method: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> Iterator[tuple[str, float]]:
    """A method that does nothing: each container another method of its class makes on its instance
    (`self.x = []`, `self.rows[-1]['tags'] = set()`), grown by each of its parameters."""
    owner = next((c for c in ast.walk(module) if isinstance(c, ast.ClassDef) and method in c.body), None)
    params = [a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]]
    if owner is None or len(params) < 2 or _unbound(method):
        return
    me, rest = params[0], params[1:]
    words = {w for w in method.name.lower().split("_") if len(w) >= 4}
    found: dict[str, str] = {}  # receiver -> the method its kind grows by
    for other in owner.body:
        if (
            not isinstance(other, (ast.FunctionDef, ast.AsyncFunctionDef))
            or other is method
            or _unbound(other)
        ):
            continue
        first = [a.arg for a in other.args.args[:1]]
        for node in ast.walk(other):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            # a list seeded with constants counts here (`self.path = ['$root']` for a stub `add_to_path`,
            # py-schema, heldout59): a stub offers a few candidates, not one per name in scope
            kind = "list" if isinstance(node.value, ast.List) else constructor(node.value)
            target = node.targets[0]
            if kind not in KINDS or not isinstance(target, (ast.Attribute, ast.Subscript)):
                continue
            root: ast.expr = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if not (isinstance(root, ast.Name) and first == [root.id]):
                continue
            receiver = me + ast.unparse(target)[len(root.id) :]
            found.setdefault(receiver, KINDS[kind])
    shared = {r: sum(w in r.lower() for w in words) for r in found}
    for receiver in sorted(found, key=lambda r: -shared[r])[:MAX_STUB]:
        for param in rest:
            yield f"{receiver}.{found[receiver]}({param})", STUB if shared[receiver] else STUB - 0.1


def _unbound(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A static or class method: its first parameter is no instance."""
    return any(
        isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in method.decorator_list
    )
