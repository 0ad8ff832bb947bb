"""The prompt templates (`agent/prompts/*.md`), filled in strictly."""

from __future__ import annotations

from pathlib import Path
from string import Template
from typing import Any

PROMPTS = Path(__file__).parent / "prompts"


def joined(*notes: str) -> str:
    return "\n\n".join(note for note in notes if note)


def prompt(name: str, **values: Any) -> str:
    """A prompt template filled in; a `$name` it uses but is not given is an error, never left as text."""
    template = Template((PROMPTS / f"{name}.md").read_text(encoding="utf-8"))
    try:
        return template.substitute(**values).strip()
    except KeyError as missing:
        raise ValueError(f"prompt {name}.md needs ${missing.args[0]}, which was not given") from None
