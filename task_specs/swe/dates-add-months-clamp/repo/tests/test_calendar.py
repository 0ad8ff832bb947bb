import datetime as dt

import pytest

from datekit import days_in_month, is_leap, last_day_of_month


@pytest.mark.parametrize("year,leap", [(2024, True), (2023, False), (1900, False), (2000, True)])
def test_is_leap(year, leap):
    assert is_leap(year) is leap


def test_days_in_month():
    assert days_in_month(2024, 2) == 29
    assert days_in_month(2023, 2) == 28
    assert days_in_month(2023, 4) == 30
    with pytest.raises(ValueError):
        days_in_month(2023, 13)


def test_last_day_of_month():
    assert last_day_of_month(dt.date(2023, 11, 5)) == dt.date(2023, 11, 30)
