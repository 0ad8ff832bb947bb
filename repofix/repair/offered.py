"""What the module and a method's class offer the new code of one of its functions: the
one-argument callables to wrap a value in (the function's own first, then the module's most called),
the names their arguments have, and the containers of the instance a lost update may grow."""

from __future__ import annotations

import ast

from repofix.repair.containers import MEMBER_METHODS, binding, held_kind
from repofix.repair.facts import BUILTIN_NAMES, ModuleFacts, argument_name, parameters, takes_one
from repofix.repair.fields import declared_containers
from repofix.repair.source import dotted
from repofix.repair.unused import destructive

MAX_CALLEES = 8  # the module's own one-argument callables tried as a missing wrapper, most called first
MAX_MEMBERS = 12  # the class's instance containers tried as a missing update's receiver (each by its methods)


def argument_names(func: ast.FunctionDef | ast.AsyncFunctionDef, module: dict[str, str]) -> dict[str, str]:
    """The module's one-argument callables and the function's own nested ones (`def _add_key(fmtkey)`
    inside it), each with the name of its argument; not the function itself, whose call on its own
    argument would recurse for ever, nor one whose name says it deletes or runs something."""
    nested = {
        n.name: argument_name(n)
        for n in ast.walk(func)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and n is not func
        and takes_one(n, [])
        and not n.args.posonlyargs
    }
    return {
        name: arg for name, arg in {**module, **nested}.items() if name != func.name and not destructive(name)
    }


def members(func: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module) -> list[tuple[str, str]]:
    """Per instance attribute a method of `func`'s class binds to a container (`self.x = []`,
    `self.x = dict()`, a comprehension, `x or []`: containers.held_kind) or its body declares as one
    (fields.py), the attribute as `func` names it and the method that grows it; not one the class
    defines as a method or property; those `func` mentions first, MAX_MEMBERS at most."""
    own = parameters(func, varargs=False)
    owner = next((c for c in ast.walk(module) if isinstance(c, ast.ClassDef) and func in c.body), None)
    bound = {dotted(d) for d in func.decorator_list} & {"staticmethod", "classmethod"}
    if owner is None or not own or bound:  # a static or class method's first parameter is no instance
        return []
    found: dict[str, tuple[str, ...]] = {}
    # `self.nodes = nodes or []` where the class defines `nodes` as a property: the setter stores
    # the container elsewhere (`self._nodes`), which is the one to grow
    defined = {m.name for m in owner.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for method in owner.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = parameters(method, varargs=False)[:1]
        for node in ast.walk(method):
            targets, value = binding(node)
            kind = held_kind(value) if value is not None else None
            for target in targets:
                if (
                    kind in MEMBER_METHODS
                    and isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and first == [target.value.id]  # `self.x = []` on the method's own instance
                    and target.attr not in defined
                ):
                    found.setdefault(f"{own[0]}.{target.attr}", MEMBER_METHODS[kind])  # type: ignore[index]
    for attribute, kind in declared_containers(owner).items():  # a dataclass's `tags: list = field(...)`
        found.setdefault(f"{own[0]}.{attribute}", MEMBER_METHODS[kind])
    # the ones `func` itself mentions first: a class of hundreds of them must not flood the search
    mentioned = {f"{own[0]}.{n.attr}" for n in ast.walk(func) if isinstance(n, ast.Attribute)}
    chosen = sorted(found, key=lambda m: m not in mentioned)[:MAX_MEMBERS]
    return [(receiver, grows) for receiver in chosen for grows in found[receiver]]


def callables_of(
    func: ast.FunctionDef | ast.AsyncFunctionDef, facts: ModuleFacts
) -> tuple[list[str], list[str]]:
    """(own, callables): what the function calls with one argument, and that followed by what the
    module calls so most (MAX_CALLEES) and its one-argument functions; no builtin, no destructive one."""
    own = [
        n.func.id
        for n in ast.walk(func)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and len(n.args) == 1
        and not n.keywords
        and n.func.id not in BUILTIN_NAMES
        and not destructive(n.func.id)
    ]
    module_callees = [n for n in facts.one_arg if n not in BUILTIN_NAMES and n != func.name][:MAX_CALLEES]
    # every one-argument function of the module, also one called less than the MAX_CALLEES most called
    single = [n for n in facts.single if n != func.name and n not in module_callees]
    callables = [n for n in dict.fromkeys([*own, *module_callees, *single]) if not destructive(n)]
    return list(dict.fromkeys(own)), callables
