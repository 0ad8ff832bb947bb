"""What every function of one module shares (the names it calls, raises, tests and updates), read
once per module rather than once per suspicious function: the operators in scope.py, offered.py and
clones.py build new code from these. With them, the two readers every operator module uses: a
function's `parameters` and the `BUILTIN_NAMES`."""

from __future__ import annotations

import ast
import builtins
import functools
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from repofix.repair.source import dotted
from repofix.repair.unused import unused_names

# methods that update their receiver in place: a missing `rv.update(d)` / `ret.append(x)` statement
UPDATES = ("update", "append", "add", "extend", "appendleft")
BUILTIN_NAMES = set(dir(builtins))

Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class ModuleFacts:
    one_arg: list[str]  # names called with one argument and no keyword, the most called first
    single: list[str]  # module functions taking exactly one argument, classes made from one (`takes_one`)
    # of those, the name each gives its argument (`def validate(karyotype)`: "karyotype")
    argument_names: dict[str, str]
    raised: list[str]  # exception classes the module raises (`error.Bad` too), the most raised first
    exceptions: list[str]  # exception classes the module defines, in source order
    # (class, the words of its message) for each `raise C("...")` whose arguments hold words
    messages: list[tuple[str, frozenset[str]]]
    update_methods: list[str]  # in-place update methods the module calls as statements
    names: set[str]  # what the module binds at its top level: functions, classes, imports, globals
    # of those, what is never false: its functions and classes, imported modules and CapWords
    # imports (classes), when nothing in the module assigns the name (`Set = None` in a fallback)
    truthy: set[str]
    conditions: list[ast.expr]  # comparisons, calls and attributes it tests (see `conditions`)
    updates: list[ast.Call]  # its update statements (see `updates`)
    functions: list[Function]  # every function in it, nested ones too
    unused: list[str]  # what it imports or defines privately and never reads (see `unused_names`)
    sentinels: list[str]  # top-level names it compares by identity (`x is _marker`): its own `None`s
    # per top-level function, the positions of its parameters named for a class (`klass`, `tp`)
    class_params: dict[str, list[int]]


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached, so never confused)
def module_facts(module: ast.Module) -> ModuleFacts:
    one_arg = Counter(
        n.func.id
        for n in ast.walk(module)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and len(n.args) == 1 and not n.keywords
    )
    exceptions = exception_classes(module)
    defined = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    one = {n.name: n for n in defined if takes_one(n, exceptions)}
    raised = Counter(
        dotted(n.exc.func)
        for n in ast.walk(module)
        if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call) and dotted(n.exc.func)
    )
    messages = [
        (dotted(n.exc.func), message_words(n.exc))
        for n in ast.walk(module)
        if isinstance(n, ast.Raise)
        and isinstance(n.exc, ast.Call)
        and _cap_words(dotted(n.exc.func).rsplit(".", 1)[-1])  # a class, not `self.error(...)`
    ]
    statements = updates(module)
    return ModuleFacts(
        one_arg=[n for n, _ in one_arg.most_common()],
        single=sorted(one),
        argument_names={name: argument_name(node) for name, node in one.items()},
        raised=[n for n, _ in raised.most_common()],
        exceptions=exceptions,
        messages=[(name, words) for name, words in messages if words],
        update_methods=sorted({c.func.attr for c in statements}),  # type: ignore[attr-defined]
        names=_top_level_names(module),
        truthy=_always_true(module),
        conditions=conditions(module),
        updates=statements,
        functions=[n for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))],
        unused=unused_names(module),
        sentinels=_sentinels(module),
        class_params={
            n.name: [i for i, a in enumerate(n.args.posonlyargs + n.args.args) if names_a_class(a.arg)]
            for n in module.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        },
    )


def parameters(func: ast.FunctionDef | ast.AsyncFunctionDef, varargs: bool = True) -> list[str]:
    """The function's parameter names in order; `*args` and `**kwargs` last, unless not asked for."""
    args = func.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    if varargs:
        names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def takes_one(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, exceptions: list[str]) -> bool:
    """A module function taking exactly one argument, or a class made from one value: its last
    `__init__` (the one Python keeps) takes one argument besides `self` (`return
    Tag(record["Preferred-Value"])` in a method of Tag lost its call as easily as a function's);
    not an exception class, which is no wrapper (a raise gets its class: raises.raise_value).
    A positional-only parameter counts (`def f(x, /)`); a keyword-only one without a default
    does not allow the call at all (`def f(x, *, key)`)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        positional = _positional(node.args)
        return _one_required(node.args, 0) and positional[0].arg not in ("self", "cls")
    if node.name in exceptions:
        return False
    inits = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    return bool(inits) and _one_required(inits[-1].args, 1)


def argument_name(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The name of the one argument a `takes_one` function or class takes (a class: its `__init__`'s)."""
    if isinstance(node, ast.ClassDef):
        init = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"][-1]
        return _positional(init.args)[1].arg
    return _positional(node.args)[0].arg


