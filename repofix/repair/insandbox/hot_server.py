"""The hot server (see hot.py): imports the workspace once, under a tracer that notes every
function that runs meanwhile, indexes the live functions of its modules and classes, and tries
each candidate it is sent in a forked child that compiles the changed `def` alone and gives its
live functions the new code. A function is never patched so when it, or code inside it, ran while
the workspace was imported (what it made then would stay as it was), nor when its closure would
not fit, nor when it is not a plain `def` of the module or of its classes.

The child calls plain test functions directly; tests that take fixtures (or are a class's, or
parametrized with objects) it runs as items of the session that collected them, which the server
serves from inside (`pytest_runtestloop`): a new pytest session's start and collection in every
child took most of a candidate's time (icfpy: 107 ms a rejection, 36 ms so)."""

import __future__

import ast
import gc
import json
import os
import sys
import types

from repofix.repair.insandbox.children import _apply, _BareReports, _direct_body, _in_child, _pytest_body
from repofix.repair.insandbox.collect import _ours
from repofix.repair.insandbox.common import PYTEST_ARGS
from repofix.repair.insandbox.hot_session import (
    HOT_UNSUPPORTED,
    _session_body,
    _session_serves,
)

_HOT_FUTURES = {name: getattr(__future__, name).compiler_flag for name in __future__.all_feature_names}


def _hot_serve(tests, plain, requests, replies):
    import pytest

    called = set()

    def note(frame, event, arg):  # every function that runs while the workspace is imported
        called.add(frame.f_code)

    class _Serve:
        """Serves from inside the session that collected the failing tests: a child then runs
        those items as pytest runs them (_session_body), without a new session's start and
        collection, most of a hot candidate's time when the tests take fixtures."""

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtestloop(self, session):
            sys.settrace(None)
            body = _session_body(session) if _session_serves(session, tests) else _pytest_body(tests)
            _serve(called, requests, replies, body)
            return True

    sys.settrace(note)
    try:
        if plain:  # plain functions, called directly
            # without capturing: what the workspace binds on import (`def show(out=sys.stderr)`, a
            # module's `OUT = sys.stdout`) would keep pytest's capture stream, closed when this
            # session ends, and every hot child writing to it fail (progress2's ProgressText,
            # heldout55: the right `self.update()` was rejected so, three bugs of five)
            pytest.main(PYTEST_ARGS + ["--collect-only", "--capture=no"] + list(tests))
        else:
            pytest.main(PYTEST_ARGS + list(tests), plugins=[_Serve(), _BareReports()])
    finally:
        sys.settrace(None)
    if plain:
        _serve(called, requests, replies, _direct_body(plain))


def _serve(called, requests, replies, body):
    """Index the live functions, then answer candidates until the requests end."""
    functions = _hot_functions(os.path.realpath(os.getcwd()))
    # as in the warm-up: what the workspace made lives as long as this server; frozen, a child's
    # garbage collector does not walk it (and copy its pages) again
    gc.collect()
    gc.freeze()
    sources, defs = {}, {}  # path -> the original's bytes, its defs
    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in requests:
        req = json.loads(line)
        if "read" in req:
            sources[req["read"]] = req["data"].encode("latin-1")
            continue
        original = sources.get(req["path"])
        if original is not None and req["path"] not in defs:
            defs[req["path"]] = _hot_defs(original, req["path"])
        target = _hot_target(defs.get(req["path"]), req["edits"], functions, called)
        reply = {"hot": False}
        if target is not None:
            run = _hot_body(target, _apply(original, req["edits"]), req["edits"], body)
            ok, reason = _in_child(run, float(req["limit"]))
            if reason != "exit %d" % HOT_UNSUPPORTED:
                reply = {"hot": True, "ok": ok, "reason": reason}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def _hot_functions(root):
    """(real file, first line, name) -> the live functions of the workspace's modules and of their
    classes (methods, static and class methods, properties' functions, what a wrapper wraps)."""
    found, seen, real = {}, set(), {}

    def add(obj, depth):
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, property):
            for part in (obj.fget, obj.fset, obj.fdel):
                add(part, depth)
            return
        if id(obj) in seen or depth > 8:
            return
        try:
            attributes = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            attributes = {}
        if isinstance(obj, types.FunctionType):
            seen.add(id(obj))
            code = obj.__code__
            if code.co_filename not in real:
                real[code.co_filename] = os.path.realpath(code.co_filename)
            found.setdefault((real[code.co_filename], code.co_firstlineno, code.co_name), []).append(obj)
        elif isinstance(obj, type):
            seen.add(id(obj))
            for value in list(attributes.values()):
                add(value, depth + 1)
            return
        wrapped = attributes.get("__wrapped__") if isinstance(attributes, dict) else None
        if wrapped is not None:  # functools.wraps, lru_cache
            add(wrapped, depth + 1)

    for module in list(sys.modules.values()):
        if _ours(module, root):
            for value in list(vars(module).values()):
                add(value, 0)
    return found


