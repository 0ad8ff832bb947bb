"""Test ids as this worker's pytest names them. A parametrize over a set orders its cases by their
hashes, and some hashes are addresses: None's before Python 3.12 is where the interpreter was
loaded, so another interpreter, the coverage run's, may have named the cases otherwise: isodate's
`test_parse[4-19-expected24-%C]` is `test_parse[6-+0019-expected1-%C]` in the next process, and
pytest refuses an id it cannot find (exit 4), which rejected every candidate of heldout's nine
isodate bugs. Every fork of this worker names them alike, so the ids are read here once: an id
unknown here stands for its whole function when the lists name every case of it (a failing one
always: the fix must pass its other cases too), and a passing one that cannot be told so is left
out. A set of objects made at import (a class's or a function's address) may be ordered otherwise
even from one fork to the next; that is not mended here."""

from repofix.repair.insandbox.collect import _collected_in_child


def _function(nodeid):
    """`file::Class::test` of `file::Class::test[case]`."""
    cut = nodeid.find("[", nodeid.rfind("::"))
    return nodeid if cut < 0 else nodeid[:cut]


def _collected(tests):
    """The ids pytest collects here from the files of `tests`."""
    files = list(dict.fromkeys(t.split("::")[0] for t in tests))
    return set(_collected_in_child(files, lambda items: [item.nodeid for item in items]) or [])


def _renamed(failing, passing):
    """{id: the id to run here, or None (left out)} for every id of `failing` and `passing`."""
    known = _collected(failing + passing)
    if not known:  # nothing collected here: nothing to tell; pytest will say what is wrong
        return {t: t for t in failing + passing}
    cases, listed = {}, {}
    for nodeid in known:
        cases[_function(nodeid)] = cases.get(_function(nodeid), 0) + 1
    for nodeid in set(failing + passing):
        listed[_function(nodeid)] = listed.get(_function(nodeid), 0) + 1
    names = {t: t if t in known or _function(t) == t else _function(t) for t in failing}
    whole = {name for name in names.values() if name not in known}  # failing functions run whole
    for t in passing:
        if _function(t) in whole:
            names[t] = None  # its function runs in the failing stage
        elif t in known or _function(t) == t:
            names[t] = t
        else:
            names[t] = _function(t) if cases.get(_function(t)) == listed[_function(t)] else None
    return names


def named_here(failing, passing):
    """(failing, passing, {id: id here or None}) with ids this worker's pytest can find."""
    names = _renamed(failing, passing)
    failing = list(dict.fromkeys(names[t] for t in failing))
    passing = [t for t in dict.fromkeys(names[t] for t in passing) if t is not None and t not in failing]
    return failing, passing, names
