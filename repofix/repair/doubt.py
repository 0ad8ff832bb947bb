"""How sure the engine is of a plausible patch: the differential check (the passing tests traced
on the original and on each plausible patch), the rivals it finds (patches the tests accept that
behave otherwise), why a patch is not claimed (`unclaimed`) and the doubts said with one that is
(`doubts`)."""

from __future__ import annotations

import io
import keyword
import time
import tokenize
from collections.abc import Mapping, Sequence

from repofix.repair.checker import Checker
from repofix.repair.limits import Budget
from repofix.repair.localize import RunRecord
from repofix.repair.replies import Differences
from repofix.repair.search import ranked
from repofix.repair.source import Mutation, SourceFile

DIFFERED = 12  # plausible patches the differential check compares, the best-ranked first


def differential(
    checker: Checker,
    choices: list[Mutation],
    found: list[Mutation],
    failing: list[str],
    passing: list[str],
    budget: Budget,
    timeout: float,
    start: float,
    scores: dict[tuple[str, int], float],
) -> Differences:
    """The calls of the passing tests whose return value each plausible patch changes, and what each
    one's calls did on the tests, within what is left of the budget (empty when there is nothing
    to compare or no time): the best-ranked `choices` (one of them is given) and the best-ranked
    of the other plausible patches `found` (the scouts: rivals they may be)."""
    remaining = budget.max_seconds - (time.monotonic() - start)
    if not differential_due(budget, passing, remaining, timeout):
        return Differences()
    return checker.differ(
        compared(choices, found, scores), passing, timeout=timeout, seconds=remaining, failing=failing
    )


