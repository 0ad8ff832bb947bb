"""Collect the failing tests once before forking: warm imports, and the tests that can be called
without pytest (plain functions, or parametrized ones with plain parameters)."""

import os
import sys

from repofix.repair.insandbox.common import PYTEST_ARGS, _bytecode_on, _quiet, _rel


class _Items:
    def __init__(self):
        self.items = []

    def pytest_collection_finish(self, session):
        self.items = list(session.items)


SIMPLE_MODULES = ("builtins", "datetime", "decimal", "fractions")


def _simple(value, depth=0):
    """A parameter the child can reuse as collected: it holds nothing from the workspace's modules
    (which the child imports afresh, so their classes would differ from the collected ones)."""
    if depth > 4 or type(value).__module__ not in SIMPLE_MODULES:
        return False
    if isinstance(value, dict):
        return all(_simple(k, depth + 1) and _simple(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_simple(v, depth + 1) for v in value)
    return not callable(value)


def _unittest_case(item):
    """(module, "Class.method", None) of a unittest.TestCase test that needs nothing besides its
    own setUp/tearDown (which TestCase.run calls): no class or module fixtures, no marks."""
    import unittest

    cls, module = item.cls, item.module
    if (
        not issubclass(cls, unittest.TestCase)
        or getattr(module, cls.__name__, None) is not cls
        or any(
            getattr(cls, name).__func__ is not getattr(unittest.TestCase, name).__func__
            for name in ("setUpClass", "tearDownClass")
        )
        or hasattr(module, "setUpModule")
        or hasattr(module, "tearDownModule")
        or list(item.iter_markers())
        or getattr(getattr(cls, item.name, None), "__unittest_expecting_failure__", False)
    ):
        return None
    return (module.__name__, cls.__name__ + "." + item.name, None)


def _plain(items):
    """(module, function, arguments) of tests that need nothing from pytest: no fixtures, marks or
    class; a parametrized test qualifies when its parameters are its only arguments and are simple."""
    import inspect

    plain = []
    for item in items:
        if getattr(item, "cls", None) is not None:
            case = _unittest_case(item)
            if case is None:
                return None
            plain.append(case)
            continue
        function = getattr(item, "function", None)
        callspec = getattr(item, "callspec", None)
        params = dict(callspec.params) if callspec is not None else {}
        if (
            function is None
            or getattr(item, "cls", None) is not None
            or set(getattr(item, "fixturenames", [1])) != set(params)
            or any(mark.name != "parametrize" for mark in item.iter_markers())
            or not all(_simple(v) for v in params.values())
            or inspect.iscoroutinefunction(function)
            or inspect.isgeneratorfunction(function)
            or function.__name__ != getattr(item, "originalname", item.name)
        ):
            return None
        plain.append((item.module.__name__, function.__name__, params))
    return plain


def _warm_up(tests):
    """Collect once, in a forked child, so pytest's plugins (hypothesis alone takes seconds to
    import) and the project's third-party imports can be loaded here before forking: this process
    then imports the modules the child imported besides the workspace's, by name, and never the
    workspace itself. A workspace module that registers a function elsewhere when imported (a
    codec: latexcodec's `codecs.register`) would otherwise be found there first by every child, in
    its original form, whatever candidate the child imported. Returns (plain, complete): the tests
    as plain functions when all of them are (see _direct_body), else None; whether pytest found
    every one of them (see ids.py)."""
    import gc
    import importlib

    import pytest  # noqa: F401  (before the snapshot: pytest's own modules are not the child's news)

    root = os.path.realpath(os.getcwd())
    before = set(sys.modules)

    def answer(items):
        complete = len(items) == len(tests)
        names = [n for n, m in list(sys.modules.items()) if n not in before and not _ours(m, root)]
        return _plain(items) if complete else None, complete, names, list(sys.path)

    found = _collected_in_child(list(tests), answer)
    # pytest put the test folders on sys.path (rootdir-relative imports): the children need them
    plain, complete, names, sys.path[:] = found if found is not None else (None, True, [], sys.path)
    saved = os.dup(1), os.dup(2)
    _quiet()
    try:
        for name in names:
            if name not in sys.modules:
                try:
                    importlib.import_module(name)
                except Exception:  # noqa: S112  (an alias or a lazy module: each child imports it anyway)
                    continue
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    for name, module in list(sys.modules.items()):  # a dependency that imported the workspace
        if _ours(module, root):
            del sys.modules[name]
    # Everything loaded so far lives as long as the worker: freezing it keeps the garbage collector
    # (which pytest runs several times per session) from walking it again in every child.
    gc.collect()
    gc.freeze()
    _bytecode_on()
    return plain, complete


def _collected_in_child(args, answer):
    """answer(items) of pytest's collection of `args`, made in a forked child (whose imports die
    with it) and sent back pickled; None when the child sent nothing."""
    import pickle

    import pytest

    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        try:
            _quiet()
            collector = _Items()
            pytest.main(PYTEST_ARGS + ["--collect-only"] + args, plugins=[collector])
            with os.fdopen(writer, "wb") as out:
                out.write(pickle.dumps(answer(collector.items)))
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    return pickle.loads(data) if data else None


def _ours(module, root):
    """Whether `module` is one of the workspace's (a file under it, not an installed package)."""
    path = getattr(module, "__file__", None)
    return bool(path) and _rel(os.path.realpath(path), root) is not None and "site-packages/" not in path
