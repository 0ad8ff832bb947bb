"""Property: a perturbed edit yields the intended file or a refusal, never a different file."""

from __future__ import annotations

import difflib

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from repofix.edits import apply_edit

COMMON = ["", "pass", "return x", ")", "else:", "x = None"]  # lines that repeat, as in real code


@st.composite
def source_lines(draw, prefix: str, min_size: int, max_size: int) -> list[str]:
    n = draw(st.integers(min_size, max_size))
    out = []
    for i in range(n):
        indent = " " * 4 * draw(st.integers(0, 3))
        if draw(st.integers(0, 3)) == 0:
            body = draw(st.sampled_from(COMMON))
        else:
            body = f"{prefix}{i} = f({draw(st.integers(0, 99))})"
        out.append(indent + body if body else "")
    return out


@st.composite
def edits(draw) -> tuple[list[str], list[str]]:
    before = draw(source_lines("v", 1, 40))
    if len(before) > 4 and draw(st.booleans()):
        # Twins: a stretch of the file repeated elsewhere, the hardest case for placing an edit.
        a = draw(st.integers(0, len(before) - 2))
        b = draw(st.integers(a + 1, min(len(before), a + 6)))
        at = draw(st.integers(0, len(before)))
        before = before[:at] + before[a:b] + before[at:]
    start = draw(st.integers(0, len(before) - 1))
    end = draw(st.integers(start, min(len(before), start + 5)))
    new = draw(source_lines("n", 0, 4))
    after = before[:start] + new + before[end:]
    return before, after


def make_diff(before: list[str], after: list[str], context: int) -> list[str]:
    return list(difflib.unified_diff(before, after, "a/f.py", "b/f.py", n=context, lineterm=""))


def perturb(lines: list[str], how: str, amount: int) -> list[str]:
    out = []
    for line in lines:
        if line.startswith(("---", "+++")):
            out.append(line)
        elif line.startswith("@@"):
            if how == "shift":
                out.append(f"@@ -{1 + amount},3 +{1 + amount},3 @@")
            elif how == "no_numbers":
                out.append("@@ @@" if amount % 2 else "@@ ... @@")
            else:
                out.append(line)
        else:
            op, text = line[:1], line[1:]
            if how == "indent" and text.strip():
                text = " " * (amount % 3 + 1) * 2 + text
            elif how == "tabs":
                text = text.replace("    ", "\t")
            elif how == "trailing" and op != "+":
                text = text + " " * (amount % 3)
            elif how == "lost_context" and op == " ":
                text = text.lstrip()
            out.append(op + text)
    if how == "blank":
        # A blank context line left out, between two context lines (next to a change it would
        # change what the edit says).
        inner = [
            i
            for i in range(3, len(out) - 1)
            if out[i] in (" ", "") and out[i - 1][:1] == out[i + 1][:1] == " "
        ]
        if inner:
            del out[inner[amount % len(inner)]]
    if how == "drop" and len(out) > 3:
        inner = [i for i in range(3, len(out) - 1) if out[i][:1] == out[i - 1][:1] == out[i + 1][:1] == " "]
        if inner:
            del out[inner[amount % len(inner)]]
    return out


HOW = ["none", "shift", "no_numbers", "indent", "tabs", "trailing", "drop", "lost_context", "blank"]


# Perturbations an edit must survive, not merely may: where only one reading is possible (see
# placeable), a correct diff, one with wrong line numbers, or one with trailing whitespace added is
# always applied. (Without this, a locator that refused everything would pass every property here.)
MUST_APPLY = ("none", "shift", "trailing")


def count(lines: list[str], part: list[str]) -> int:
    return sum(lines[s : s + len(part)] == part for s in range(len(lines)))


def placeable(lines: list[str], old: list[str], new: list[str]) -> bool:
    """The old lines (some non-blank) occur once in the file and the new ones nowhere: no other place
    and no "already applied" reading compete, so a refusal would be the locator's failure."""
    return any(t.strip() for t in old) and count(lines, old) == 1 and count(lines, new) == 0


def old_sides(lines: list[str]) -> list[list[str]]:
    """Each hunk's lines as the file has them before the edit (its context and removed lines)."""
    sides: list[list[str]] = []
    for line in lines[2:]:
        if line.startswith("@@"):
            sides.append([])
        elif sides and line[:1] in " -":
            sides[-1].append(line[1:])
    return sides


def check(text: str, before: list[str], after: list[str], must_apply: bool = False) -> None:
    original = "".join(t + "\n" for t in before)
    intended = "".join(t + "\n" for t in after)
    result = apply_edit(text, {"f.py": original}, check_python=False)
    assert result.ok or not must_apply, result.message()
    if result.ok:
        assert result.changes.get("f.py", original) == intended, result.notes


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits(), st.integers(0, 3), st.sampled_from(HOW), st.integers(0, 40))
def test_perturbed_diff_gives_intended_file_or_refusal(edit, context, how, amount) -> None:
    before, after = edit
    lines = make_diff(before, after, context)
    if not lines or not any(t[1:].strip() for t in lines[2:] if t[:1] in "+-"):
        return  # only blank lines change: among runs of blanks that may read as already applied
    old_side = [t[1:] for t in lines[2:] if t[:1] in " -" and t[1:].strip()]
    if how in ("indent", "tabs") and not any(t != t.lstrip() for t in old_side):
        return  # no indented line the edit shares with the file: a re-indent cannot be noticed
    if how == "lost_context" and {
        t[1:].strip() for t in lines[2:] if t[:1] == " " and t[1:] != t[1:].lstrip()
    } & set(before):
        return  # a context line that lost its indentation is now another line of the file, word for word
    hunks = ["\n".join(lines[2:]).split("\n@@")]
    hunks = [[t for t in h.split("\n")[1:]] for h in hunks[0]]
    placed = all(
        any(t[:1] == " " and t[1:].strip() for t in h)
        and placeable(before, [t[1:] for t in h if t[:1] in " -"], [t[1:] for t in h if t[:1] in " +"])
        for h in hunks
    )
    moved = perturb(lines, how, amount)
    if any(
        new != was and count(before, new) for new, was in zip(old_sides(moved), old_sides(lines), strict=True)
    ):
        return  # a hunk perturbed into another place of the file word for word: it is meant there
    check("\n".join(moved) + "\n", before, after, how in MUST_APPLY and placed)


