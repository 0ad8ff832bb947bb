import datetime as dt

import pytest

from datekit import add_business_days, apply_offset, parse_offset
from datekit.__main__ import main


def test_parse_offset():
    offset = parse_offset(" -2w ")
    assert (offset.amount, offset.unit) == (-2, "w")
    with pytest.raises(ValueError):
        parse_offset("2 weeks")


def test_apply_offsets():
    day = dt.date(2023, 6, 14)  # a Wednesday
    assert apply_offset(day, "+3d") == dt.date(2023, 6, 17)
    assert apply_offset(day, "-1w") == dt.date(2023, 6, 7)
    assert apply_offset(day, "+1m") == dt.date(2023, 7, 14)
    assert apply_offset(day, "+3b") == dt.date(2023, 6, 19)


def test_business_days_skip_holidays():
    friday = dt.date(2023, 12, 22)
    holidays = {dt.date(2023, 12, 25), dt.date(2023, 12, 26)}
    assert add_business_days(friday, 1, holidays) == dt.date(2023, 12, 27)
    assert add_business_days(dt.date(2023, 12, 27), -1, holidays) == friday


def test_cli(capsys):
    assert main(["2023-06-14", "+1m", "+1d"]) == 0
    assert capsys.readouterr().out.strip() == "2023-07-15"
    assert main(["2023-06-14", "+1q"]) == 2
