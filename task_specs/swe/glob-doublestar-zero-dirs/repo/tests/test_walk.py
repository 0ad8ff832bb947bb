import pytest

from pathglob import glob
from pathglob.__main__ import main


@pytest.fixture
def tree(tmp_path):
    for rel in ["setup.py", "src/app/main.py", "src/app/util/io.py", "src/app/data.json",
                ".hidden/x.py", "src/.cache.py"]:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    return tmp_path


def test_glob_nested(tree):
    assert glob(tree, "src/**/util/*.py") == ["src/app/util/io.py"]


def test_glob_hidden(tree):
    assert glob(tree, "*/*.py") == []
    assert glob(tree, "*/*.py", include_hidden=True) == [".hidden/x.py", "src/.cache.py"]


def test_cli(tree, capsys):
    assert main(["src/app/*.json", str(tree)]) == 0
    assert capsys.readouterr().out == "src/app/data.json\n"
    assert main(["*.rs", str(tree)]) == 1
