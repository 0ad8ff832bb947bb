"""CI sanitising at its boundaries: the shortest secret redacted, the shortest token shape, each
credential prefix, each kind of hidden character, the length limits of what is shown. Each case
kills a mutant (a constant off by one, a flipped comparison, a dropped alternative) that the broader
tests in test_ci_sanitize.py let through."""

from __future__ import annotations

import unicodedata

import pytest

from repofix.ci.sanitize import code_block, code_span, quote_untrusted, strip_hidden
from repofix.ci.worker import clean_env
from repofix.redaction import REDACTED, is_secret_name, redact, secrets_from_env, token_shaped


@pytest.mark.parametrize(("value", "redacted"), [("1234567", False), ("12345678", True)])
def test_a_known_secret_is_redacted_from_eight_characters(value, redacted) -> None:
    assert (redact(f"key={value};", [value]) == f"key={REDACTED};") is redacted
    assert (value in secrets_from_env({"DEPLOY_TOKEN": value})) is redacted


def test_the_longer_of_two_overlapping_secrets_goes_whole() -> None:
    short, long = "abcdefgh", "abcdefgh-ijklmnop"
    assert redact(f"[{long}] [{short}]", [short, long]) == f"[{REDACTED}] [{REDACTED}]"
    assert secrets_from_env({"A_TOKEN": short, "B_TOKEN": long, "C_TOKEN": "abcdefgh-ij"}) == [
        long,
        "abcdefgh-ij",
        short,
    ]


@pytest.mark.parametrize(
    "token",
    [
        *(f"gh{kind}_{'a' * 20}" for kind in "pousr"),
        f"github_pat_{'B' * 20}",
        f"sk-{'c' * 20}",
        *(f"xox{kind}-{'d' * 10}" for kind in "abpr"),
        f"AKIA{'E' * 16}",
    ],
)
def test_every_credential_shape_at_its_shortest_is_redacted(token) -> None:
    assert token_shaped(token) and redact(f"x {token} y") == f"x {REDACTED} y"
    shorter = token[:-1]  # one character short of the shape: an ordinary word
    assert not token_shaped(shorter) and redact(shorter) == shorter


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        *(
            (n, True)
            for n in (
                "GITHUB_TOKEN",
                "GH_TOKEN",
                "ACTIONS_RUNTIME_TOKEN",
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
                "REPOFIX_READ_TOKEN",
                "REPOFIX_WRITE_TOKEN",
                "NPM_TOKEN",
                "OPENAI_API_KEY",
                "APP_SECRET",
                "DB_PASSWORD",
                "SIGNING_KEY",
                "github_token",
                "Deploy_Secret",
                # a secret word anywhere, not only as a suffix: withholding too much costs little
                "GITHUB_TOKEN_FOR_DEPLOY",
                "OPENAI_API_KEY_2",
                "SLACKTOKEN",
                "APIKEY",
                "TOKENIZER",
            )
        ),
        *(
            (n, False)
            for n in ("PATH", "HOME", "GITHUB_REPOSITORY", "GITHUB_SHA", "LANG", "PYTHONPATH", "TOKE")
        ),
    ],
)
def test_secret_names_by_exact_name_or_a_secret_word_in_any_case(name, secret) -> None:
    assert is_secret_name(name) is secret


def test_the_worker_keeps_model_keys_and_drops_every_other_credential_in_any_case() -> None:
    env = {
        "openai_api_key": "k1",
        "Anthropic_Api_Base": "b1",
        "github_token": "t1",
        "Deploy_Key": "k2",
        "INPUT_MODEL": "m",
        "input_lower": "kept: only the action's own INPUT_ names go",
        "HOME": "/h",
    }
    assert clean_env(env) == {
        "openai_api_key": "k1",
        "Anthropic_Api_Base": "b1",
        "input_lower": "kept: only the action's own INPUT_ names go",
        "HOME": "/h",
    }


@pytest.mark.parametrize(
    ("char", "category"),
    [
        ("\u200b", "Cf"),
        ("\x1b", "Cc"),
        ("\x7f", "Cc"),
        ("\ue123", "Co"),
        ("\U000f0000", "Co"),
        ("\u0378", "Cn"),
        ("\ud800", "Cs"),
        ("\r", "Cc"),
    ],
)
def test_every_hidden_character_category_is_stripped(char, category) -> None:
    assert unicodedata.category(char) == category
    assert strip_hidden(f"a{char}b\n\tc") == "ab\n\tc"


def test_a_closed_comment_hides_only_itself() -> None:
    assert strip_hidden("a<!-- x -->b<!-- y -->c") == "abc"
    assert strip_hidden("a<!---->b") == "ab"


@pytest.mark.parametrize(("length", "cut"), [(299, False), (300, False), (301, True)])
def test_code_span_is_cut_only_beyond_its_limit(length, cut) -> None:
    span = code_span("x" * length)
    assert span == ("`" + "x" * 300 + "…`" if cut else "`" + "x" * length + "`")


@pytest.mark.parametrize(("length", "cut"), [(4000, False), (4001, True)])
def test_code_block_is_cut_only_beyond_its_limit(length, cut) -> None:
    block = code_block("y" * length)
    assert block == ("```text\n" + "y" * 4000 + "\n…\n```" if cut else "```text\n" + "y" * length + "\n```")


@pytest.mark.parametrize(
    ("text", "span"),
    [("", "`–`"), ("a`b", "``a`b``"), ("`a", "`` `a ``"), ("a`", "`` a` ``"), ("a``b", "```a``b```")],
)
def test_code_span_fences_outlast_any_backticks_inside(text, span) -> None:
    assert code_span(text) == span


def test_code_block_fence_is_three_backticks_or_one_more_than_inside() -> None:
    assert code_block("plain").startswith("```text\n") and code_block("plain").endswith("\n```")
    assert code_block("a ```` b").startswith("`````text\n")


def test_quoted_task_text_keeps_blank_lines_quoted_and_names_an_empty_request() -> None:
    assert quote_untrusted("one\n\ntwo", "@a").endswith("\n\n> one\n>\n> two")
    assert quote_untrusted("<!-- only hidden -->", "@a").endswith("\n\n> (empty)")
