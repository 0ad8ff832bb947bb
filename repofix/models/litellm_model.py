"""Any provider LiteLLM speaks, with retries, a timeout, per-call cost and a hard cost cap.

LiteLLM is imported lazily (it takes seconds) and always with its bundled price map, so nothing
is fetched from the internet.
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Any

from repofix.models import text_protocol
from repofix.models.base import (
    CACHE_MARK,
    Budget,
    ModelReply,
    ToolCall,
    parse_arguments,
)
from repofix.models.litellm_calls import complete
from repofix.models.litellm_import import import_litellm
from repofix.models.pricing import Price, find_price, load_price_file
from repofix.models.scrub import scrub
from repofix.models.tokens import WINDOW_MARGIN, count_messages

log = logging.getLogger("repofix.models")

_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")  # all a provider gets of a message
_CACHE = {"type": "ephemeral"}
# Providers that need no key (local servers), or whose credentials LiteLLM may find outside the
# environment (AWS profiles, Google application-default credentials): not pre-checked.
_NO_KEY_CHECK = {
    "ollama",
    "ollama_chat",
    "hosted_vllm",
    "vllm",
    "lm_studio",
    "llamafile",
    "bedrock",
    "bedrock_converse",
    "sagemaker",
    "sagemaker_chat",
    "vertex_ai",
    "vertex_ai_beta",
}


class LiteLLMModel:
    """A LiteLLM model string (`openai/gpt-4o`, `anthropic/...`, `ollama/...`, `hosted_vllm/...`)."""

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        budget: Budget | None = None,
        timeout: float = 120.0,
        max_retries: int = 4,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        max_tokens: int = 4096,
        temperature: float | None = 0.0,
        price_file: str | Path | None = None,
        native_tools: bool | None = None,
    ) -> None:
        self.name = model
        self.api_base = api_base
        self._api_key = api_key  # kept private: never copied into replies or repr
        self.budget = budget or Budget()
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.user_prices = load_price_file(price_file) if price_file else None
        self.native_tools = native_tools
        self._price: Price | None = None
        self._price_looked_up = False
        self._noted_unknown_price = False
        self._text_replies = 0

    def __repr__(self) -> str:
        return f"LiteLLMModel({self.name!r}, api_base={self.api_base!r})"

    def missing_credentials(self) -> list[str]:
        """The environment variables LiteLLM would read this model's credentials from, when none of
        them is set ([] when they are, or when the key or endpoint is given, or cannot be known)."""
        if self.api_base or self._api_key:
            return []
        litellm = import_litellm()
        try:
            provider = litellm.get_llm_provider(self.name)[1]
        except Exception:  # unknown to LiteLLM: the call itself will say what is wrong
            return []
        if provider in _NO_KEY_CHECK:
            return []
        found = litellm.validate_environment(model=self.name)
        return [] if found.get("keys_in_environment") else list(found.get("missing_keys") or [])

    def unknown_provider(self) -> str | None:
        """Why LiteLLM cannot tell which provider serves this name (None when it can, or when
        --api-base names the server): said before anything starts, not after the sandbox's setup."""
        if self.api_base:
            return None
        litellm = import_litellm()
        try:
            litellm.get_llm_provider(self.name)
        except Exception as error:  # LiteLLM's BadRequestError: "LLM Provider NOT provided..."
            return str(error).splitlines()[0].removeprefix("litellm.BadRequestError: ")[:200]
        return None

    def uses_native_tools(self) -> bool:
        if self.native_tools is not None:
            return self.native_tools
        litellm = import_litellm()
        try:
            return bool(litellm.supports_function_calling(model=self.name))
        except Exception as error:  # unknown to LiteLLM means unknown abilities: text works everywhere
            log.debug("supports_function_calling(%s) failed: %s", self.name, error)
            return False

    def price(self) -> Price | None:
        if not self._price_looked_up:
            import_litellm()
            self._price = find_price(self.name, self.user_prices)
            self._price_looked_up = True
        return self._price

    def _info(self, litellm: Any) -> dict[str, Any]:
        """What LiteLLM's bundled model map says about this model ({} when it does not know it)."""
        bare = self.name.split("/", 1)[-1]
        info = litellm.model_cost.get(self.name) or litellm.model_cost.get(bare)
        if info is None:
            try:
                info = dict(litellm.get_model_info(self.name))
            except Exception:  # unknown to LiteLLM (a local model): nothing is known
                info = {}
        return info

    def context_window(self) -> int | None:
        """How many prompt tokens one call may send: the model's input limit (LiteLLM's map, or
        `max_input_tokens` in the price file) less the reply's room, with a tokenizer margin."""
        litellm = import_litellm()
        price = self.price()
        limit = price.max_input_tokens if price is not None and price.max_input_tokens else None
        limit = limit or self._info(litellm).get("max_input_tokens")
        if not isinstance(limit, int | float) or limit <= 0:
            return None
        return max(int((limit - self._output_limit(litellm)) * WINDOW_MARGIN), 1024)

    def caches_explicitly(self) -> bool:
        """Whether prompt caching needs `cache_control` breakpoints (Anthropic's models, wherever
        hosted); OpenAI, DeepSeek and others cache identical prefixes by themselves."""
        return "claude" in self.name.lower() or self.name.startswith("anthropic/")

    def _output_limit(self, litellm: Any) -> int:
        """`max_tokens`, lowered to the model's own output limit when LiteLLM knows it."""
        limit = self._info(litellm).get("max_output_tokens")
        return (
            min(self.max_tokens, int(limit))
            if isinstance(limit, int | float) and limit > 0
            else self.max_tokens
        )

    def query(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> ModelReply:
        litellm = import_litellm()
        native = bool(tools) and self.uses_native_tools()
        sent = messages if native or not tools else text_protocol.to_text_messages(messages, tools)
        sent = self._prepare(sent)
        price = self.price()
        max_tokens = self._output_limit(litellm)
        if price is not None:
            # Our tokenizer is OpenAI's; others count differently, so leave a margin.
            prompt_tokens = int(count_messages(sent, tools if native else None) * 1.15) + 16
            self.budget.check(price.cost(prompt_tokens, max_tokens))
        else:
            self.budget.check(0.0)
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": sent,
            "timeout": self.timeout,
            "max_tokens": max_tokens,
            "max_retries": 0,  # we retry ourselves, with backoff and a clear final error
            "num_retries": 0,
            "drop_params": True,
        }
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if native:
            kwargs["tools"] = tools
            if _skips_mcp_handler(litellm):
                # Recent LiteLLM imports its MCP gateway (and the optional `mcp` package) whenever
                # tools are passed; plain function tools never need it.
                kwargs["_skip_mcp_handler"] = True
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        response = complete(self, litellm, kwargs)
        return self._reply(response, sent, tools, native, price)

    def _prepare(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Messages as the provider accepts them: only the keys it knows; for Anthropic models,
        cache breakpoints after the system prompt, at the end of the stable prefix (where the
        history marked it) and on the newest message, so the next call reads all of it from the cache."""
        marked = {i for i, message in enumerate(messages) if message.get(CACHE_MARK)}
        sent = [{k: message[k] for k in _MESSAGE_KEYS if k in message} for message in messages]
        if not self.caches_explicitly() or not sent:
            return sent
        points = sorted(({0} if sent[0].get("role") == "system" else set()) | marked | {len(sent) - 1})
        for index in points[-4:]:  # Anthropic allows four breakpoints
            while index > 0 and sent[index].get("role") == "assistant" and not sent[index].get("content"):
                index -= 1  # a tool-call-only turn has no text block to mark
            content = sent[index].get("content")
            if isinstance(content, str) and content:
                sent[index]["content"] = [{"type": "text", "text": content, "cache_control": _CACHE}]
            elif isinstance(content, list) and content and isinstance(content[-1], dict):
                sent[index]["content"] = [*content[:-1], {**content[-1], "cache_control": _CACHE}]
        return sent

    def _reply(
        self,
        response: Any,
        sent: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        native: bool,
        price: Price | None,
    ) -> ModelReply:
        message = response.choices[0].message
        content = message.content or ""
        calls: list[ToolCall] = []
        for index, call in enumerate(getattr(message, "tool_calls", None) or []):
            arguments, error = parse_arguments(call.function.arguments)
            calls.append(ToolCall(call.id or f"call_{index}", call.function.name or "", arguments, error))
        # Without native tools, or when a native model wrote blocks instead of calling, read the text.
        if tools and (not native or (not calls and "```tool:" in content)):
            self._text_replies += 1  # ids unique across the conversation, as native ids are
            calls = text_protocol.parse_calls(content, tools, id_prefix=f"text_{self._text_replies}_")
        usage = getattr(response, "usage", None)
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", 0) or 0) or int(
            getattr(usage, "cache_read_input_tokens", 0) or 0
        )
        written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        notes = []
        if not input_tokens and not output_tokens:  # some local servers report no usage: count ourselves
            input_tokens = count_messages(sent, tools if native else None)
            output_tokens = count_messages([{"role": "assistant", "content": content}])
        if price is None:
            cost, known = 0.0, False
            if not self._noted_unknown_price:
                self._noted_unknown_price = True
                note = (
                    f"no price known for {self.name}: its cost is counted as $0 and the cost cap cannot "
                    "limit it; give prices with a price file (--price-file) to fix that"
                )
                notes.append(note)  # the run shows it once, escaped (agent/run.py); no log line too
        else:
            cost, known = price.cost(input_tokens, output_tokens, cached, written), True
        self.budget.add(cost)
        raw = scrub(_plain(response), self._api_key)
        for choice in raw.get("choices") or []:  # the reply's text and calls are kept once, above
            if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
                choice["message"] = {
                    k: v for k, v in choice["message"].items() if k not in ("content", "tool_calls")
                }
        return ModelReply(
            content,
            calls,
            input_tokens,
            output_tokens,
            cost,
            known,
            raw,
            notes=notes,
            model=self.name,
            cached_tokens=cached,
            cache_write_tokens=written,
        )


@functools.cache
def _skips_mcp_handler(litellm: Any) -> bool:
    """Whether this LiteLLM knows the `_skip_mcp_handler` flag (older ones would send it on)."""
    return "_skip_mcp_handler" in Path(litellm.main.__file__).read_text("utf-8")


def _plain(response: Any) -> dict[str, Any]:
    try:
        data = response.model_dump()
    except AttributeError:
        data = dict(response)
    return json.loads(json.dumps(data, default=str))