def _hot_defs(data, path):
    """The plain `def`s of a module and of its classes (not inside a function or a block) as
    (first byte, body's first byte, end byte, first line, name, classes, file, future flags)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    starts = [0]
    for line in data.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            flags |= sum(_HOT_FUTURES.get(alias.name, 0) for alias in node.names)
    defs, todo = [], [(tree.body, ())]
    while todo:
        body, classes = todo.pop()
        for node in body:
            if isinstance(node, ast.ClassDef):
                todo.append((node.body, classes + (node.name,)))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                line = data[starts[first - 1] : starts[first]]
                code = line.lstrip(b" ")
                if len(line) - len(code) < len(classes) or not code.startswith((b"@", b"def ", b"async ")):
                    continue  # tabs, or something else before it on its line: not compiled alone
                defs.append(
                    (
                        starts[first - 1],
                        starts[node.body[0].lineno - 1] + node.body[0].col_offset,
                        starts[node.end_lineno - 1] + node.end_col_offset,
                        first,
                        node.name,
                        classes,
                        os.path.realpath(path),
                        flags,
                    )
                )
    return defs


def _hot_target(defs, edits, functions, called):
    """The def whose body holds every edit, when its live functions can take a new code."""
    if not defs or not edits:
        return None
    low, high = min(e[0] for e in edits), max(e[1] for e in edits)
    for start, body, end, first, name, classes, real, flags in defs:
        if body <= low and high <= end:
            live = functions.get((real, first, name))
            if not live or any(_hot_ran(f.__code__, called) for f in live):
                return None
            return (start, end, first, name, classes, real, flags, live)
    return None


def _hot_ran(code, called):
    if code in called:
        return True
    return any(isinstance(c, types.CodeType) and _hot_ran(c, called) for c in code.co_consts)


def _hot_body(target, data, edits, run):
    """In the hot child: compile the changed def alone (inside its classes, for names mangled
    there and `super()`), at its own lines, and give its live functions the new code."""
    start, end, first, name, classes, real, flags, live = target

    def body():
        grown = sum(len(text.encode("utf-8")) - (e - s) for s, e, text in edits)
        wrapper = "".join(" " * i + "class %s:\n" % c for i, c in enumerate(classes))
        try:
            tree = ast.parse(wrapper + data[start : end + grown].decode("utf-8"))
            node = tree
            for _ in classes:
                node = node.body[0] if len(node.body) == 1 else None
                if not isinstance(node, ast.ClassDef):
                    return HOT_UNSUPPORTED
            if len(node.body) != 1 or getattr(node.body[0], "name", None) != name:
                return HOT_UNSUPPORTED  # the edit made more than the def (a statement after it)
            ast.increment_lineno(tree, first - 1 - len(classes))
            code = _hot_code(compile(tree, real, "exec", flags, dont_inherit=True), name, first)
            if code is None or any(f.__code__.co_freevars != code.co_freevars for f in live):
                return HOT_UNSUPPORTED
            for function in live:
                function.__code__ = code
        except (SyntaxError, ValueError, UnicodeDecodeError):
            return HOT_UNSUPPORTED
        return run()

    return body


def _hot_code(code, name, first):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first:
                return const
            found = _hot_code(const, name, first)
            if found is not None:
                return found
    return None