# CI found it (ci79): deleting a `pass` indented 8 spaces, its SEARCH re-indented to 12, which is
# the file's other `pass` word for word; the edit went there, as it should
@example(
    edit=(
        ["        pass", *[""] * 7, "            pass", *[""] * 7],
        [*[""] * 7, "            pass", *[""] * 7],
    ),
    context=0,
    how="indent",
    amount=1,
)
@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits(), st.integers(0, 2), st.sampled_from(["none", "indent", "tabs", "trailing"]), st.integers(0, 40)
)
def test_perturbed_search_replace_gives_intended_file_or_refusal(edit, context, how, amount) -> None:
    before, after = edit
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    changed = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changed:
        return
    i1 = max(changed[0][1] - context, 0)
    i2 = min(changed[-1][2] + context, len(before))
    j1 = changed[0][3] - (changed[0][1] - i1)
    j2 = changed[-1][4] + (i2 - changed[-1][2])
    if i1 == i2:
        return  # an insertion with no context: SEARCH would be empty, which means "create the file"
    if how in ("indent", "tabs") and not any(t != t.lstrip() for t in before[i1:i2] if t.strip()):
        return  # no indented line the edit shares with the file: a re-indent cannot be noticed
    search = perturb([" " + t for t in before[i1:i2]], how, amount)
    if [s[1:] for s in search] != before[i1:i2] and count(before, [s[1:] for s in search]):
        return  # re-indented, SEARCH is another place of the file word for word: it is meant there
    replace = perturb(["+" + t for t in after[j1:j2]], how, amount)
    text = "\n".join(
        [
            "f.py",
            "<<<<<<< SEARCH",
            *(s[1:] for s in search),
            "=======",
            *(r[1:] for r in replace),
            ">>>>>>> REPLACE",
        ]
    )
    # A SEARCH with a non-blank line, in the file word for word and once, is never refused.
    placed = placeable(before, before[i1:i2], after[j1:j2])
    check(text + "\n", before, after, placed and (how == "none" or (how == "trailing" and context > 0)))


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits(),
    st.integers(1, 3),
    st.sampled_from([h for h in HOW if h not in ("drop", "lost_context")]),
    st.integers(0, 40),
)
# Found by a CI run: a blank context line left out, and the resent diff's old lines matched with its
# first context line (`pass`) skipped, so the `pass` the edit had kept was deleted.
@example(
    edit=(
        ["", "", "", "", "", "", "", "pass", "", "", "pass", "", "", "", "", "pass", "", ""],
        ["", "", "", "", "", "", "", "pass", "", "", "", "", "pass", "", ""],
    ),
    context=3,
    how="blank",
    amount=0,
)
def test_resending_an_applied_diff_never_changes_the_file(edit, context, how, amount) -> None:
    # (A dropped context line, or context that lost its indentation, can make the old lines occur
    # in the patched file: not tested here.)
    before, after = edit
    lines = make_diff(before, after, context)
    if not lines or not any(t[1:].strip() for t in lines[2:] if t[:1] in "+-"):
        return  # only blank lines change: a file of blanks may hold the old side again, legitimately
    hunks = "\n".join(lines[2:]).split("\n@@")
    olds = [[t[1:] for t in h.split("\n")[1:] if t[:1] in " -"] for h in hunks]
    if any(any(after[s : s + len(o)] == o for s in range(len(after))) for o in olds if o):
        return  # the patched file holds an edit's old lines (twins): applying there is legitimate
    check("\n".join(perturb(lines, how, amount)) + "\n", after, after)


def test_a_header_that_miscounts_its_hunk_does_not_choose_between_like_places() -> None:
    # hypothesis found it in CI: `@@ -1,3 +1,3 @@` over a one-line hunk (`-pass`) in a file with two
    # `pass` lines deleted the first, where the header's line number pointed; the diff meant the
    # second. A header that miscounts its hunk is no tie-breaker: the edit is refused as ambiguous.
    before = ["pass", *[""] * 10, "pass", "", "", ""]
    original = "".join(t + "\n" for t in before)
    result = apply_edit(
        "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n-pass\n", {"f.py": original}, check_python=False
    )
    assert not result.ok and "occur only at the place you mean" in result.message()
    # with a header that counts right, its line number still chooses
    right = apply_edit(
        "--- a/f.py\n+++ b/f.py\n@@ -12 +11,0 @@\n-pass\n", {"f.py": original}, check_python=False
    )
    assert right.ok and right.changes["f.py"] == "pass\n" + "\n" * 13