def _positional(args: ast.arguments) -> list[ast.arg]:
    return args.posonlyargs + args.args


def _one_required(args: ast.arguments, bound: int) -> bool:
    """Whether a call with one positional argument fills every parameter without a default, after
    the `bound` ones a method's call fills itself (`self`)."""
    required = len(_positional(args)) - len(args.defaults)
    return required == bound + 1 and all(d is not None for d in args.kw_defaults)


def _sentinels(module: ast.Module) -> list[str]:
    top = _top_level_names(module)
    found: dict[str, None] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            found.update(
                (s.id, None)
                for s in [node.left, *node.comparators]
                if isinstance(s, ast.Name) and s.id in top
            )
    return list(found)


CLASS_NAMES = {"type", "typ", "tp", "cls", "kls", "klass", "class"}  # the whole name
CLASS_ENDS = {"cls", "kls", "klass", "class"}  # its last word: `base_cls`, not `content_type` (text)


def names_a_class(name: str) -> bool:
    """`klass`, `typ`, `type_`, `base_cls`: a name that says it holds a class, not an instance
    (`content_type`, `mime_type`, `type_name` hold text)."""
    words = [w for w in name.lower().split("_") if w]
    return bool(words) and ("".join(words) in CLASS_NAMES or words[-1] in CLASS_ENDS)


EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning")


def exception_classes(module: ast.Module) -> list[str]:
    """Classes the module defines that derive from an exception (a builtin one, or one it defines
    before them, or any base named like one): `raise VdtUnknownCheckError(name)` where no other
    line raises that class."""
    found: list[str] = []
    for node in module.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [dotted(b).rsplit(".", 1)[-1] for b in node.bases]
        if any(b in found or b.endswith(EXCEPTION_SUFFIXES) or b == "BaseException" for b in bases):
            found.append(node.name)
    return found


WORD = re.compile(r"[^\W\d_]{3,}")  # words of three letters or more, in any script


def message_words(node: ast.expr) -> frozenset[str]:
    """The words of every string literal in a raised value, f-strings' and `%` formats' too."""
    return frozenset(
        word
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
        for word in WORD.findall(n.value.lower())
    )


def conditions(tree: ast.AST) -> list[ast.expr]:
    """Comparisons, calls and attributes (`self.strip`) tested as conditions: `if`/`while` tests,
    operands of `and`/`or`/`not`."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        tests: list[ast.expr] = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests = [node.test]
        elif isinstance(node, ast.BoolOp):
            tests = list(node.values)
        for test in tests:
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test = test.operand
            if isinstance(test, (ast.Compare, ast.Call, ast.Attribute)):
                found.append(test)
    return found


def updates(tree: ast.AST) -> list[ast.Call]:
    """`R.update(...)` / `R.append(...)`... calls made as statements."""
    return method_statements(tree, UPDATES)


def method_statements(tree: ast.AST, methods: Collection[str]) -> list[ast.Call]:
    """`R.m(...)` calls made as statements, `m` one of `methods`."""
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr in methods
    ]


def enclosing(func: Function, module: ast.Module) -> list[Function]:
    """The functions `func` is nested in, innermost first: their locals are its closure."""
    outer = [
        n
        for n in module_facts(module).functions
        if n is not func and n.lineno < func.lineno and (func.end_lineno or 0) <= (n.end_lineno or 0)
    ]
    return sorted(outer, key=lambda n: -n.lineno)


def _top_level_names(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _always_true(module: ast.Module) -> set[str]:
    """Top-level names bound to a function, a class or a module, which no condition can find
    false: `T and not Set` is always false. An imported CapWords name is taken for a class (an
    UPPER_CASE one may be a flag); a name assigned anywhere in the module is left out."""
    bound: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Import):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            bound.update(a.asname or a.name for a in node.names if _cap_words(a.asname or a.name))
    stored = {
        n.id for n in ast.walk(module) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    } | {name for n in ast.walk(module) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    return bound - stored


def _cap_words(name: str) -> bool:
    return name[:1].isupper() and any(c.islower() for c in name)
