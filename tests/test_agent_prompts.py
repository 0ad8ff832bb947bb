"""Prompt templates: a `$name` a template uses must be given; nothing is left as literal text."""

from string import Template

import pytest

from repofix.agent.templates import PROMPTS, prompt
from repofix.models.text_protocol import instructions

NAMES = sorted(path.stem for path in PROMPTS.glob("*.md"))


@pytest.mark.parametrize("name", NAMES)
def test_every_template_renders_with_its_variables(name):
    template = Template((PROMPTS / f"{name}.md").read_text(encoding="utf-8"))
    assert template.is_valid(), name  # no stray `$` that substitute() would reject
    values = {key: f"<{key}>" for key in template.get_identifiers()}
    text = prompt(name, **values)
    assert all(f"<{key}>" in text for key in values)
    assert "$" not in text.replace("$$", "")


@pytest.mark.parametrize(
    "name", [n for n in NAMES if Template((PROMPTS / f"{n}.md").read_text()).get_identifiers()]
)
def test_a_missing_variable_is_an_error_naming_it(name):
    identifiers = Template((PROMPTS / f"{name}.md").read_text(encoding="utf-8")).get_identifiers()
    given = {key: "x" for key in identifiers[1:]}
    with pytest.raises(ValueError, match=rf"{name}\.md needs \${identifiers[0]}"):
        prompt(name, **given)


def test_text_protocol_lists_the_tools():
    text = instructions(
        [
            {
                "type": "function",
                "function": {
                    "name": "shell",
                    "description": "Run a command.",
                    "parameters": {"properties": {}},
                },
            }
        ]
    )
    assert "`shell`: Run a command." in text and "$tools" not in text
