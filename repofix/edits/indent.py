"""Indentation: how a file's indentation relates to an edit's (width + delta, tabs or spaces), so an
edit written at another indentation can still be placed and re-indented."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Indent:
    """How the file's indentation relates to the edit's: width + delta, rendered with tabs or spaces.

    Only lines written in the edit's own style are re-indented: a tab-indented line in an edit whose
    matched lines use spaces (a string's content, say) and whitespace-only lines stay as written.
    """

    tabsize: int
    delta: int
    tabs: bool
    edit_tabs: bool = True  # the edit's matched lines are tab-indented: its tabs stand for the file's
    proven: bool = True  # removed lines show the change, or it does not take indentation away

    def apply(self, line: str) -> str | None:
        body = line.lstrip(" \t")
        if not body or ("\t" in indent_of(line) and not self.edit_tabs):
            return line
        width = _width(line[: len(line) - len(body)], self.tabsize) + self.delta
        if width < 0:
            return None
        lead = "\t" * (width // self.tabsize) + " " * (width % self.tabsize) if self.tabs else " " * width
        return lead + body


def _width(indent: str, tabsize: int) -> int:
    return len(indent.expandtabs(tabsize))


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_transform(
    pairs: list[tuple[str, str]], added: list[str], removed: list[bool] | None = None
) -> tuple[bool, Indent | None]:
    """(consistent?, transform) mapping the edit's indentation onto the file's; None = identical.

    `removed[i]` says pair i is a removed line. A width change seen only on context lines is not
    proof that the added lines were written with it too when the edit is indented less than the file
    (the model may have lost the context's indentation but not its own): such a transform is marked
    unproven. Indentation is lost, never gained, so an edit indented more than the file shifts whole.
    """
    flags = removed or [False] * len(pairs)
    kept = [(e, f, r) for (e, f), r in zip(pairs, flags, strict=True) if e.strip()]
    if all(indent_of(e) == indent_of(f) for e, f, _ in kept):
        return True, None
    file_indents = [indent_of(f) for _, f, _ in kept if indent_of(f)]
    tabs = bool(file_indents) and all(i.startswith("\t") for i in file_indents)
    edit_tabs = any("\t" in indent_of(e) for e, _, _ in kept)
    for tabsize in (4, 8):
        deltas = {_width(indent_of(f), tabsize) - _width(indent_of(e), tabsize) for e, f, _ in kept}
        if len(deltas) == 1:
            delta = deltas.pop()
            proven = delta <= 0 or any(r for _, _, r in kept)
            transform = Indent(tabsize, delta, tabs, edit_tabs, proven)
            if all(transform.apply(a) is not None for a in added):
                return True, transform
    return False, None
