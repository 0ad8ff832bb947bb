"""Bounded observations: whatever an action prints, the model gets at most a token budget of it,
and the full text stays in a file inside the sandbox (outside the repository) that the model can
`view` or `grep`. A shell command's output goes straight to that file, so a 40 MB flood is kept
whole there (the sandbox's capped pipe never sees it) while the model reads its head and tail."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from dataclasses import dataclass, field

from repofix.models.tokens import count_text, fit, head_tail
from repofix.sandboxes import CommandResult, Sandbox
from repofix.testing.model import TestRun

LOG_DIR_NAME = "repofix-logs"
# A file under the log directory, as named in observations (the history's records point at it too).
LOG_PATH = re.compile(r"/\S*/" + LOG_DIR_NAME + r"/[\w.\-]+")
SHORT = 200  # characters: an observation this short needs no file of its own

# Reads a log's size, line count, head and tail; never more than 2 x HEAD bytes come back.
_READ = (
    "import json,os,sys\n"
    "p,n=sys.argv[1],int(sys.argv[2])\n"
    "try: size=os.path.getsize(p)\n"
    "except OSError: print(json.dumps(None)); sys.exit()\n"
    "lines=0\n"
    "with open(p,'rb') as f:\n"
    "    head=f.read(n)\n"
    "    lines=head.count(b'\\n')\n"
    "    while True:\n"
    "        chunk=f.read(1<<20)\n"
    "        if not chunk: break\n"
    "        lines+=chunk.count(b'\\n')\n"
    "    f.seek(max(size-n,len(head)))\n"
    "    tail=f.read()\n"
    "print(json.dumps({'size':size,'lines':lines,'whole':len(head)+len(tail)>=size,"
    "'head':head.decode('utf-8','replace'),'tail':tail.decode('utf-8','replace')}))\n"
)
# Lines start..end of a file outside the workspace (a saved log), each line capped.
_LINES = (
    "import json,sys\n"
    "p,a,b=sys.argv[1],int(sys.argv[2]),int(sys.argv[3])\n"
    "out,total=[],0\n"
    "try:\n"
    "    with open(p,'rb') as f:\n"
    "        for total,line in enumerate(f,1):\n"
    "            if a<=total<=b: out.append(line[:2000].decode('utf-8','replace').rstrip('\\n'))\n"
    "except OSError: print(json.dumps(None)); sys.exit()\n"
    "print(json.dumps({'lines':out,'total':total}))\n"
)


@dataclass
class Observer:
    """Turns what actions produced into observations within `budget` tokens, saving full texts
    under `directory` inside the sandbox (made on first use)."""

    sandbox: Sandbox
    budget: int = 2000
    directory: str = ""
    _made: bool = field(default=False, repr=False)
    _names: set[str] = field(default_factory=set, repr=False)

    def __post_init__(self) -> None:
        if not self.directory:  # the sandbox's own /tmp (the `none` backend's scratch TMPDIR)
            tmp = (getattr(self.sandbox, "env", None) or {}).get("TMPDIR") or "/tmp"
            self.directory = f"{tmp.rstrip('/')}/{LOG_DIR_NAME}"

    def log_path(self, step: int, kind: str) -> str:
        """A new file name for step `step`'s full `kind` output."""
        if not self._made:
            made = self.sandbox.run(["mkdir", "-p", self.directory], timeout=60, clean=True)
            if not made.ok:
                raise RuntimeError(f"cannot make {self.directory} in the sandbox: {made.output[-300:]}")
            self._made = True
        name, n = f"step-{step:03d}-{kind}.log", 1
        while name in self._names:
            n += 1
            name = f"step-{step:03d}-{kind}-{n}.log"
        self._names.add(name)
        return f"{self.directory}/{name}"

    def sandbox_restarted(self) -> None:
        """The sandbox's runner was restarted: its /tmp may be a new one, so the log folder is made again."""
        self._made = False

    def is_log(self, path: str) -> bool:
        return path.startswith(self.directory + "/") and ".." not in path.split("/")

    # -- actions -----------------------------------------------------------------------------
    def shell(self, command: str, timeout: float, step: int) -> str:
        """Run `command` in the session shell with everything it prints going to a log file."""
        if not command.strip():
            return describe(self.sandbox.run(command, timeout=timeout), "(no output)")
        log = self.log_path(step, "shell")
        # A `{ }` group runs in the session shell itself (not a subshell), so `cd` and `export`
        # persist as before; the blank line ends a trailing backslash continuation.
        result = self.sandbox.run(f"{{ {command}\n\n}} >{shlex.quote(log)} 2>&1", timeout=timeout)
        # repofix's own reader: the starting environment, not the model's PATH (it may hold a fake python3)
        got = self.sandbox.run(
            ["python3", "-c", _READ, log, str(min(self.budget * 8, 16384))], timeout=60, clean=True
        )
        info = _json_or_none(got.stdout) if got.ok else None
        direct = result.output.rstrip()  # what escaped the redirection (e.g. a syntax error)
        if not info:
            return describe(result, direct or "(no output)")
        head, tail, size = info["head"], info["tail"], info["size"]
        text = "\n".join(part for part in (direct, (head + tail).rstrip()) if part) or "(no output)"
        if info["whole"] and count_text(text) <= self.budget:
            return describe(result, text)
        note = (
            f"the full output ({_size(size)}, {info['lines']} lines) is in {log}: read parts with "
            f"`view` (start/end) or grep it"
        )
        if info["whole"]:
            return describe(result, fit(text, self.budget, note), full_log=log)
        # Only the file's two ends came back: show as much of each as fits, the tail favoured.
        marker = f"\n[... the middle of the output is left out; {note} ...]\n"
        room = max(self.budget - count_text(marker) - count_text(direct) - 4, 32)
        first, _, _ = head_tail(head, room * 2 // 5, tail_share=0.0)
        _, last, _ = head_tail(tail, room - room * 2 // 5, tail_share=1.0)
        shown = "\n".join(part for part in (direct, first.rstrip("\n")) if part)
        return describe(result, shown + marker + last.rstrip("\n"), full_log=log)

    def python(self, result: CommandResult, step: int) -> str:
        """A `python` action's result; its output is what the sandbox captured (head and tail of each stream)."""
        text = result.output.rstrip() or "(no output)"
        if count_text(text) <= self.budget:
            return describe(result, text)
        log = self.save(text, step, "python")
        return describe(
            result, fit(text, self.budget, f"the full output is in {log}: `view` or grep it"), full_log=log
        )

    def bound(self, text: str, step: int, kind: str, budget: int | None = None) -> str:
        """Any observation text within `budget` (default: the observation budget), saved in full when cut."""
        budget = budget or self.budget
        if count_text(text) <= budget:
            return text
        log = self.save(text, step, kind)
        return fit(text, budget, f"the full text is in {log}: `view` or grep it")

    def keep(self, observation: str, step: int) -> str:
        """Where the model can read `observation` in full once its history shows only a one-line
        record: the log it names, or a new file; "" when it is short enough to need none."""
        named = LOG_PATH.findall(observation)
        if named:
            return named[-1]
        return self.save(observation, step, "observation") if len(observation) > SHORT else ""

    def save(self, text: str, step: int, kind: str) -> str:
        """Write `text` to a new log file inside the sandbox; returns its path."""
        log = self.log_path(step, kind)
        saved = self.sandbox.run(
            ["sh", "-c", 'cat > "$1"', "sh", log],
            stdin=text.encode("utf-8", "replace"),
            timeout=60,
            clean=True,
        )
        if not saved.ok:
            raise RuntimeError(f"cannot save an observation to {log} in the sandbox: {saved.output[-300:]}")
        return log

    def test_log(self, run: TestRun, step: int, kind: str = "tests") -> TestRun:
        """`run` naming a copy of its full output inside the sandbox, for feedback that says "Full log:"
        (the host's copy in the run folder, or the verification sandbox's, is out of the model's reach)."""
        return dataclasses.replace(run, log_path=self.save(f"$ {run.command}\n{run.output}", step, kind))

    def view_log(self, path: str, start: int, end: int) -> str:
        """Lines start..end of a saved log, numbered, within the budget."""
        got = self.sandbox.run(["python3", "-c", _LINES, path, str(start), str(end)], timeout=60, clean=True)
        info = _json_or_none(got.stdout) if got.ok else None
        if info is None:
            return f"{path}: no such log (logs last as long as this sandbox)."
        return numbered(path, info["lines"], start, info["total"], self.budget)


def numbered(path: str, lines: list[str], start: int, total: int, budget: int) -> str:
    """`lines` (the file's lines from `start` on) with line numbers, as many as fit `budget` tokens."""
    shown = [f"{start + i:5d}  {line[:2000]}" for i, line in enumerate(lines)]
    low, high = 0, len(shown)
    if count_text("\n".join(shown)) > budget - 60:  # as many whole lines as fit
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (
                (middle, high) if count_text("\n".join(shown[:middle])) <= budget - 60 else (low, middle - 1)
            )
        shown = shown[:low]
    if not shown and lines:  # one line longer than the budget: cut it
        shown = [fit(f"{start:5d}  {lines[0]}", budget - 60)]
    end = start + max(len(shown), 1) - 1
    more = f"\n[lines {end + 1}-{total} not shown: view with start={end + 1}]" if end < total else ""
    return f"{path} (lines {start}-{end} of {total})\n" + "\n".join(shown) + more


def describe(result: CommandResult, text: str | None = None, full_log: str = "") -> str:
    """A command's result for the model: output (or `text`), then what happened, said plainly."""
    parts = [text if text is not None else (result.output.rstrip() or "(no output)")]
    if result.timed_out:
        parts.append(
            f"[timed out after {result.duration:.0f}s; the command and everything it started were killed]"
        )
    elif result.oom_killed:
        parts.append("[killed: out of memory]")
    elif result.exit_code is None:
        parts.append(f"[killed by signal {result.signal}]")
    elif result.exit_code != 0:
        parts.append(f"[exit code {result.exit_code}]")
    if result.truncated and not full_log:
        parts.append(f"[{result.omitted_bytes} bytes of output were cut from the middle]")
    if result.leftovers_killed:
        parts.append(f"[{result.leftovers_killed} background process(es) left running were killed]")
    if result.session_lost:
        parts.append("[the Python session was restarted: its variables are gone]")
    return "\n".join(parts)


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} bytes"


def _json_or_none(text: str) -> dict | None:
    """The reader's one JSON line, or None when something else came back (the output is then shown as is)."""
    try:
        value = json.loads(text) if text.strip() else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
