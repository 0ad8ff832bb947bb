"""The containers a class declares as fields in its body (dataclasses, attrs, pydantic):
`tags: list[str] = field(default_factory=list)`, `seen: set = attrs.field(factory=set)`,
`items: List[int] = []`. Each is an instance's container as much as one `__init__` binds with
`self.tags = []`, and a missing `self.tags.append(tag)` grows it the same way."""

from __future__ import annotations

import ast

# a field's annotation, by the name of its type (`list[int]`, `typing.List[int]`, `Deque[str]`)
ANNOTATED = {
    "list": "list", "List": "list", "set": "set", "Set": "set", "MutableSet": "set",
    "dict": "dict", "Dict": "dict", "MutableMapping": "dict", "deque": "deque", "Deque": "deque",
}  # fmt: skip
FACTORY_KEYWORDS = ("default_factory", "factory")  # dataclasses and pydantic's; attrs'


def declared_containers(owner: ast.ClassDef) -> dict[str, str]:
    """Per field the class body declares a container, its kind (list, set, dict, deque)."""
    found: dict[str, str] = {}
    for statement in owner.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            kind = _kind(statement.annotation, statement.value)
            if kind is not None:
                found[statement.target.id] = kind
    return found


def _kind(annotation: ast.expr, value: ast.expr | None) -> str | None:
    if isinstance(value, ast.Call):
        for keyword in value.keywords:  # `field(default_factory=list)`
            if keyword.arg in FACTORY_KEYWORDS and isinstance(keyword.value, ast.Name):
                return ANNOTATED.get(keyword.value.id)
        if isinstance(value.func, ast.Name) and value.func.id in ("list", "set", "dict", "deque"):
            return value.func.id  # `seen: Set[int] = set()`
        return _annotated(annotation)  # `field()`, `attrs.field(kw_only=True)`: the type says
    if isinstance(value, (ast.List, ast.Set, ast.Dict)):
        return {ast.List: "list", ast.Set: "set", ast.Dict: "dict"}[type(value)]
    return _annotated(annotation) if value is None else None  # `n: int = 0`, `tags: list = DEFAULT`: no


def _annotated(annotation: ast.expr) -> str | None:
    named = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    if isinstance(named, ast.Attribute):
        return ANNOTATED.get(named.attr)
    return ANNOTATED.get(named.id) if isinstance(named, ast.Name) else None
