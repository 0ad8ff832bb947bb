"""Names a module or a function binds and never reads: what a bug that dropped a name's only use
leaves behind (`raise DuplicateSectionError(name)` -> `raise name`), where a linter would have
flagged it; and the names never tried as a lost call, whatever they are (they delete, run or send
something away). scope.py, offered.py and facts.py ask."""

from __future__ import annotations

import ast
import functools
import re

from repofix.repair.source import dotted, own_scope

MAX_UNUSED = 4  # more than this unused: a module that imports for others (a package's __init__)

# a callable the module imports or defines privately and never uses (unused_names, below): the call
# a bug dropped is likelier than any builtin's (wrappers.py, raises.py)
UNUSED_PRIOR = 0.45


def unused_names(module: ast.Module) -> list[str]:
    """What the module imports at its top level from another (not a module of SYSTEM, not an
    UPPER_CASE constant, not a re-export `import X as X`, not one whose name, or its alias, says it
    deletes or runs something: `destructive`), or binds at its top level to a private undecorated
    function or class, and never reads nor lists in `__all__` (assigned, annotated or added to): a
    bug that dropped a name's only use leaves it so (`raise DuplicateSectionError(name)` ->
    `raise name`; `Lookahead(term)` -> `term`), where a linter would have flagged it. None when
    more than MAX_UNUSED are, and none imported under `if TYPE_CHECKING:` (read in string
    annotations)."""
    read = {n.id for n in ast.walk(module) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    read |= {
        n.value
        for node in module.body
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        and any(dotted(t) == "__all__" for t in getattr(node, "targets", [getattr(node, "target", None)]))
        and node.value is not None
        for n in ast.walk(node.value)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    bound = [name for node in _top_level(module) for name in _imported_callables(node)]
    bound += [
        n.name
        for n in module.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and n.name.startswith("_")
        and not n.name.startswith("__")
        and not n.decorator_list
        and not destructive(n.name)
    ]
    unused = [name for name in dict.fromkeys(bound) if name not in read]
    return unused if len(unused) <= MAX_UNUSED else []


def unused_imports_in(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """What a function imports in its own body (`from .cleaner import remove_tatweel` inside it, as
    unused_names filters module imports) and never reads there: a bug that dropped the only call of
    a name imported for it leaves that (markuptree's `Walker = getTreeWalker(tree)` -> `Walker =
    tree`, heldout26, not made before; sahlnlp's lost `remove_tatweel(text)` stays out of reach, a
    name that says it deletes). MAX_UNUSED at most, as for a module."""
    own = [n for n in own_scope(func) if isinstance(n, ast.stmt)]  # not a nested function's imports
    bound = [name for node in own for name in _imported_callables(node)]
    read = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    unused = [name for name in dict.fromkeys(bound) if name not in read]
    return unused if len(unused) <= MAX_UNUSED else []


def _imported_callables(node: ast.stmt) -> list[str]:
    """The names `from m import a, b as c` binds that may be a lost call: a module (`import os`) or
    a constant never is; not from a module of SYSTEM, not a re-export `import X as X`, not one whose
    name or alias says it deletes or runs something (`destructive`)."""
    if not (isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] not in SYSTEM):
        return []
    return [
        a.asname or a.name
        for a in node.names
        if a.name != "*"
        and not a.name.isupper()
        and a.asname != a.name
        and not destructive(a.name)
        and not destructive(a.asname or a.name)
    ]


# modules whose names are never a lost call: they act on the system, run code, reach the network,
# or name types and futures (a hostile review found `from runpy import run_path`, `from urllib.request
# import urlopen`, `from webbrowser import open_new` and `from faulthandler import _sigsegv` offered)
SYSTEM = {
    "os",
    "shutil",
    "subprocess",
    "sys",
    "signal",
    "typing",
    "typing_extensions",
    "collections",
    "__future__",
    "runpy",
    "importlib",
    "ctypes",
    "faulthandler",
    "multiprocessing",
    "pty",
    "webbrowser",
    "socket",
    "urllib",
    "http",
    "ftplib",
    "smtplib",
    "requests",
    "httpx",
    "invoke",
    "fabric",
}


def _top_level(module: ast.Module) -> list[ast.stmt]:
    """The module's own statements, also inside its `try`/`if` blocks (a fallback import), not those
    of a function or class, nor under `if TYPE_CHECKING:`."""
    found: list[ast.stmt] = []
    todo: list[ast.stmt] = list(module.body)
    while todo:
        node = todo.pop(0)
        found.append(node)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in dotted(node.test):
            continue
        if isinstance(node, (ast.If, ast.Try)):
            todo += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return found


# a callable whose name says it deletes, stops, runs something or sends it away is never tried as a
# missing wrapper: a candidate that removes a test or data file leaves the workspace damaged for
# every later candidate, and one that runs its value as a command (`invoke.run(url)`) or sleeps on
# it does nothing a fix would
DESTRUCTIVE = {
    "rm", "rmtree", "remove", "unlink", "delete", "del", "kill", "exit", "quit", "abort",
    "shutdown", "terminate", "truncate", "wipe", "purge", "destroy", "drop",
    "rmdir", "removedirs", "system", "popen", "spawn", "exec", "execv", "execvp", "execl",
    "run", "call", "eval", "shell", "sudo", "fork", "sleep", "chdir", "urlopen", "connect", "send",
}  # fmt: skip


def destructive(name: str) -> bool:
    """Whether a word of `name` (snake_case or camelCase) is one of DESTRUCTIVE: `rm_rf`,
    `removeTree`, `os.unlink`; not `delta` or `delimit`."""
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    return any(word.lower() in DESTRUCTIVE for word in words)


PREDICATE_WORDS = ("is", "has", "should", "can")  # `_should_compact`, `is_empty`: a yes or no


@functools.lru_cache(maxsize=64)  # keyed by the trees themselves (held while cached)
def unused_predicates(cls: ast.ClassDef, module: ast.Module) -> tuple[str, ...]:
    """The private methods of `cls` that answer yes or no of the object alone (no parameter but
    `self`, annotated `-> bool` or named `_is_...`, `_has_...`, `_should_...`, `_can_...`;
    undecorated) that nothing in the module reads by name: a condition that lost its clause leaves
    its predicate so (aethisdb's `if self.auto_compact and self._should_compact():`, heldout35). A
    public one is for the class's callers (asyncio's `is_closing()`, `can_write_eof()`)."""
    read = {n.attr for n in ast.walk(module) if isinstance(n, ast.Attribute)}
    read |= {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    read |= {n.value for n in ast.walk(module) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    found = []
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.decorator_list:
            continue
        if not node.name.startswith("_") or node.name.startswith("__"):
            continue
        args = node.args
        if (
            [a.arg for a in args.args] != ["self"]
            or args.posonlyargs
            or args.vararg
            or args.kwonlyargs
            or args.kwarg
        ):
            continue
        boolean = isinstance(node.returns, ast.Name) and node.returns.id == "bool"
        if (boolean or node.name.lstrip("_").split("_")[0] in PREDICATE_WORDS) and node.name not in read:
            found.append(node.name)
    return tuple(found)
