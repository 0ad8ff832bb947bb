"""Condensed test feedback for the model, under a token budget.

What a model needs to fix the next failure: counts; what newly fails, still fails and newly
passes; per failure the test id, the message (with pytest's comparison detail), the deepest
frames inside the repository with their source lines, and the tail of captured output.
Identical failures are grouped. When over budget, the least useful parts go first: captured
output, then extra frames and context lines, then long messages, then whole failure blocks
(still failing before newly failing, last before first), which are then listed by id only.
The text always says what was left out and where the full log is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from repofix.models.tokens import CHARS_PER_TOKEN, count_text, estimate_tokens, fit
from repofix.testing.frames import frame_lines, pick_frames
from repofix.testing.model import Outcome, RunStatus, TestResult, TestRun
from repofix.testing.text import cap_line, clean, condense_output

# Tokens. Enough to name every failing test of a run with ~250 failures (see evals/bench_feedback.py);
# small runs use far less, since only what is needed is written.
DEFAULT_BUDGET = 4000
# Per detail level: message lines, frames shown, source lines per frame, captured output lines.
_OTHERS = 8
_KEEP = 3  # failure blocks never reduced to a bare id
_LEVELS = {4: (20, 3, 3, 8), 3: (12, 2, 2, 0), 2: (6, 2, 1, 0), 1: (2, 1, 1, 0)}


@dataclass
class _Group:
    results: list[TestResult]
    tag: str  # "new", "still failing" or ""
    level: int = 4
    others: int | None = None  # how many of the other tests with this failure to name; None: all
    lines: list[str] = field(default_factory=list)
    size: int = 0  # characters of `lines`, newlines included


def condense(
    current: TestRun,
    baseline: TestRun | None = None,
    *,
    budget: int = DEFAULT_BUDGET,
    flaky: Iterable[str] = (),
    workdir: str = "",
) -> str:
    """The feedback text for `current`, compared with `baseline` when given, within `budget` tokens
    of a real tokenizer. The layout works on a fast estimate; when the real count is over, it is
    redone with a proportionally smaller estimate budget."""
    target = budget
    for _ in range(4):
        text = _condense(current, baseline, budget=target, flaky=set(flaky), workdir=workdir)
        real = count_text(text)
        if real <= budget:
            return text
        target = max(int(target * budget / real * 0.97), 50)
    return fit(text, budget, _where(current))


def _condense(
    current: TestRun, baseline: TestRun | None, *, budget: int, flaky: set[str], workdir: str
) -> str:
    head = _header(current, baseline, flaky)
    if not current.structured or (not current.failing and current.status is not RunStatus.COMPLETED):
        room = max(budget - estimate_tokens("\n".join(head)) - 40, 100)
        text, left_out = condense_output(current.output, room, workdir)
        tail = [f"[{left_out} lines of output left out. {_where(current)}]"] if left_out else []
        return "\n".join(head + ["", "Output:", text] + tail)
    if current.status in (RunStatus.CRASHED, RunStatus.TIMEOUT):  # how it died is in the output's end
        text, _ = condense_output(
            "\n".join(current.output.splitlines()[-200:]), min(400, budget // 4), workdir
        )
        head = head + ["", "End of the output:", text]
    layout = _Layout(head, _groups(current, baseline), current, workdir, budget)
    groups = layout.groups
    # Least useful first, lowest-priority groups first: captured output, context lines, long
    # messages, long lists of tests with the same failure, then whole blocks (ids only).
    for step in (4, 3, 2, "others", 1):
        # The first few failures always keep their message and deepest frame: a list of ids alone
        # tells the model nothing to fix.
        for g in reversed(groups[_KEEP:] if step == 1 else groups):
            if layout.fits():
                break
            if step == "others":
                if g.level and g.others is None and len(g.results) > 1 + _OTHERS:
                    g.others = _OTHERS
                    layout.update(g)
            elif g.level == step:
                g.level = step - 1
                layout.update(g)
    layout.refill()
    if estimate_tokens(layout.text()) > budget:  # even the ids do not fit: list as many as fit
        low, high = 0, len(layout.footer_ids)
        while low < high:
            layout.shown = (low + high + 1) // 2
            low, high = (
                (layout.shown, high) if estimate_tokens(layout.text()) <= budget else (low, layout.shown - 1)
            )
        layout.shown = low
    final = layout.text()
    if estimate_tokens(final) > budget:  # a pathological header or block: hard cut, said so
        final = (
            cap_line(final, budget * CHARS_PER_TOKEN - 120)
            + f"\n[cut to the token budget. {_where(current)}]"
        )
    return final


_RESERVE = 400  # characters kept free for the "Left out ..." line while trimming


class _Layout:
    """Keeps running character counts so trimming thousands of failures stays linear."""

    def __init__(self, head: list[str], groups: list[_Group], run: TestRun, workdir: str, budget: int):
        self.head, self.groups, self.run, self.workdir, self.budget = head, groups, run, workdir, budget
        self.footer_ids: list[str] = []
        self.shown: int | None = None  # how many footer ids are named; None: all
        self.chars = sum(len(line) + 1 for line in head) + _RESERVE
        for g in groups:
            self.update(g)

    def update(self, g: _Group) -> None:
        self.chars -= g.size
        if g.level == 0 and g.lines:  # the block goes; its ids join the footer list
            self.footer_ids[:0] = [r.id for r in g.results]
            self.chars += sum(len(r.id) + 2 for r in g.results)
        g.lines = _render(g, self.workdir) if g.level else []
        g.size = sum(len(line) + 1 for line in g.lines)
        self.chars += g.size

    def fits(self) -> bool:
        return estimate_tokens(self.chars) <= self.budget  # without building the text

    def text(self) -> str:
        body = [line for g in self.groups for line in g.lines]
        return "\n".join(self.head + body + _footer(self.footer_ids, self.groups, self.run, self.shown))

    def refill(self) -> None:
        """Trimming went group by group, so budget may be left: give detail back, most important first."""
        for g in self.groups:
            if g.level == 0:
                continue
            if g.others is not None:  # name as many of the tests with the same failure as fit
                low, high = g.others, len(g.results) - 1
                while low < high:
                    g.others = (low + high + 1) // 2
                    self.update(g)
                    low, high = (g.others, high) if self.fits() else (low, g.others - 1)
                g.others = None if low >= len(g.results) - 1 else low
                self.update(g)
            while g.level < 4:
                g.level += 1
                self.update(g)
                if not self.fits():
                    g.level -= 1
                    self.update(g)
                    break


def _header(run: TestRun, baseline: TestRun | None, flaky: set[str]) -> list[str]:
    lines = [f"Tests: {run.summary()}"]
    if run.selection:
        lines.append(f"(only {len(run.selection)} selected test(s)/file(s) ran, not the full suite)")
    if baseline is not None and run.structured:
        before = {i for i in baseline.failing}
        now = set(run.failing)
        new, still = now - before, now & before
        passing = [i for i in baseline.failing if i in run.results and run.results[i].outcome.ok]
        lines.append(
            f"Against baseline: {len(new)} newly failing, {len(still)} still failing, "
            f"{len(passing)} newly passing."
        )
        if passing:
            lines.append("Newly passing: " + ", ".join(passing))
    shown_flaky = sorted(flaky & set(run.failing))
    if shown_flaky:
        lines.append("Flaky (fail without a code change; not counted): " + ", ".join(shown_flaky))
    return lines


def _groups(run: TestRun, baseline: TestRun | None) -> list[_Group]:
    before = set(baseline.failing) if baseline is not None else None
    groups: dict[tuple, _Group] = {}
    for r in run.results.values():
        if not r.outcome.bad:
            continue
        tag = "" if before is None else ("still failing" if r.id in before else "new")
        deepest = r.repo_frames[-1] if r.repo_frames else None
        # Modules failing to collect for the same reason are one failure wherever they import it.
        where = "" if r.phase == "collect" or deepest is None else deepest.location
        key = (tag, r.outcome, clean(r.message), where)
        if key in groups:
            groups[key].results.append(r)
        else:
            groups[key] = _Group([r], tag)
    order = {"new": 0, "": 0, "still failing": 1}
    return sorted(groups.values(), key=lambda g: order[g.tag])  # stable: run order within a tag


def _render(group: _Group, workdir: str) -> list[str]:
    max_msg, max_frames, max_src, max_out = _LEVELS[group.level]
    first = group.results[0]
    label = {Outcome.FAILED: "FAILED", Outcome.ERROR: "ERROR"}[first.outcome]
    phase = f" (in {first.phase})" if first.outcome is Outcome.ERROR and first.phase != "call" else ""
    tag = f" [{group.tag}]" if group.tag else ""
    lines = ["", f"{label} {first.id}{phase}{tag}"]
    message = [ln for ln in clean(first.message, workdir).splitlines() if ln.strip()]
    for ln in message[:max_msg]:
        lines.append("  " + cap_line(ln, 300 if group.level > 1 else 200))
    if len(message) > max_msg:
        lines.append(f"  [… {len(message) - max_msg} more message lines]")
    for frame in pick_frames(first, max_frames):
        lines.extend(frame_lines(frame, max_src, workdir))
    cause = [f for f in first.frames if f.cause and f.error]
    if cause and group.level >= 3:
        lines.append(
            f"  caused by: {cap_line(cause[-1].error[-1], 200)} at {clean(cause[-1].location, workdir)}"
        )
    if max_out:
        for name, text in (("stdout", first.stdout), ("stderr", first.stderr), ("log", first.log)):
            out = [ln for ln in clean(text, workdir).splitlines() if ln.strip()]
            if out:
                cut = f" (last {max_out} of {len(out)} lines)" if len(out) > max_out else ""
                lines.append(f"  captured {name}{cut}:")
                lines.extend("    " + cap_line(ln, 200) for ln in out[-max_out:])
    if len(group.results) > 1:
        others = [r.id for r in group.results[1:]]
        named = others if group.others is None else others[: group.others]
        more = f" (+{len(others) - len(named)} more)" if len(named) < len(others) else ""
        lines.append(f"  Same failure in {len(others)} more: " + ", ".join(named) + more)
    return lines


def _footer(footer_ids: list[str], groups: list[_Group], run: TestRun, shown: int | None) -> list[str]:
    lines: list[str] = []
    named = footer_ids if shown is None else footer_ids[:shown]
    if footer_ids:
        more = f" (+{len(footer_ids) - len(named)} more)" if len(named) < len(footer_ids) else ""
        lines += ["", f"Also failing (details left out): {', '.join(named)}{more}"]
    partial = [g for g in groups if 0 < g.level < 4 or g.others is not None]
    if partial or footer_ids:
        parts = []
        if footer_ids:
            parts.append(f"details of {len(footer_ids)} failure(s)")
        capped = sum(len(g.results) - 1 - g.others for g in groups if g.level and g.others is not None)
        if capped or len(named) < len(footer_ids):
            parts.append(f"ids of {capped + len(footer_ids) - len(named)} failing test(s)")
        for level, what in ((3, "captured output"), (2, "extra frames and context"), (1, "long messages")):
            n = sum(len(g.results) for g in groups if 0 < g.level <= level)
            if n:
                parts.append(f"{what} of {n} failure(s)")
        lines += ["", f"Left out to fit the budget: {'; '.join(parts)}. {_where(run)}"]
    return lines


def _where(run: TestRun) -> str:
    if run.log_path:
        return f"Full log: {run.log_path}"
    return f"Full log: re-run `{run.command}`"
