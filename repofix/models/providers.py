"""Which environment variables LiteLLM reads for which provider, for messages users can act on."""

from __future__ import annotations

PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "azure": "AZURE_API_KEY",
    "hosted_vllm": "HOSTED_VLLM_API_KEY",
}


def provider_of(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else "openai"


def key_hint(model: str) -> str:
    variable = PROVIDER_KEYS.get(provider_of(model))
    return f"set {variable} in the environment" if variable else "check the provider's credentials"


def describe_missing_model() -> str:
    """The message shown when no model is configured at all."""
    keys = ", ".join(sorted(set(PROVIDER_KEYS.values()) - {"HOSTED_VLLM_API_KEY"}))
    return (
        "No model configured. Choose one with --model MODEL or the environment variable REPOFIX_MODEL "
        '(or `model = "..."` in your ~/.config/repofix/config.toml), using a LiteLLM model string such as '
        "openai/gpt-4o, anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder (local, no key) or "
        "hosted_vllm/NAME with --api-base http://HOST:PORT/v1. "
        f"LiteLLM reads the provider's key from the environment: {keys} "
        "(OLLAMA_API_BASE / HOSTED_VLLM_API_BASE for local servers). "
        "For tests and demos, use --model scripted:REPLIES.yaml; to re-run a recorded run, --model replay:RUN."
    )
