from semverkit.cli import main


def test_sort_command(capsys):
    assert main(["sort", "1.10.0", "1.2.0", "1.9.0"]) == 0
    assert capsys.readouterr().out.split() == ["1.2.0", "1.9.0", "1.10.0"]


def test_max_skips_prereleases(capsys):
    assert main(["max", "1.0.0", "2.0.0-rc.1"]) == 0
    assert capsys.readouterr().out.strip() == "1.0.0"


def test_check_exit_codes():
    assert main(["check", "1.2.3", "^1.0.0"]) == 0
    assert main(["check", "2.2.3", "^1.0.0"]) == 1
    assert main(["check", "nope", "^1.0.0"]) == 2
