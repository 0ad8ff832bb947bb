"""Hot children that run the failing tests as items of the hot server's own pytest session (see
hot_server.py): whether that session may serve them, and the child's run. A child used to start
pytest afresh, which ran the session's hooks, collected and tore everything down on its own; a
child of a session that lives on must do the same or give the candidate back to the usual run."""

import os

from repofix.repair.insandbox.collect import _ours
from repofix.repair.insandbox.common import _bytecode_off

HOT_UNSUPPORTED = 111  # a hot child's exit code: this candidate cannot be patched so
# hooks a workspace's conftest or plugin runs once a session: a fresh pytest in each child ran
# them again (a folder made anew, a database filled, a loop of its own); the server's session
# would have run them once for every candidate
_ONCE = ("pytest_sessionstart", "pytest_runtestloop", "pytest_collection_finish")


def _session_serves(session, tests):
    """Whether the children may run `session`'s items: each of `tests` collected one item, nothing
    failed to collect, no workspace plugin has a once-a-session hook, no session-wide clock runs."""
    if session.testsfailed or len(session.items) != len(set(tests)):
        return False  # a collection error or a test not found: each child's own pytest says so
    root = os.path.realpath(os.getcwd())
    for plugin in session.config.pluginmanager.get_plugins():
        if _ours(plugin, root) and any(hasattr(plugin, hook) for hook in _ONCE):
            return False
    # pytest-timeout's session_timeout counts from the session's start: the server's, long ago
    try:
        clock = session.config.getini("session_timeout")
    except (ValueError, KeyError):
        clock = None
    return not clock and not getattr(session.config.option, "session_timeout", None)


def _session_body(session):
    """In a hot child: the session's items run as `pytest -x` runs them (setup, call, teardown,
    each item told the next, everything torn down after a failure), the exit code 1 when one
    failed, as pytest.main's would be."""

    def body():
        _bytecode_off()
        session.config.option.maxfail = 1  # pytest >= 8 tears all down when the session stops so
        items = session.items
        for i, item in enumerate(items):
            try:
                # the config's hook, as pytest's own loop calls it: every conftest's wrappers, not
                # only those on the item's path
                item.config.hook.pytest_runtest_protocol(
                    item=item, nextitem=items[i + 1] if i + 1 < len(items) else None
                )
            except Exception:  # pytest's runner catches what a test raises: this is no verdict of the tests
                return HOT_UNSUPPORTED  # so the candidate is tried the usual way
            if session.testsfailed or session.shouldfail or session.shouldstop:
                state = getattr(session, "_setupstate", None)
                if state is not None and hasattr(state, "teardown_exact"):  # an older pytest's way
                    try:
                        state.teardown_exact(None)
                    except Exception:  # noqa: S110  (a teardown's error changes no verdict: it failed)
                        pass
                return 1
        return 0

    return body
