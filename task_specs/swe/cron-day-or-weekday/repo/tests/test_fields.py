import pytest

from cronlite.fields import DAY, MINUTE, MONTH, WEEKDAY, CronSyntaxError, parse_field


@pytest.mark.parametrize(
    "text,spec,values",
    [("*/15", MINUTE, {0, 15, 30, 45}), ("10-50/20", MINUTE, {10, 30, 50}), ("1,15", DAY, {1, 15}),
     ("JAN-MAR", MONTH, {1, 2, 3}), ("MON-FRI", WEEKDAY, {1, 2, 3, 4, 5}), ("5,7", WEEKDAY, {0, 5}),
     ("50/5", MINUTE, {50, 55})],
    ids=["step", "range-step", "list", "month-names", "weekday-names", "sunday-seven", "start-step"],
)
def test_parse_field(text, spec, values):
    assert parse_field(text, spec).values == values


def test_restricted_flag():
    assert not parse_field("*", DAY).restricted
    assert not parse_field("*/2", DAY).restricted
    assert parse_field("1-31", DAY).restricted


@pytest.mark.parametrize("text", ["60", "5-1", "*/0", "", "MOO"], ids=["range", "backwards", "zero-step",
                                                                     "empty", "bad-name"])
def test_bad_fields(text):
    with pytest.raises(CronSyntaxError):
        parse_field(text, MINUTE)
