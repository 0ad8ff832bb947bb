import datetime as dt

from datekit import add_months, add_years
from datekit.shift import months_between


def test_add_months_simple():
    assert add_months(dt.date(2023, 1, 15), 1) == dt.date(2023, 2, 15)
    assert add_months(dt.date(2023, 11, 15), 3) == dt.date(2024, 2, 15)
    assert add_months(dt.date(2023, 3, 15), -3) == dt.date(2022, 12, 15)


def test_add_months_keeps_time_of_day():
    moment = dt.datetime(2023, 5, 10, 8, 30)
    assert add_months(moment, 2) == dt.datetime(2023, 7, 10, 8, 30)


def test_add_years_leap_day():
    assert add_years(dt.date(2024, 2, 29), 1) == dt.date(2025, 2, 28)
    assert add_years(dt.date(2024, 2, 29), 4) == dt.date(2028, 2, 29)


def test_months_between():
    assert months_between(dt.date(2023, 1, 15), dt.date(2023, 4, 14)) == 2
    assert months_between(dt.date(2023, 1, 15), dt.date(2023, 4, 15)) == 3
    assert months_between(dt.date(2023, 4, 15), dt.date(2023, 1, 20)) == -2
