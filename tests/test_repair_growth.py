"""A missing growth of what is no bare name (repair/growth.py), on its own minimal cases: what
the collection is tested for, the function's own result on a part, an object built from the
locals its constructor names, and a list bound by `setdefault`; what each leaves out; and the
engine repairing one end to end."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from repofix.repair.generate import mutations
from repofix.repair.growth import MAX_BUILT, MAX_EACH
from repofix.repair.scope import scope_of
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs, assert_produces

CHAIN = """\
def chain(obj):
    seen_ids = set()
    out = []
    current = obj
    while current is not None:
        if id(current) in seen_ids:
            break
        out.append(current)
        current = current.next
    return out
"""

TREE = """\
def build(main_id, depth):
    row = rows[main_id]
    children = []
    child = row.first_child
    while child:
        pass
        child = rows[child].next_sibling
    return Layer(row.name, tuple(children))
"""

NESTED = """\
def outline(node, level):
    kids = []
    for sub in node.sections:
        pass
    return {"title": node.title, "level": level, "kids": kids}
"""

FLATTEN = """\
def flatten(tree, depth):
    out = []
    for item in tree:
        if isinstance(item, list):
            pass
        else:
            out.append((item, depth))
    return out
"""

RECORDS = """\
class Record:
    def __init__(self, kind, payload):
        self.kind = kind
        self.payload = payload


def parse(data):
    records = []
    for i in range(0, len(data), 2):
        kind = data[i]
        payload = data[i + 1]
        check(kind, payload)
    return records
"""

RECORD_CLASS = RECORDS.split("\n\n\n")[0] + "\n"

BUCKETS = """\
def insert(buckets, element):
    bucket = buckets.setdefault(hash(element), [])
    if element not in bucket:
        pass
    return buckets
"""

# branches that differ in what they compare differ so in what they grow (analogues.py)
TAGS = """\
def tags(code, types):
    out = []
    if 'region' in types:
        out.append(Tag(code, 'region'))
    elif 'extlang' in types:
        pass
    return out
"""
SIGNS = """\
def options(sign, no_neg_0):
    kwargs = {}
    if no_neg_0:
        if sign == "+" or sign == " ":
            pass
        else:
            kwargs.update(negative_zero_sign="")
    return kwargs
"""
PARTS = """\
def explain(self):
    parts = []
    if not self.day.star:
        parts.append(self.day)
    if not self.dow.star:
        pass
    return parts
"""
# lexiquery's tokenizer (heldout34): the other branch's token made with the subject this one tests
TOKENS = """\
def tokenize(raw, extra):
    tokens = []
    for r in raw:
        if r == '(':
            pass
        elif r == ',':
            tokens.append(Token('COMMA', r))
    for val in extra:
        tokens.append(Token('LPAREN', val))
    return tokens
