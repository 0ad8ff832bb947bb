"""How the differential check (differ.py) records a traced value: its repr, without what follows
memory addresses (an address, a set's order) and cut short."""

import re

ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
MOST_SORTED = 10_000  # items of a set sorted for its repr; a bigger one is shown by its size


def _short(value):
    try:
        text = _unordered(value) if type(value) in (set, frozenset) and value else repr(value)
    except Exception as error:  # a repr that fails is part of the behaviour too
        text = "<repr failed: %s>" % type(error).__name__
    return ADDRESS.sub("", text[:200])


def _unordered(value):
    """A set's repr with its items sorted: the order of a set of objects hashed by identity follows
    their addresses, not the program (startup's `_notify_reader_writes(writeto)`, heldout55)."""
    if len(value) > MOST_SORTED:
        return "<%s of %d items>" % (type(value).__name__, len(value))
    items = ", ".join(sorted(ADDRESS.sub("", repr(item)) for item in value))
    return "{%s}" % items if type(value) is set else "frozenset({%s})" % items


def _alike(value, shown=None):
    """The repr a digest compares (`shown`: the value's `_short`, when made already): an integral
    float as the int it equals (`x / 1` for `x`: equal, with the same hash, so the program sees the
    same value but for its type)."""
    if type(value) is float and value.is_integer() and abs(value) < 1e15:
        return _short(int(value))
    return _short(value) if shown is None else shown
