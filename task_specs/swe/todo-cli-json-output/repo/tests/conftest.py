import datetime as dt

import pytest

from todocli.cli import main

TODAY = dt.date(2024, 3, 10)


@pytest.fixture
def todo(tmp_path, capsys):
    """Run the CLI against a fresh task file; returns (exit code, stdout), keeps stderr in .err"""
    db = tmp_path / "tasks.json"

    def run(*args: str):
        code = main(["--db", str(db), *args], today=TODAY)
        captured = capsys.readouterr()
        run.err = captured.err
        return code, captured.out

    run.db = db
    return run


@pytest.fixture
def filled(todo):
    todo("add", "write report", "-p", "high", "--due", "2024-03-08", "-t", "work")
    todo("add", "buy milk", "-p", "low", "-t", "home")
    todo("add", "call bank", "--due", "2024-03-20")
    todo("done", "2")
    return todo
