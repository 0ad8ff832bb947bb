import datetime as dt

import pytest

from cronlite import CronExpression, CronSyntaxError, next_run, upcoming
from cronlite.__main__ import main

T0 = dt.datetime(2024, 1, 1, 0, 0)  # a Monday


def test_every_quarter_hour_on_weekdays():
    runs = list(upcoming("*/15 9-17 * * MON-FRI", dt.datetime(2024, 1, 5, 17, 40), 3))
    assert runs == [dt.datetime(2024, 1, 5, 17, 45), dt.datetime(2024, 1, 8, 9, 0), dt.datetime(2024, 1, 8, 9, 15)]


def test_next_run_is_strictly_after():
    assert next_run("30 * * * *", dt.datetime(2024, 1, 1, 10, 30, 5)) == dt.datetime(2024, 1, 1, 11, 30)


def test_aliases():
    assert next_run("@monthly", T0) == dt.datetime(2024, 2, 1)
    assert next_run("@weekly", T0) == dt.datetime(2024, 1, 7)


def test_day_of_month_only():
    assert list(upcoming("0 12 31 * *", T0, 2)) == [dt.datetime(2024, 1, 31, 12), dt.datetime(2024, 3, 31, 12)]


def test_leap_day():
    assert next_run("0 0 29 2 *", T0) == dt.datetime(2024, 2, 29)


def test_wrong_field_count():
    with pytest.raises(CronSyntaxError):
        CronExpression.parse("* * * *")


def test_cli(capsys):
    assert main(["0 9 * * MON", "-n", "2", "--from", "2024-01-01T10:00"]) == 0
    assert capsys.readouterr().out == "2024-01-08 09:00 Mon\n2024-01-15 09:00 Mon\n"
    assert main(["0 9 * *"]) == 2
