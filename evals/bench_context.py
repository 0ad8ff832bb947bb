"""Benchmark: what long runs cost in input tokens, and how big the context gets.

Three long runs (30, 40 and 50 steps) go through `run_agent` unchanged: a real bwrap sandbox, real
pytest, and LiteLLM's real HTTP path to the local OpenAI-compatible test server, which scripts the
model's tool calls (the actions a model makes on such a task: views of a 700-line file, greps,
40 MB of debug output, tracebacks, full test runs with 30 failures among 230 tests, edits that
trigger tests) and counts every request's prompt tokens with a real tokenizer, simulating prefix
caching the way providers bill it (a request's longest prefix identical to an earlier request's,
above 1,024 tokens, at 10%).

Then each run's recorded conversation is replayed, request by request, through the same LiteLLM
path to fresh servers under other history policies, in the same process:

    full history, no caching     every message kept and no cache: the baseline (the way
                                 mini-swe-agent sends them; observations as repofix bounds them)
    full history, cached         every message kept, prefix caching
    sliding window               the last K steps whole, one older step folded per call
    batched folds (repofix)      the last K..2K-1 steps whole, K steps folded at a time

Reported per run: billed input tokens (and the ratio to the baseline), peak context, the largest
single observation against its budget, and whether every failing test id reached the model.

    python evals/bench_context.py [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT.parent / "tests"))
from openai_server import OpenAIServer, text, tool_call  # noqa: E402

from repofix.agent import AgentRequest, run_agent  # noqa: E402
from repofix.agent.actions import openai_tools  # noqa: E402
from repofix.agent.history import compact  # noqa: E402
from repofix.config import Settings  # noqa: E402
from repofix.models.litellm_model import LiteLLMModel  # noqa: E402
from repofix.models.tokens import count_text  # noqa: E402

RESULTS = ROOT / "results" / "bench_context.md"
MODEL = "openai/gpt-4o"  # native tools; LiteLLM knows its window and prices
KEEP = Settings().history_steps
LARGEST: dict[str, int] = {}  # action -> its largest observation over all runs, tokens
FAILING = [f"tests/test_calc.py::test_rate[{i}]" for i in range(30)]


def project(root: Path) -> None:
    """A package with a 700-line module and 230 tests, 30 of them failing with real tracebacks."""
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    helpers = "\n".join(
        f"def helper_{i}(x):\n    # marker {i}\n    return x * {i} + {i % 7}\n" for i in range(170)
    )
    (root / "pkg" / "calc.py").write_text(
        "RATES = {i: i * 0.1 for i in range(30)}\n\n\ndef rate(i):\n    return round(RATES[i] * 1.5 + 0.01, 2)\n\n\n"
        "def noisy():\n    for i in range(20):\n        print('debug', i)\n    raise ValueError('noisy failed')\n\n\n"
        + helpers
    )
    (root / "tests" / "test_calc.py").write_text(
        "import pytest\nfrom pkg import calc\n\n\n@pytest.mark.parametrize('i', range(200))\n"
        "def test_helpers(i):\n    assert calc.helper_1(i) == i + 1\n\n\n@pytest.mark.parametrize('i', range(30))\n"
        "def test_rate(i):\n    expected = {'rate': i * 0.1, 'index': i}\n    assert {'rate': calc.rate(i), 'index': i} == expected\n"
    )
    for command in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "start"]):
        os.system(
            " ".join(
                ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@example.com", *command]
            )
            + " >/dev/null"
        )


ACTIONS = [  # (tool, arguments); `{n}` is the step number
    ("view", {"path": "pkg/calc.py"}),
    ("shell", {"command": "grep -n 'def ' pkg/calc.py | head -80"}),
    ("run_tests", {}),
    (
        "shell",
        {
            "command": "python3 -c \"import sys\nfor i in range(400000): sys.stdout.write('debug %d ' % i + "
            "'x' * 90 + '\\n')\""
        },
    ),
    ("python", {"code": "from pkg import calc\ncalc.noisy()"}),
    (
        "edit",
        {
            "text": "pkg/calc.py\n<<<<<<< SEARCH\n    # marker {m}\n=======\n    # marker {m} (seen)\n"
            ">>>>>>> REPLACE\n"
        },
    ),
    ("shell", {"command": "python3 -m pytest -q tests 2>&1 | tail -120"}),
    ("view", {"path": "tests/test_calc.py"}),
    ("python", {"code": "import json\nprint(json.dumps({{str(i): i * 0.1 for i in range(3000)}}))"}),
    ("shell", {"command": "cat pkg/calc.py | sed -n 1,400p"}),
]


def script(steps: int, offset: int) -> list[tuple[str, dict]]:
    calls = []
    for n in range(steps):
        tool, arguments = ACTIONS[(n + offset) % len(ACTIONS)]
        calls.append(
            (tool, {k: v.format(n=n, m=n) if isinstance(v, str) else v for k, v in arguments.items()})
        )
    return calls


def live(tmp: Path, name: str, steps: int, offset: int) -> tuple[dict, OpenAIServer]:
    repo = tmp / name / "repo"
    project(repo)
    server = OpenAIServer(count=True).start()
    for n, (tool, arguments) in enumerate(script(steps, offset), 1):
        server.add(tool_call(tool, arguments, call_id=f"call_{n}", content=f"Step {n}: next I use {tool}."))
    settings = Settings(
        model=MODEL,
        api_base=server.url,
        sandbox="bwrap",
        home=str(tmp / name / "home"),
        max_steps=steps,
        max_cost=None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcome = run_agent(AgentRequest(repo=repo, mode="fix", settings=settings))
    record = json.loads(Path(outcome.trajectory_file).read_text(encoding="utf-8"))
    server.stop()
    return record, server


def replay(messages: list[dict], keep: int, batch: int | None, caching: bool) -> dict:
    """Send every request of the recorded run again under another history policy."""
    starts = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    with OpenAIServer(count=True) as server:
        model = LiteLLMModel(MODEL, api_base=server.url, api_key="sk-bench", native_tools=True)
        for start in starts:
            server.add(text("ok"))
            model.query(compact(messages[:start], keep, batch), tools=openai_tools())
        cache = server.cache
        billed = cache.billed if caching else sum(cache.prompt_tokens)
        return {"billed": billed, "peak": max(cache.prompt_tokens), "requests": len(starts)}


def measure(name: str, record: dict, server: OpenAIServer) -> list[dict]:
    steps = record["steps"]
    cache = server.cache
    delivered = {i for i in FAILING if any(i in request.raw for request in server.requests)}
    largest = max(steps, key=lambda s: count_text(s["observation"]))
    for step in steps:
        kind = step["action"]
        LARGEST[kind] = max(LARGEST.get(kind, 0), count_text(step["observation"]))
    messages = record["messages"]
    rows = {
        "full history, no caching (baseline)": replay(messages, 0, None, caching=False),
        "full history, cached": replay(messages, 0, None, caching=True),
        f"sliding window (K={KEEP})": replay(messages, KEEP, 1, caching=True),
        f"batched folds, K={KEEP} (repofix, replayed)": replay(messages, KEEP, None, caching=True),
    }
    rows[f"batched folds, K={KEEP} (repofix, live run)"] = {
        "billed": cache.billed,
        "peak": max(cache.prompt_tokens),
        "requests": len(cache.prompt_tokens),
    }
    base = rows["full history, no caching (baseline)"]["billed"]
    out = []
    for policy, row in rows.items():
        out.append(
            {
                "run": f"{name} ({len(steps)} steps)",
                "policy": policy,
                **row,
                "ratio": row["billed"] / base,
                "largest": count_text(largest["observation"]),
                "largest_action": largest["action"],
                "ids": f"{len(delivered)}/{len(FAILING)}",
            }
        )
    return out


def budget_of(action: str, settings: Settings) -> str:
    if action == "run_tests":
        return f"{settings.feedback_tokens:,} (test feedback)"
    if action == "edit":  # the edit's result, then the feedback of the tests it triggered
        return f"{settings.observation_tokens:,} + {settings.feedback_tokens:,} (edit result + test feedback)"
    return f"{settings.observation_tokens:,} (+ one status line)"


def table(rows: list[dict]) -> str:
    lines = [
        "| run | history policy | requests | billed input tokens | vs baseline | peak context |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['run']} | {r['policy']} | {r['requests']} | {r['billed']:,.0f} | {r['ratio']:.1%} | "
            f"{r['peak']:,} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"record the result in {RESULTS}")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-key")
    rows, extra = [], []
    with tempfile.TemporaryDirectory(prefix="bench-context-") as tmp:
        for name, steps, offset in (("run A", 30, 0), ("run B", 40, 3), ("run C", 50, 6)):
            record, server = live(Path(tmp), name.replace(" ", "_"), steps, offset)
            if len(record["steps"]) != steps:
                raise SystemExit(
                    f"{name} stopped after {len(record['steps'])} steps: {record.get('message')}"
                )
            measured = measure(name, record, server)
            rows += measured
            first = measured[0]
            extra.append(
                f"| {first['run']} | {first['largest']:,} ({first['largest_action']}) | {first['ids']} |"
            )
    settings = Settings()
    report = "\n".join(
        [
            "# bench_context: billed input tokens and peak context of long runs",
            "",
            f"Model {MODEL} (native tools) through LiteLLM to the local test server; budgets: observation "
            f"{settings.observation_tokens} tokens, test feedback {settings.feedback_tokens}, history K = {KEEP}. "
            "Billed = uncached prompt tokens + 10% of cached ones (prefixes over 1,024 tokens shared with an earlier "
            "request). Tokens counted with o200k (LiteLLM's bundled tokenizer).",
            "",
            table(rows),
            "",
            "| run | largest single observation, tokens (action) | failing test ids that reached the model |",
            "| --- | ---: | ---: |",
            *extra,
            "",
            "| action | largest observation, tokens | its budget |",
            "| --- | ---: | ---: |",
            *(
                f"| {action} | {tokens:,} | {budget_of(action, settings)} |"
                for action, tokens in sorted(LARGEST.items())
            ),
            "",
            "Targets (issue 19): billed input <= 30% of the baseline; peak context <= 32k tokens on the 50-step run; "
            "no observation over its budget (an edit's observation is the edit's result plus the test feedback, "
            "each within its own budget); every failing test id delivered.",
        ]
    )
    print(report)
    if args.write:
        RESULTS.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
