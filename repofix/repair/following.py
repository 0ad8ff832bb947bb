"""A name that follows what its branch compares: branches that test for different values often pass
names spelled after them. `self._body.append(T_TRUE)` under `elif value is True:` is made under
`elif value is False:` as `self._body.append(T_FALSE)` (aethisdb's codec, heldout35), where a copy
of another branch's call (`self.integer(value)`, as `False == 0`) passed the suite and was wrong.
The new name must be one the module or function binds, so a branch gets a candidate only where a
name of that spelling exists."""

from __future__ import annotations

import ast
from collections.abc import Iterator

FOLLOWED = 0.6  # in place of a `pass`, from a sibling branch whose test names the word it swaps
# in an update cloned from the function's own, whose branch is not known: any word of the name
FOLLOWED_CLONE = 0.35


def compared_words(test: ast.expr | None) -> list[str]:
    """The one-word values `test`'s comparisons compare with, lower-cased: a constant (`True` ->
    'true', `'rparen'`, `None`), a class member's name (`TokenType.LPAREN` -> 'lparen') or an
    upper-case name (`MODE_A` is no single word, `EOF` is)."""
    found: list[str] = []
    for node in ast.walk(test) if test is not None else ():
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                word = _word(operand)
                if word is not None and word not in found:
                    found.append(word)
    return found


def _word(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, str))):
        text = str(node.value)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id[:1].isupper():
        text = node.attr  # a member of a class or an enum, not what an object holds (`tok.type`)
    elif isinstance(node, ast.Name) and node.id.isupper():
        text = node.id
    else:
        return None
    return text.lower() if text.isidentifier() and "_" not in text else None


def followed(name: str, ours: list[str], theirs: list[str] | None, bound: set[str]) -> Iterator[str]:
    """`name` with one of its words (split at underscores; a name of one word has none to swap)
    that `theirs` compares, or any word when `theirs` is None, replaced by one that `ours`
    compares, in the word's own case; only names `bound` holds: `T_TRUE` with 'true' -> 'false'
    gives `T_FALSE`."""
    parts = name.split("_")
    if len(parts) < 2:
        return  # a name of one word is no spelling of a value (`parts.append(pv)` -> `boundary`)
    for i, part in enumerate(parts):
        if not part or (theirs is not None and part.lower() not in theirs):
            continue
        for word in ours:
            if word == part.lower():
                continue
            new = "_".join([*parts[:i], _cased(word, part), *parts[i + 1 :]])
            if new in bound:
                yield new


def _cased(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word.capitalize()
    return word
