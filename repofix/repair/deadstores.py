"""Values a function computes and never reads: `_m1 = int(pf.match(s).group(1))` in one branch, with
no read of `_m1` before the branch ends or `_m1` is bound again, though other branches read
theirs. What a lost read in one branch leaves behind (ifilters' `_dnf.append((-inf, _m1))`,
heldout57), where unread.py sees nothing: the name is read elsewhere in the function.

A backward liveness walk over the function's own statements, conservative where Python's
control flow is loose: everything a `try` body binds may be read by its handlers, a loop's body
runs again, a name a nested function or class reads, or one declared global or nonlocal, is
never dead. Only a computed value counts (a call, an operator, a subscript, an attribute, a
comparison, a conditional): `x = None` before an `if` whose branches bind `x` is a default, dead by
design in working code."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

from repofix.repair.source import NESTED, READS_ALL, end_of, own_scope, start_of

COMPUTED = (ast.Call, ast.BinOp, ast.Subscript, ast.Attribute, ast.BoolOp, ast.Compare, ast.IfExp)
LOOPS = (ast.For, ast.AsyncFor, ast.While)
# a loop's liveness settles in two passes (its body's reads reach its head, then the statements
# before them); one more for a loop inside it, whose head the first pass saw too early
PASSES = 3
# what runs later or in a scope of its own: the names read there are read when it runs
LAZY = (*NESTED, *((ast.TypeAlias,) if hasattr(ast, "TypeAlias") else ()))


@dataclass(frozen=True)
class Dead:
    name: str
    value: ast.expr  # what it is bound to
    bound_at: tuple[int, int]  # where the assignment ends
    since: tuple[int, int]  # where it starts
    until: tuple[int, int]  # where the last statement of its block that sees it ends


@dataclass
class _Context:
    broken: frozenset[str] = frozenset()  # live after the innermost loop (a `break`)
    continued: frozenset[str] = frozenset()  # live at its head (a `continue`)
    raised: frozenset[str] = frozenset()  # live in the handlers and `finally` an exception reaches


@dataclass
class _Walk:
    """The dead stores found, by assignment, with the block that holds each and its place there; a
    later visit (a loop's last pass) decides."""

    skipped: set[str]
    dead: dict[int, tuple[ast.Assign, str, list[ast.stmt], int]] = field(default_factory=dict)

    def block(self, body: list[ast.stmt], live: frozenset[str], ctx: _Context) -> frozenset[str]:
        for place in reversed(range(len(body))):
            live = self.stmt(body[place], live | ctx.raised, ctx, (body, place)) | ctx.raised
        return live

    def stmt(
        self, s: ast.stmt, live: frozenset[str], ctx: _Context, where: tuple[list[ast.stmt], int]
    ) -> frozenset[str]:
        if isinstance(s, ast.Assign):
            stored = _stored(s.targets)
            target = s.targets[0]
            if (
                len(s.targets) == 1
                and isinstance(target, ast.Name)
                and isinstance(s.value, COMPUTED)
                and target.id not in live | self.skipped
            ):
                self.dead[id(s)] = (s, target.id, *where)
            else:
                self.dead.pop(id(s), None)
            return (live - stored) | _reads(s)
        if isinstance(s, ast.AugAssign):  # `x += 1` reads `x`, stored as its target
            return live | _reads(s) | _stored([s.target])
        if isinstance(s, (ast.Return, ast.Raise)):
            return ctx.raised | _reads(s)
        if isinstance(s, ast.Break):
            return ctx.broken
        if isinstance(s, ast.Continue):
            return ctx.continued
        if isinstance(s, ast.If):
            return _reads(s.test) | self.block(s.body, live, ctx) | self.block(s.orelse, live, ctx)
        if isinstance(s, LOOPS):
            return self.loop(s, live, ctx)
        if isinstance(s, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            return self.try_(s, live, ctx)  # type: ignore[arg-type]
        if isinstance(s, (ast.With, ast.AsyncWith)):  # its manager may swallow what the body raises
            inner = _Context(ctx.broken, ctx.continued, ctx.raised | live)
            return _reads_of(s.items) | self.block(s.body, live, inner) | live
        if isinstance(s, ast.Match):  # a pattern reads what it compares to (`case Color.RED:`)
            cases = [self.block(c.body, live, ctx) | _reads_of([c.guard, c.pattern]) for c in s.cases]
            return _reads(s.subject) | live | frozenset().union(*cases)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return live | _reads_of([*s.decorator_list])
        return live | _reads(s)  # an expression statement, an assert, a `del`, ...

    def loop(
        self, s: ast.For | ast.AsyncFor | ast.While, live: frozenset[str], ctx: _Context
    ) -> frozenset[str]:
        exit_ = self.block(s.orelse, live, ctx)
        stored = _stored([s.target]) if isinstance(s, (ast.For, ast.AsyncFor)) else frozenset()
        test = _reads(s.test) if isinstance(s, ast.While) else frozenset()
        head = exit_ | test
        for _ in range(PASSES):
            inner = _Context(live, head, ctx.raised)
            body = self.block(s.body, head, inner)
            head = exit_ | test | (body - stored) | head
        return head | (_reads(s.iter) if isinstance(s, (ast.For, ast.AsyncFor)) else frozenset())

    def try_(self, s: ast.Try, live: frozenset[str], ctx: _Context) -> frozenset[str]:
        # a `finally` runs on the way to wherever its `try` leaves: on, a `break`, a `continue`, a
        # `return` or a raise; and a `return` or raise in a handler or the `else` reaches it too
        exits = live | ctx.broken | ctx.continued | ctx.raised
        after = self.block(s.finalbody, exits, ctx) if s.finalbody else live
        out = _Context(ctx.broken, ctx.continued, ctx.raised | after) if s.finalbody else ctx
        caught = [self.block(h.body, after, out) | _reads_of([h.type]) for h in s.handlers]
        raised = ctx.raised | after | frozenset().union(*caught)
        body = self.block(
            s.body, self.block(s.orelse, after, out), _Context(ctx.broken, ctx.continued, raised)
        )
        return body | raised


def dead_stores(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Dead]:
    """The names `func`'s own assignments bind to a computed value no later statement reads, each
    with where it is bound and how far its block sees that binding (`_until`); none in a function
    that reads its locals by name."""
    skipped: set[str] = set()
    for node in own_scope(func):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            skipped.update(node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in READS_ALL
            or isinstance(node, ast.Attribute)
            and node.attr == "f_locals"
        ):
            return []
        elif node is not func and isinstance(node, LAZY):  # read when it runs, or bound there
            skipped.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    walk = _Walk(skipped)
    walk.block(func.body, frozenset(), _Context())
    found = [
        Dead(name, s.value, end_of(s), start_of(s), _until(name, body, place))
        for s, name, body, place in walk.dead.values()
        if name != "_"
    ]
    return sorted(found, key=lambda u: (u.bound_at, u.name))


def _until(name: str, body: list[ast.stmt], place: int) -> tuple[int, int]:
    """The end of the last statement of `body` after `place` that still sees the binding there:
    up to the block's end, or to the statement before the next one that binds `name` again."""
    last = body[place]
    for stmt in body[place + 1 :]:
        if name in _stored([stmt]):
            break
        last = stmt
    return end_of(last)


def _stored(nodes: Sequence[ast.AST]) -> frozenset[str]:
    """The names bound anywhere in `nodes`."""
    return frozenset(
        n.id for t in nodes for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )


def _reads(node: ast.AST) -> frozenset[str]:
    return frozenset(
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)
    )


def _reads_of(nodes: Sequence[ast.AST | None]) -> frozenset[str]:
    return frozenset().union(*(_reads(n) for n in nodes if n is not None))
