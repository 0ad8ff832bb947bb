"""Real token counts, and cutting text to a token budget. Every budget in repofix is counted here, so
"2,000 tokens" means 2,000 tokens of a real BPE tokenizer, not characters / 4.

The tokenizer is always OpenAI's o200k (gpt-4o's), read from the files LiteLLM bundles, so counting
never downloads anything; other providers' tokenizers differ by a few percent, which is why context
windows keep a margin (`WINDOW_MARGIN`). A text is counted with tiktoken itself, without importing
LiteLLM (which takes seconds): a run whose model is not LiteLLM's (scripted, builtin) never imports it.
A conversation is counted by LiteLLM's `token_counter`, which knows each message's overhead.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from repofix.models.litellm_import import import_litellm

TOKENIZER_MODEL = "gpt-4o"
WINDOW_MARGIN = 0.9  # share of a model's context window repofix fills at most
CHARS_PER_TOKEN = 4  # the fast estimate's rule of thumb for code and logs (slightly pessimistic for prose)


def estimate_tokens(text: str | int) -> int:
    """A fast, deterministic estimate (no tokenizer) of the tokens in `text`, or in a text of that many
    characters: for laying out text before the one real count (`count_text`) checks the result."""
    chars = text if isinstance(text, int) else len(text)
    return -(-chars // CHARS_PER_TOKEN)


@functools.cache
def _litellm() -> Any:
    return import_litellm()


def count_text(text: str) -> int:
    """Tokens in `text` (exactly: LiteLLM's `token_counter` counts a long text in pieces, each
    piece's edge a token or so too many)."""
    if not text:
        return 0
    return len(_encoding().encode(text, disallowed_special=()))


def count_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """Tokens of a request's conversation (and tool schemas), as the provider would count them."""
    try:
        return int(_litellm().token_counter(model=TOKENIZER_MODEL, messages=messages, tools=tools or None))
    except Exception:  # an odd message shape LiteLLM cannot walk: count its JSON instead, generously
        return count_text(json.dumps(messages)) + count_text(json.dumps(tools or []))


@functools.cache
def _encoding() -> Any:
    # tiktoken reads its files from TIKTOKEN_CACHE_DIR; LiteLLM's import points it at the files
    # LiteLLM bundles (or at CUSTOM_TIKTOKEN_CACHE_DIR), and so does this, finding them without
    # importing LiteLLM
    spec = importlib.util.find_spec("litellm")
    if spec is None or spec.origin is None:
        raise RuntimeError("LiteLLM is not installed: repofix counts tokens with the tokenizer it bundles")
    bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    os.environ["TIKTOKEN_CACHE_DIR"] = os.environ.get("CUSTOM_TIKTOKEN_CACHE_DIR") or str(bundled)
    import tiktoken

    return tiktoken.get_encoding("o200k_base")


def head_tail(text: str, budget: int, tail_share: float = 0.6) -> tuple[str, str, int]:
    """`text` cut to at most `budget` tokens: its head and its tail (the tail gets `tail_share`:
    errors and summaries come last), and how many tokens were left out between them. A text that
    fits comes back whole, as the head (as the tail when `tail_share` is 1)."""
    tokens = _encoding().encode(text, disallowed_special=())
    if len(tokens) <= budget:
        return (text, "", 0) if tail_share < 1 else ("", text, 0)
    tail_n = int(budget * tail_share)
    head_n = budget - tail_n
    head = _encoding().decode(tokens[:head_n])
    tail = _encoding().decode(tokens[len(tokens) - tail_n :]) if tail_n else ""
    # Cut at line boundaries where one is near, so no half line is shown.
    if "\n" in head[len(head) // 2 :]:
        head = head[: head.rindex("\n") + 1]
    if "\n" in tail[: len(tail) // 2]:
        tail = tail[tail.index("\n") + 1 :]
    return head, tail, len(tokens) - head_n - tail_n


def fit(text: str, budget: int, note: str = "") -> str:
    """`text` whole when it fits `budget` tokens, else its head and tail around a line saying how
    much was left out (plus `note`, e.g. where the full text is)."""
    if count_text(text) <= budget:
        return text
    marker = "\n[... {n} tokens left out{note} ...]\n"
    room = max(budget - count_text(marker.format(n=10**7, note=f"; {note}" if note else "")) - 2, 16)
    head, tail, left_out = head_tail(text, room)
    return head.rstrip("\n") + marker.format(n=left_out, note=f"; {note}" if note else "") + tail
