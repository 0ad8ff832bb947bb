"""`apply_edit`: the model's text + the current files -> exact new contents, or errors."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from repofix.edits.files import Files, clean_path
from repofix.edits.gitbinary import BinaryPatchError, apply_delta
from repofix.edits.hunks import HunksOutcome, apply_hunks
from repofix.edits.model import EditError, EditResult, ErrorKind, FileContent, FileEdit, FileSource
from repofix.edits.parse_blocks import BlockParseError, looks_like_blocks, parse_blocks
from repofix.edits.parse_diff import DiffParseError, looks_like_diff, parse_diff
from repofix.edits.report import numbered, similar_paths
from repofix.edits.textfile import TextFile, decode


def parse_edit(text: str) -> tuple[str, list[FileEdit]]:
    """Detect the format and parse; raises EditError (no_edit / malformed)."""
    try:
        if looks_like_blocks(text):
            edits = parse_blocks(text)
            kinds = {"write" if e.kind in ("write", "delete") else "sr" for e in edits}
            fmt = "mixed" if len(kinds) > 1 else ("whole-file" if kinds == {"write"} else "search-replace")
            return fmt, edits
        if looks_like_diff(text):
            return "diff", parse_diff(text)
    except (BlockParseError, DiffParseError) as exc:
        raise EditError(ErrorKind.MALFORMED, f"The edit could not be parsed: {exc}.") from exc
    raise EditError(
        ErrorKind.NO_EDIT,
        "No edit found. Send a unified diff (--- a/path, +++ b/path, @@ hunks), SEARCH/REPLACE blocks, "
        "or a whole-file block, each preceded by the file path.",
    )


def apply_edit(
    text: str,
    files: FileSource,
    *,
    known_paths: Iterable[str] | None = None,
    check_python: bool = True,
    root: str = "",
) -> EditResult:
    """Apply the edit in `text` (any format of `repofix.edits.FORMATS`) to `files`, all or nothing.

    `files` maps repository-relative POSIX paths to contents (str, or bytes for binary files; a
    missing key or None means no such file), or is a function path -> content | None. `known_paths`
    lists the repository's files for "did you mean" suggestions when `files` is a function. `root` is
    where the repository lives for the model (the sandbox's workdir): absolute paths under it are accepted.
    Returns `EditResult.changes` {path: new content, None = deleted} or `EditResult.errors`.
    """
    try:
        fmt, edits = parse_edit(text)
    except EditError as err:
        return EditResult(errors=[err])
    state = Files(files, known_paths)
    result = EditResult(format=fmt)
    counts: dict[str, int] = {}
    for edit in edits:
        try:
            edit.old_path, edit.new_path = clean_path(edit.old_path, root), clean_path(edit.new_path, root)
            if edit.kind == "replace":
                counts[edit.path] = counts.get(edit.path, 0) + 1
            _apply_one(edit, state, result, counts.get(edit.path, 1))
        except EditError as err:
            result.errors.append(err)
    if not result.errors:
        changes = state.changes()
        if check_python:
            result.errors += _python_errors(changes, state)
        if not result.errors:
            result.changes = changes
    return result


def _missing(path: str, state: Files) -> EditError:
    similar = similar_paths(path, state.known | {p for p, c in state.overlay.items() if c is not None})
    hint = f" Similar paths: {', '.join(similar)}." if similar else ""
    return EditError(
        ErrorKind.FILE_NOT_FOUND,
        f"{path}: no such file.{hint} To create a file, use a whole-file block or a diff from /dev/null.",
        path,
        similar_paths=similar,
    )


def _created_content(edit: FileEdit) -> str | bytes | None:
    if edit.content is not None:
        return edit.content
    if edit.binary:
        return None
    new = [t for h in edit.hunks for op, t in h.lines if op != "-"]
    no_eol = bool(edit.hunks) and edit.hunks[-1].new_no_eol
    return "\n".join(new) + ("" if no_eol or not new else "\n")


def _apply_one(edit: FileEdit, state: Files, result: EditResult, block_no: int) -> None:
    path = edit.path
    if edit.kind in ("create", "write"):
        content = _created_content(edit)
        if content is None:
            raise EditError(
                ErrorKind.BINARY, f"{path}: binary file without data; use `git diff --binary`.", path
            )
        current = state.read(path)
        if (
            edit.kind == "create"
            and current is not None
            and current != content
            and (decode(current) or "").strip()
        ):
            if (decode(current) or "").rstrip() == (decode(content) or "").rstrip():
                result.notes.append(f"{path}: already exists with this content; left it unchanged.")
                return
            raise EditError(
                ErrorKind.FILE_EXISTS,
                f"{path}: already exists, so it cannot be created. Edit it with a diff or SEARCH/REPLACE "
                "blocks, or replace it whole with a whole-file block.",
                path,
            )
        state.write(path, content)
        return
    src = edit.old_path or path
    current = state.read(src)
    if current is None:
        if edit.kind == "delete":
            result.notes.append(f"{src}: already absent; nothing to delete.")
            return
        if edit.hunks and all(op == "+" for h in edit.hunks for op, _ in h.lines):
            state.write(path, _created_content(edit))  # a new file sent without /dev/null
            return
        if edit.kind == "rename" and state.read(path) is not None:
            # Renamed already (by an earlier edit): what is left is to apply the hunks there.
            result.notes.append(f"{src}: already renamed to {path}.")
            state.write(path, _modified(edit, state.read(path), result, block_no))  # type: ignore[arg-type]
            return
        raise _missing(src, state)
    if edit.kind == "delete":
        _check_delete(edit, current)
        state.write(src, None)
        return
    target = edit.new_path or src
    if edit.kind in ("rename", "copy") and target != src and state.read(target) is not None:
        raise EditError(
            ErrorKind.FILE_EXISTS,
            f"{target}: already exists, so {src} cannot be {edit.kind}d onto it. Delete it first, or edit it.",
            target,
        )
    new_content = _modified(edit, current, result, block_no)
    if edit.kind == "rename":
        state.write(src, None)
    state.write(edit.new_path or src, new_content)


def _modified(edit: FileEdit, current: str | bytes, result: EditResult, block_no: int) -> str | bytes:
    path = edit.old_path or edit.path
    if edit.binary:
        if edit.content is not None:
            return edit.content
        if edit.binary_delta is not None:
            base = current.encode() if isinstance(current, str) else current
            try:
                return apply_delta(base, edit.binary_delta)
            except BinaryPatchError as exc:
                raise EditError(ErrorKind.BINARY, f"{path}: {exc}.", path) from exc
        if not edit.hunks:
            raise EditError(
                ErrorKind.BINARY, f"{path}: binary change without data; use `git diff --binary`.", path
            )
    if not edit.hunks:
        return current  # pure rename or copy
    text = decode(current)
    if text is None:
        raise EditError(ErrorKind.BINARY, f"{path}: is a binary file; it cannot be edited as text.", path)
    tf = TextFile.parse(text)
    outcome = _one_reading(path, tf, edit)
    if edit.kind == "replace":
        outcome.notes = [n.replace("the SEARCH block", f"SEARCH block {block_no}") for n in outcome.notes]
        for err in outcome.errors:
            err.message = err.message.replace("the SEARCH block", f"SEARCH block {block_no}")
            err.hunk = block_no
    result.notes += outcome.notes
    if outcome.errors:
        raise _first_and_rest(outcome.errors, result)
    tf.lines, tf.final_newline = outcome.lines, outcome.final_newline
    new = tf.render()
    return new.encode() if isinstance(current, bytes) else new


def _one_reading(path: str, tf: TextFile, edit: FileEdit) -> HunksOutcome:
    """Apply the hunks; a SEARCH block that splits several ways must apply in exactly one of them."""
    block = edit.kind == "replace"
    first = apply_hunks(path, tf.lines, tf.final_newline, edit.hunks, block=block)
    if not edit.alternatives:
        return first
    others = [apply_hunks(path, tf.lines, tf.final_newline, hs, block=block) for hs in edit.alternatives]
    good = [o for o in (first, *others) if not o.errors]
    if not good:
        return first
    if len({(tuple(o.lines), o.final_newline) for o in good}) == 1:
        return good[0]
    first.errors = [
        EditError(
            ErrorKind.AMBIGUOUS,
            f"{path}: the SEARCH block can be read more than one way (several '=======' lines, or "
            "'...' lines that may be lines of the file or lines left out). Put the divider on its own "
            "line exactly once, copy the lines in full instead of '...', or send a unified diff.",
            path,
        )
    ]
    return first


def _first_and_rest(errors: list[EditError], result: EditResult) -> EditError:
    result.errors += errors[1:]
    return errors[0]


def _check_delete(edit: FileEdit, current: str | bytes) -> None:
    old = [t for h in edit.hunks for op, t in h.lines if op != "+"]
    if not old:
        return
    text = decode(current)
    actual = TextFile.parse(text).lines if text is not None else []
    if [t.rstrip() for t in old if t.strip()] != [t.rstrip() for t in actual if t.strip()]:
        raise EditError(
            ErrorKind.NO_MATCH,
            f"{edit.old_path}: the deletion's content does not match the file; re-read it before deleting.",
            edit.old_path,
        )


def _python_errors(changes: dict[str, FileContent], state: Files) -> list[EditError]:
    errors = []
    for path, raw in changes.items():
        content = decode(raw) if raw is not None else None
        if not path.endswith((".py", ".pyi")) or content is None:
            continue
        try:
            ast.parse(content, filename=path)
            continue
        except (SyntaxError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            err = exc
        before = state.original(path)
        before_text = decode(before) if before is not None else None
        if before_text is not None:
            try:
                ast.parse(before_text, filename=path)
            except (SyntaxError, ValueError, RecursionError):
                continue  # it did not parse before the edit either
        line = getattr(err, "lineno", None) or 1
        lines = content.splitlines()
        near = numbered(lines[max(line - 3, 0) : line + 2], max(line - 2, 1))
        msg = getattr(err, "msg", str(err))
        errors.append(
            EditError(
                ErrorKind.SYNTAX_ERROR,
                "\n".join([f"{path}: after the edit the file does not parse: {msg} (line {line}):", *near]),
                path,
                candidates=[line],
            )
        )
    return errors
