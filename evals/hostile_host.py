"""The host-side hostile suite as a table: each attack, what must happen, and what happened here.

    python evals/hostile_host.py        # runs tests/test_hostile_host.py, writes evals/results/hostile_host.md

Every row is one test of `tests/test_hostile_host.py` (real `repofix` commands, scripted models,
docker and bwrap where a sandbox is involved); the outcome column is pytest's verdict on this machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "evals" / "results" / "hostile_host.md"
# test function -> (attack, what must happen)
CASES = {
    "test_hostile_submodule_urls_are_refused_before_anything_runs[option injection]": (
        "`.gitmodules` url `--upload-pack=touch MARKER; false`",
        "acquisition refused (exit 2, names the submodule), MARKER absent, no run folder left",
    ),
    "test_hostile_submodule_urls_are_refused_before_anything_runs[host path]": (
        "`.gitmodules` url = a repository elsewhere on the host",
        "refused without `allow_local_submodules`, nothing fetched, no run folder left",
    ),
    "test_hostile_submodule_urls_are_refused_before_anything_runs[ext transport]": (
        "`.gitmodules` url `ext::sh -c touch% MARKER`",
        "refused, MARKER absent",
    ),
    "test_host_git_runs_no_hook_fsmonitor_or_filter_of_the_repository": (
        "checkout with `core.fsmonitor`, hooks (post-checkout, reference-transaction, post-index-change), "
        "`.gitattributes` selecting clean/smudge/textconv drivers defined in its config",
        "acquire (dirty snapshot), export and branch delivery run none of them (marker absent)",
    ),
    "test_names_git_would_refuse_are_refused_and_never_delivered": (
        "model's shell writes `.GIT/hooks/post-checkout`, `sub/.git`, `pkg/.Git/config` (fsmonitor), a "
        "non-UTF-8 name, a 2.4 kB path, a fifo, `.gitmodules -> /etc/passwd`",
        "each refused with a note to the model; no checkpoint and not the delivered branch holds any; run DONE",
    ),
    "test_apply_failing_part_way_leaves_the_tree_as_it_was_and_undo_keeps_to_its_repo": (
        "`--apply` of a 249-byte file name; then an `--apply` that fails on its third file "
        "(an untracked file where a folder must go); then `repofix undo` here and in another repository",
        "the long name applies; the failed apply leaves every file and `git status --ignored` as before; "
        "undo reverses nothing (the earlier apply stays), and nothing in another repository",
    ),
    "test_repo_map_never_reads_through_a_symlink_or_a_device": (
        "repository links `leak.py -> host secret`, `zero.py -> /dev/zero`, `linked -> folder outside`, "
        "`.repofix.toml -> /dev/zero`",
        "repo map lists the names but no secret text; no hang, no memory blow-up; settings read nothing",
    ),
    "test_escape_sequences_from_the_sandbox_arrive_escaped": (
        "command text and output with OSC 52 clipboard write, OSC 0 title, `ESC[2J`, colours, `\\r`, U+202E",
        "no raw ESC/BEL/CR/bidi in the progress lines, the summary or `repofix show`; shown as `\\x1b...`",
    ),
    "test_live_display_escapes_what_it_shows": (
        "the same sequences in a live (terminal) progress line and a note",
        "only the display's own line clearing reaches the terminal",
    ),
    "test_repository_config_cannot_choose_endpoint_sandbox_setup_or_guards": (
        'repository `.repofix.toml`: `api_base` = a local server, `model`, `sandbox = "none"`, `setup`, '
        "`allow_guards`, `image`, `max_cost = 1000`",
        "all ignored with one notice; the repository's server gets 0 requests, the user's config file's "
        "server gets them; the model's `touch` on a host path does not land (isolated); setup did not run; "
        "its `test_cmd` is used",
    ),
    "test_trusting_the_repository_config_is_the_users_explicit_choice": (
        "the same file with `--trust-repo-config` / `REPOFIX_TRUST_REPO_CONFIG=1`",
        "only then does the repository's `api_base` count",
    ),
}


# Checked by hand against the code before these changes (main at c8c2df4), not re-run by this script.
BEFORE = (
    "Before the host-side hardening (main at c8c2df4, checked by hand): the `--upload-pack` URL ran "
    "`touch MARKER` during acquisition; the non-UTF-8 name crashed the run with `UnicodeEncodeError`; "
    "the other rows were not re-run against that code (issue 12 describes most of them)."
)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        started = time.monotonic()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--junitxml={report}",
                "tests/test_hostile_host.py",
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        seconds = time.monotonic() - started
        outcomes: dict[str, dict[str, str]] = {}
        for case in ET.parse(report).iter("testcase"):
            name = case.get("name", "")
            backend = "-"
            for candidate in ("docker", "bwrap"):
                if name.endswith(f"[{candidate}]"):
                    name, backend = name[: -len(candidate) - 2], candidate
            verdict = (
                "FAILED"
                if case.find("failure") is not None or case.find("error") is not None
                else "skipped"
                if case.find("skipped") is not None
                else "held"
            )
            outcomes.setdefault(name, {})[backend] = verdict
    lines = [
        "# Host-side hostile cases (tests/test_hostile_host.py)",
        "",
        f'Run with `python evals/hostile_host.py` ({seconds:.0f} s on this machine). "held": the test '
        "passed, i.e. the outcome in the third column was observed.",
        "",
        BEFORE,
        "",
        "| attack | must happen | docker | bwrap | other (no sandbox, or the default one) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, (attack, expected) in CASES.items():
        seen = outcomes.get(name, {})
        lines.append(
            f"| {attack} | {expected} | {seen.get('docker', '')} | {seen.get('bwrap', '')} | "
            f"{seen.get('-', '')} |"
        )
    missing = sorted(set(outcomes) - set(CASES))
    if missing:
        lines += ["", "Tests without a description here: " + ", ".join(missing)]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(v != "FAILED" for seen in outcomes.values() for v in seen.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