def compared(
    choices: list[Mutation],
    found: list[Mutation],
    scores: dict[tuple[str, int], float],
    also: dict[Mutation, int] | None = None,
) -> list[Mutation]:
    """What the differential check compares (at most DIFFERED): the best-ranked choices, half of
    them at most when scouts wait, then the best-ranked scouts."""
    chosen = set(choices)
    scouts = [m for m in found if m not in chosen]
    first = ranked(choices, scores, also)[: DIFFERED - min(len(scouts), DIFFERED // 2)]
    return first + ranked(scouts, scores, also)[: DIFFERED - len(first)]


def differ_seconds(patches: int, run_seconds: float, budget: Budget, passing: list[str]) -> float:
    """What the differential check of `patches` may take: two traced runs of the original and one
    per patch (at most DIFFERED), each up to twice the coverage run's time and a second. The two
    more runs of the original it makes where patches disagree (insandbox/differ.py) take what the
    others leave of this: they are not planned for, so the search for rivals is not cut shorter."""
    if not budget.differential or not passing:
        return 0.0
    return (2 + min(patches, DIFFERED)) * (2 * run_seconds + 1.0)


def rivals(best: Mutation, differ: Differences, sources: dict[str, SourceFile]) -> list[Mutation]:
    """The plausible patches whose calls did something else on the tests than `best`'s: the tests
    accept patches that behave differently, so they cannot tell which one is right. A patch that
    only reads otherwise (`!=` for `<` where the values never meet) behaves alike and is no rival;
    nor is one whose only difference is the calls of a function one of the two adds: what those
    calls return is seen in what their callers do (`islice(seq, isiterable(1), ...)` does as
    `islice(seq, 0, ...)`: toolz's take_nth was given up for it); nor one that changes what the
    passing tests' calls return when `best` does not (the original program's answers there are the
    best evidence of what is meant), nor one of more edits than `best` (one edit is the likelier
    fix, as in `best`)."""
    behaviour, changed = differ.behaviour, differ.changed
    if best not in behaviour:
        return []
    ours = added_calls(sources[best.path], best)
    return [
        m
        for m, digests in behaviour.items()
        if _differing(digests, behaviour[best]) - ours - added_calls(sources[m.path], m)
        and len(m.edits) <= len(best.edits)
        and not changes_more(m, best, changed)
    ]


def changes_more(patch: Mutation, best: Mutation, changed: Mapping[Mutation, list[str]]) -> bool:
    """`patch` changes what calls of the passing tests return and `best` does not: the original
    program's answers there are the best evidence of what is meant, so `patch` is neither a rival
    of `best` nor an alternative to it."""
    return bool(changed.get(patch)) and not changed.get(best)


def _differing(one: dict[str, str], other: dict[str, str]) -> set[str]:
    """The functions whose calls did something else on the tests in `one` than in `other`."""
    return {key.partition(" ")[2] for key in one.keys() | other.keys() if one.get(key) != other.get(key)}


def added_calls(src: SourceFile, mutation: Mutation) -> set[str]:
    """The names a mutation calls that the code it replaces did not: `isiterable` for
    `1 -> isiterable(1)`, `append` for a new `out.append(x)`; and the attributes it reads that the
    code did not, as a property is a call too (`self.nodes.append(node)` calls the getter `nodes`
    where `self._nodes.append(node)` does not: json-graph-lite's, heldout49)."""
    added: set[str] = set()
    for edit in mutation.edits:
        replaced = src.data[edit.start : edit.end].decode("utf-8", "replace")
        added |= called_names(edit.text, attributes=True) - called_names(replaced, attributes=True)
    return added


def called_names(code: str, attributes: bool = False) -> set[str]:
    """The names followed by a call's parenthesis in a piece of code, strings and comments not read;
    with `attributes`, also the names after a dot (an attribute read may call a property); a
    fragment that does not tokenize to its end keeps the names read before."""
    names: set[str] = set()
    last = ""  # the name just read, if the token just read was one
    dot = False  # the token just read was a dot
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.string == "(" and last and not keyword.iskeyword(last):
                names.add(last)
            if attributes and dot and token.type == tokenize.NAME:
                names.add(token.string)
            last = token.string if token.type == tokenize.NAME else ""
            dot = token.string == "."
    except (tokenize.TokenError, SyntaxError):  # an unclosed bracket or a dedent of a cut block
        pass
    return names


def ambiguous(best: Mutation, others: list[Mutation]) -> str:
    shown = "; ".join(f"{m.description} ({m.path}:{m.line})" for m in others[:3])
    more = f" and {len(others) - 3} more" if len(others) > 3 else ""
    return (
        f"the tests cannot tell plausible patches apart: {best.description} ({best.path}:{best.line}) "
        f"passes them, and so do {len(others)} that behave otherwise on them ({shown}{more}); "
        "none is claimed: a test that tells them apart would decide"
    )


def exit_deleted(best: Mutation) -> str:
    return (
        f"the only plausible patch deletes an exit: {best.description} ({best.path}:{best.line}); a test "
        "that stops failing when a raise, break or continue is deleted says nothing of why it was "
        "there, so it is not claimed"
    )


def differential_due(budget: Budget, passing: list[str], remaining: float, timeout: float) -> bool:
    """Whether the differential check runs: asked for, passing tests to trace, time for two runs."""
    return budget.differential and bool(passing) and remaining >= 2 * timeout


def uncorroborated_removal(best: Mutation, runs: list[RunRecord], passing: list[str], backing: int) -> str:
    """Why a patch that only removes code is not claimed (empty: it may be): passing tests ran what
    it removes and pass without it too, so they do not check what it did, or none ran it; either
    way only the failing tests speak for it, and they cannot tell a deleted cause from a deleted
    symptom. Plausible patches that only delete are the commonest wrong ones of test-driven repair
    (Qi et al., "Kali", ISSTA 2015); on the held-aside sets, 6 of the 7 distinct ones claimed
    (deleted exits aside) were wrong. Only a one-test task (HumanEvalFix's kind: the failing test
    is the whole specification) leaves it claimable; where several tests all fail, none checks
    what the removed code did either (cnlunar's 6 failing tests took two dropped calls, both
    wrong). `backing`: how many failing tests the patch makes pass."""
    if not best.removes_only or (not passing and backing <= 1):
        return ""
    where = f"{best.description} ({best.path}:{best.line})"
    if not passing:
        return (
            f"the only plausible patch removes code, and all {backing} tests failed before it: "
            f"{where}; no passing test checks what it did, so it is not claimed"
        )
    lines = set(best.lines or (best.line,))
    kept = set(passing)
    traced = [r for r in runs if r.nodeid in kept and r.traced]
    ran = [r.nodeid for r in traced if lines.intersection(r.lines.get(best.path, ()))]
    if ran:
        return (
            f"the only plausible patch removes code that {len(ran)} passing test(s) ran ({ran[0]}) and "
            f"pass without: {where}; they do not check what it did, so it is not claimed"
        )
    return (
        f"the only plausible patch removes code that none of the {len(traced)} passing test(s) traced "
        f"ran: {where}; only the failing tests speak for it, so it is not claimed"
    )


# Patches that only put one value for another: a constant, a name, a literal. Such a swap can offset
# a fault elsewhere as well as mend one, so plausible patches at other places leave it unclaimed
# (`swap_in_doubt`).
VALUE_SWAPS = frozenset({"constant", "variable", "literal"})


def unclaimed(
    best: Mutation,
    others: list[Mutation],
    runs: list[RunRecord],
    passing: list[str],
    *,
    backing: int,
    found: Sequence[Mutation] = (),
    changed: Mapping[Mutation, list[str]] | None = None,
    withhold_ambiguous: bool = True,
) -> str:
    """Why the best plausible patch is given for review and not claimed (empty: it is claimed), the
    likeliest wrong first: it deletes an exit, it only removes code, or, unless told to claim what
    the tests cannot tell (`withhold_ambiguous` off), rivals behave otherwise on the tests
    (`others`), or it only swaps a value where plausible patches `found` at other places pass too
    (`swap_in_doubt`; `changed`: the differential check's calls each patch changes).

    A patch of another kind that plausible patches at other places match is claimed, with that
    doubt (`doubts`). It was held back from e436802 (6 of 9 such claims on the held-aside sets
    before it were wrong), but of the 36 it held back on heldout23 to heldout44, 31 had the right
    patch: the ranking places them, so holding them back gave up six right patches for each wrong
    one."""
    if best.deletes_exit:
        return exit_deleted(best)
    if why := uncorroborated_removal(best, runs, passing, backing):
        return why
    if not withhold_ambiguous:
        return ""
    if others:
        return ambiguous(best, others)
    return swap_in_doubt(best, found, changed or {})


def swap_in_doubt(best: Mutation, found: Sequence[Mutation], changed: Mapping[Mutation, list[str]]) -> str:
    """Why a patch that only swaps a value (VALUE_SWAPS) is not claimed: plausible patches at other
    places pass the same tests (empty: none does, or the patch is of another kind). A patch that
    changes what calls of the passing tests return where `best` does not is no alternative, as it
    is no rival (`rivals`). On heldout19 to heldout49 as recorded, such swaps with other places
    beside them (claimed, or held back in the days of e436802) were right 19 times and wrong 15
    (constants 12 and 9, names 7 and 6): a coin's odds, where other patches with other places
    beside them were right 120 times and wrong 25 (comparisons 56 and 9). A `1 -> 2` that passes
    where a change two lines away passes too is as likely to offset the fault as to mend it (a
    bound that makes up for a lost `int()`)."""
    if not set(best.op.split("+")) <= VALUE_SWAPS:
        return ""
    alternatives = [m for m in found if not changes_more(m, best, changed)]
    if not (elsewhere := other_places(best, alternatives)):
        return ""
    return (
        f"the best plausible patch only swaps a value: {best.description} ({best.path}:{best.line}), "
        f"and {len(elsewhere)} other place(s) give a plausible patch too ({shown_places(elsewhere)}); "
        "a swap may offset a fault elsewhere as well as mend it, so it is not claimed"
    )


def doubts(
    chosen: Mutation,
    found: list[Mutation],
    changed: list[str] | None = None,
    rivals: list[Mutation] | None = None,
) -> list[str]:
    """Why a plausible patch may be wrong though the tests pass, said with the patch: it changes
    what calls of the passing tests return (the differential check), plausible patches that do
    otherwise on the tests pass them too (`rivals`: the tests cannot tell), it only removes code,
    or other plausible patches elsewhere pass the same tests."""
    why = []
    if changed:
        why.append(f"it changes what {len(changed)} call(s) of the passing tests return ({changed[0]})")
    if rivals:
        shown = ", ".join(f"{m.description} ({m.path}:{m.line})" for m in rivals[:2])
        why.append(
            f"{len(rivals)} plausible patch(es) that behave otherwise on the tests pass them too ({shown})"
        )
    if chosen.removes_only:
        why.append("it only removes code")
    if elsewhere := other_places(chosen, found):
        why.append(f"{len(elsewhere)} other place(s) give a plausible patch too ({shown_places(elsewhere)})")
    return why


def other_places(chosen: Mutation, found: Sequence[Mutation]) -> list[tuple[str, int]]:
    """The places (file, line) of the plausible patches found besides the chosen one's."""
    return sorted({(m.path, m.line) for m in found if m is not chosen} - {(chosen.path, chosen.line)})


def shown_places(places: list[tuple[str, int]]) -> str:
    return ", ".join(f"{p}:{n}" for p, n in places[:3])