"""

SWAPPED_SIGNS = SIGNS.replace(
    "            pass\n", '            kwargs.update(negative_zero_sign="")\n', 1
).replace(
    '        else:\n            kwargs.update(negative_zero_sign="")\n', "        else:\n            pass\n"
)

CASES = [
    # (family, buggy, fixed)
    ("clone-update", TAGS, TAGS.replace("        pass\n", "        out.append(Tag(code, 'extlang'))\n")),
    (
        "clone-update",
        SIGNS,
        SIGNS.replace("            pass\n", "            kwargs.update(negative_zero_sign=sign)\n"),
    ),
    ("clone-update", PARTS, PARTS.replace("        pass\n", "        parts.append(self.dow)\n")),
    (
        "clone-update",
        TOKENS,
        TOKENS.replace("            pass\n", "            tokens.append(Token('LPAREN', r))\n"),
    ),
    (
        "add-tested",
        CHAIN,
        CHAIN.replace(
            "        out.append(current)\n",
            "        out.append(current)\n        seen_ids.add(id(current))\n",
        ),
    ),
    (
        "add-recursion",
        FLATTEN,
        FLATTEN.replace("            pass\n", "            out.extend(flatten(item, depth))\n"),
    ),
    # a tree built by walking a node's children, one level deeper each (csp-format, heldout37)
    (
        "add-recursion",
        TREE,
        TREE.replace("        pass\n", "        children.append(build(child, depth + 1))\n"),
    ),
    (
        "add-recursion",
        NESTED,
        NESTED.replace("        pass\n", "        kids.append(outline(sub, level + 1))\n"),
    ),
    (
        "add-built",
        RECORDS,
        RECORDS.replace(
            "        check(kind, payload)\n",
            "        check(kind, payload)\n        records.append(Record(kind, payload))\n",
        ),
    ),
    ("add-statement", BUCKETS, BUCKETS.replace("        pass\n", "        bucket.append(element)\n")),
    # a dataclass and a NamedTuple are made from their fields (ehviewer-parser, heldout33), a
    # defaulted one too when a local is named for it (minidump-analyzer, heldout35)
    *(
        (
            "add-built",
            RECORDS.replace(RECORD_CLASS, header),
            RECORDS.replace(RECORD_CLASS, header).replace(
                "        check(kind, payload)\n",
                "        check(kind, payload)\n        records.append(Record(kind, payload))\n",
            ),
        )
        for header in (
            "@dataclass(frozen=True)\nclass Record:\n    kind: str\n    payload: bytes\n",
            "@dataclasses.dataclass\nclass Record:\n    kind: str\n    payload: bytes = b''\n",
            "class Record(typing.NamedTuple):\n    kind: str\n    SIZE: ClassVar[int] = 2\n    payload: bytes\n",
        )
    ),
]


@pytest.mark.parametrize(
    ("family", "buggy", "fixed"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_each_growth_is_made(family: str, buggy: str, fixed: str) -> None:
    assert_produces(family, buggy, fixed)


def _added(source: str, line_text: str, op: str) -> set[str]:
    """The statements `op` adds on the line that is `line_text`."""
    src = SourceFile("m.py", source)
    line = source.splitlines().index(line_text) + 1
    out = set()
    for m in mutations(src, [line]):
        if m.op == op:
            (edit,) = m.edits
            out.add(edit.text.strip())
    return out


@pytest.mark.parametrize(
    ("source", "line_text", "op", "never"),
    [
        # a member read before it is bound: `key` is bound after the statement
        (
            "def f(xs):\n    seen = set()\n    for x in xs:\n        x = x + 1\n        key = str(x)\n"
            "        if key in seen:\n            continue\n    return seen\n",
            "        x = x + 1",
            "add-tested",
            "seen.add(key)",
        ),
        # a dict is tested for its keys, not grown by them
        (
            "def f(xs):\n    seen = {}\n    for x in xs:\n        if x in seen:\n            continue\n"
            "        y = x\n    return seen\n",
            "        y = x",
            "add-tested",
            "seen.add(x)",
        ),
        # the function does not return the collection: its result is no part of it
        (
            FLATTEN.replace("    return out\n", "    return len(out)\n"),
            "            pass",
            "add-recursion",
            "out.extend(flatten(item, depth))",
        ),
        # a constructor parameter with a default, or one no local is named for
        (
            RECORDS.replace("kind, payload):", "kind, payload=None):"),
            "        check(kind, payload)",
            "add-built",
            "records.append(Record(kind, payload))",
        ),
        # a constant is replaced only by one of its class, or by what is compared with one
        (
            TAGS.replace("'extlang' in types", "len(types) > 2"),
            "        pass",
            "clone-update",
            "out.append(Tag(code, 2))",
        ),
        # the `else` of an `if` does not compare what the `if` compares
        (SWAPPED_SIGNS, "            pass", "clone-update", "kwargs.update(negative_zero_sign=sign)"),
        (
            RECORDS.replace("payload = data[i + 1]", "body = data[i + 1]").replace(
                "check(kind, payload)", "check(kind, body)"
            ),
            "        check(kind, body)",
            "add-built",
            "records.append(Record(kind, payload))",
        ),
        # a dataclass of keyword-only fields, a plain class of annotations, and one of a single field
        *(
            (
                RECORDS.replace(RECORD_CLASS, header),
                "        check(kind, payload)",
                "add-built",
                "records.append(Record(kind, payload))",
            )
            for header in (
                "@dataclass(kw_only=True)\nclass Record:\n    kind: str\n    payload: bytes\n",
                "class Record:\n    kind: str\n    payload: bytes\n",
                "@dataclass\nclass Record:\n    kind: str\n    _: KW_ONLY\n    payload: bytes\n",
            )
        ),
        (
            RECORDS.replace(RECORD_CLASS, "@dataclass\nclass Record:\n    kind: str\n"),
            "        check(kind, payload)",
            "add-built",
            "records.append(Record(kind))",
        ),
    ],
    ids=[
        "bound-after",
        "dict",
        "not-returned",
        "default",
        "int-for-text",
        "else-branch",
        "no-local",
        "keyword-only",
        "no-dataclass",
        "kw-only-marker",
        "one-field",
    ],
)
def test_a_growth_is_not_made_where_it_cannot_be_the_fix(
    source: str, line_text: str, op: str, never: str
) -> None:
    ast.parse(source)
    assert never not in _added(source, line_text, op)


def test_the_positive_cases_are_made_by_the_operator_the_negatives_test() -> None:
    """The negatives above look for what the operator does make in the case they change."""
    assert "seen.add(key)" in _added(
        "def f(xs):\n    seen = set()\n    for x in xs:\n        key = str(x)\n        x = x + 1\n"
        "        if key in seen:\n            continue\n    return seen\n",
        "        x = x + 1",
        "add-tested",
    )
    assert "out.extend(flatten(item, depth))" in _added(FLATTEN, "            pass", "add-recursion")
    assert "records.append(Record(kind, payload))" in _added(
        RECORDS, "        check(kind, payload)", "add-built"
    )
    assert "fields.add(65)" in _added(  # a constant tested for
        "def f(xs):\n    fields = set()\n    for x in xs:\n        if 65 in fields:\n            break\n"
        "        y = x\n    return fields\n",
        "        y = x",
        "add-tested",
    )
    assert "seen.add(x)" in _added(
        "def f(xs):\n    seen = set()\n    for x in xs:\n        if x in seen:\n            continue\n"
        "        y = x\n    return seen\n",
        "        y = x",
        "add-tested",
    )
    assert "out.append(Tag(code, 2))" in _added(
        TAGS.replace("'extlang' in types", "len(types) == 2").replace("'region')", "1)"),
        "        pass",
        "clone-update",
    )
    assert "kwargs.update(negative_zero_sign=sign)" in _added(SIGNS, "            pass", "clone-update")


def test_the_engine_adds_what_the_set_is_tested_for(make_sandbox, tmp_path: Path) -> None:
    tests = (
        "from chain import chain\n\n\nclass Node:\n    def __init__(self, next=None):\n        self.next = next\n\n\n"
        "def test_cycle():\n    a = Node()\n    b = Node(a)\n    a.next = b\n    assert chain(a) == [a, b]\n\n\n"
        "def test_line():\n    a = Node(Node(Node()))\n    assert len(chain(a)) == 3\n"
    )
    buggy = CHAIN.replace(
        "    while current is not None:\n", "    while current is not None and len(out) < 50:\n"
    )
    assert_engine_repairs(make_sandbox, tmp_path, "chain", buggy, tests, "seen_ids.add(id(current))")


# what a reviewer found the first version made: names read where they are not bound, a recursion
# that cannot be called so, clone parts that are targets or pieces of an f-string
@pytest.mark.parametrize(
    ("source", "line_text", "op", "never"),
    [
        (  # a comprehension's own name
            "def f(xs):\n    seen = set()\n    found = [x for x in xs if x in seen]\n    y = 0\n    return found\n",
            "    y = 0",
            "add-tested",
            "seen.add(x)",
        ),
        (  # a lambda's parameter
            "def f(xs):\n    seen = set()\n    y = 0\n    key = lambda x: x in seen\n    return key\n",
            "    y = 0",
            "add-tested",
            "seen.add(x)",
        ),
        (  # bound by `except ... as` further down
            "def f(xs):\n    seen = set()\n    y = 0\n    try:\n        g()\n    except ValueError as err:\n"
            "        if err.args in seen:\n            return seen\n    return seen\n",
            "    y = 0",
            "add-tested",
            "seen.add(err.args)",
        ),
        (  # an async function's result is a coroutine
            FLATTEN.replace("def flatten", "async def flatten"),
            "            pass",
            "add-recursion",
            "out.extend(flatten(item, depth))",
        ),
        (  # a static method is no bare name
            "class T:\n    @staticmethod\n" + textwrap.indent(FLATTEN, "    "),
            "                pass",
            "add-recursion",
            "out.extend(flatten(item, depth))",
        ),
        (  # a loop over what no parameter holds
            FLATTEN.replace("for item in tree:", "for item in range(3):"),
            "            pass",
            "add-recursion",
            "out.extend(flatten(item, depth))",
        ),
        (  # a comprehension's target is no part to replace
            "def f(self, ys):\n    out = []\n    if not self.flag.on:\n        out.append([y for y in ys])\n"
            "    if not self.mode.on:\n        pass\n    return out\n",
            "        pass",
            "clone-update",
            "out.append([y for self.mode in ys])",
        ),
        (  # an f-string's text pieces are not constants of their own
            TAGS.replace("Tag(code, 'region')", 'f"tag-{code}-region"'),
            "        pass",
            "clone-update",
            "out.append('extlang')",
        ),
        (  # a part that is no constant only by what is compared with none
            "def f(arg_count, flag, values):\n    extras = []\n    if flag:\n        extras.extend(values)\n"
            "    if arg_count == 0 and not flag:\n        pass\n    return extras\n",
            "        pass",
            "clone-update",
            "extras.extend(arg_count)",
        ),
        (  # a `while` loop stepping through what no parameter made
            TREE.replace("    child = row.first_child\n", "    child = 3\n").replace(
                "rows[child].next_sibling", "child - 1"
            ),
            "        pass",
            "add-recursion",
            "children.append(build(child, depth + 1))",
        ),
        (  # a list the result is not made of
            TREE.replace("tuple(children)", "()"),
            "        pass",
            "add-recursion",
            "children.append(build(child, depth + 1))",
        ),
        (  # lines made from rows: no level is counted, so no tree is built (evals/' `table(r)`)
            "def table(rows):\n    out = []\n    for r in rows:\n        pass\n    return '\\n'.join(out)\n",
            "        pass",
            "add-recursion",
            "out.append(table(r))",
        ),
        (  # after the loop the part is no child of this level
            TREE.replace("    return Layer", "    pass\n    return Layer"),
            "    pass",
            "add-recursion",
            "children.append(build(child, depth + 1))",
        ),
    ],
    ids=[
        "comprehension",
        "lambda",
        "except-as",
        "async",
        "staticmethod",
        "no-parameter",
        "target",
        "f-string",
        "compared",
        "while-unrelated",
        "not-fed",
        "no-level",
        "after-the-loop",
    ],
)
def test_what_a_review_found_is_not_made(source: str, line_text: str, op: str, never: str) -> None:
    ast.parse(source)
    assert never not in _added(source, line_text, op)


def test_a_recursion_through_self_and_a_setdefault_of_a_dict() -> None:
    method = "class T:\n" + textwrap.indent(FLATTEN.replace("(tree, depth)", "(self, tree, depth)"), "    ")
    assert "out.extend(self.flatten(item, depth))" in _added(method, "                pass", "add-recursion")
    tree = ast.parse(
        "def f(d, k):\n    a = d.setdefault(k, {})\n    b = d.setdefault(k)\n    c = d.setdefault(k, set())\n"
    )
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    assert scope_of(func, tree).grow == [("c", "add")]


def test_a_generated_module_gives_few_growths_a_line() -> None:
    """300 classes made from `(a, b)` and 50 members tested for: at most MAX_BUILT objects and
    MAX_EACH members per collection, those of most parameters first."""
    classes = "".join(
        f"class C{i}:\n    def __init__(self, a, b):\n        self.a = a\n\n\n" for i in range(300)
    )
    classes += "class Wide:\n    def __init__(self, a, b, xs):\n        self.a = a\n\n\n"
    tests = "".join(f"        if (x, {i}) in seen:\n            continue\n" for i in range(50))
    func = f"def f(xs, a, b):\n    seen = set()\n    for x in xs:\n{tests}        y = x\n    return seen\n"
    source = classes + func
    built = _added(source, "        y = x", "add-built")
    assert len(built) == MAX_BUILT and "seen.add(Wide(a, b, xs))" in built
    assert len(_added(source, "        y = x", "add-tested")) == MAX_EACH
