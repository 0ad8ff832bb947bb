"""JUnit XML names -> pytest node ids, written once for the host (repofix.testing.junit) and the
sandbox: agent/execute.py preloads this file's text before agent/sandbox_helpers.py, so it stays
stdlib-only, Python >= 3.8, and imports nothing of repofix."""

import re as _re


def nodeid_from_junit(classname: str, name: str, file: "str | None" = None) -> str:
    """Best-effort node id from JUnit's classname/name, for reports written without our plugin.

    pytest's junitxml turns `a/b/test_x.py::TestA::TestB::test[p]` into classname
    `a.b.test_x.TestA.TestB` and name `test[p]`. Class names never contain dots, so with the
    `file` attribute (junit_family=xunit1) the split is exact; without it we assume the module is
    everything up to the first component that starts with an upper-case letter.
    """
    if not classname:  # a module that failed to collect: name is the dotted module path
        return file or name.replace(".", "/") + ".py"
    parts = classname.split(".")
    if file:
        module_parts = len(_re.sub(r"\.py$", "", file).replace("\\", "/").split("/"))
    else:
        module_parts = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts))
        file = "/".join(parts[:module_parts]) + ".py"
    return "::".join([file, *parts[module_parts:], name])
