"""The repository map fits its token budget by dropping detail in stages, never silently."""

from __future__ import annotations

from agent_helpers import make_repo

from repofix.agent.repomap import repo_map
from repofix.models.tokens import estimate_tokens

SOURCE = "class Cart:\n    def add(self):\n        pass\n\n    def total(self):\n        pass\n\n\ndef checkout():\n    pass\n"


def test_map_lists_files_and_top_level_definitions(tmp_path):
    repo = make_repo(
        tmp_path / "r",
        {
            "shop/cart.py": SOURCE,
            "tests/test_cart.py": "def test_add():\n    pass\n",
            "README.md": "hi\n",
            "broken.py": "def (:\n",
        },
    )
    text = repo_map(repo, budget=500)
    assert text.splitlines() == [
        "README.md",
        "broken.py: (does not parse)",
        "shop/cart.py: class Cart(add, total), def checkout()",
        "tests/test_cart.py: def test_add()",
    ]


def test_detail_goes_first_then_files_with_a_count(tmp_path):
    files = {f"pkg/mod{i:02d}.py": SOURCE for i in range(40)}
    repo = make_repo(tmp_path / "r", files)
    full = repo_map(repo, budget=100_000)
    assert "class Cart(add, total)" in full
    no_methods = repo_map(repo, budget=estimate_tokens(full) - 1)
    assert "class Cart, def checkout()" in no_methods and "(add, total)" not in no_methods
    tiny = repo_map(repo, budget=60)
    assert (
        len(tiny) <= 60 * 4
    )  # the budget's documented unit, 4 characters a token: not the code's own estimator
    assert tiny.splitlines()[-1].startswith("... and ") and "more files" in tiny
