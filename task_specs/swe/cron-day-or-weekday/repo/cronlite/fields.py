"""One field of a cron expression: '*', '*/15', '1-5', 'MON-FRI', '0,30', '10-50/20'."""

from __future__ import annotations

from dataclasses import dataclass


class CronSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class FieldSpec:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] stands for low + i


MINUTE = FieldSpec("minute", 0, 59)
HOUR = FieldSpec("hour", 0, 23)
DAY = FieldSpec("day of month", 1, 31)
MONTH = FieldSpec("month", 1, 12, ("JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                   "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"))
# 0 and 7 are both Sunday; 7 is folded onto 0 after parsing.
WEEKDAY = FieldSpec("day of week", 0, 7, ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"))


@dataclass(frozen=True)
class Field:
    values: frozenset[int]
    # False when the field starts with '*' ('*' or '*/n'): it does not restrict anything on
    # its own, which matters for how day of month and day of week combine.
    restricted: bool

    def __contains__(self, value: int) -> bool:
        return value in self.values


def _number(text: str, spec: FieldSpec) -> int:
    upper = text.upper()
    if upper in spec.names:
        return spec.low + spec.names.index(upper)
    if not text.isdigit():
        raise CronSyntaxError(f"bad {spec.name} value {text!r}")
    value = int(text)
    if not spec.low <= value <= spec.high:
        raise CronSyntaxError(f"{spec.name} {value} out of range {spec.low}-{spec.high}")
    return value


def parse_field(text: str, spec: FieldSpec) -> Field:
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise CronSyntaxError(f"empty item in {spec.name} field {text!r}")
        rng, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise CronSyntaxError(f"bad step {step_text!r} in {spec.name} field")
            step = int(step_text)
        if rng == "*":
            low, high = spec.low, spec.high
        elif "-" in rng:
            a, b = rng.split("-", 1)
            low, high = _number(a, spec), _number(b, spec)
            if low > high:
                raise CronSyntaxError(f"backwards range {rng!r} in {spec.name} field")
        else:
            low = _number(rng, spec)
            high = spec.high if step_text else low
        values.update(range(low, high + 1, step))
    if spec is WEEKDAY and 7 in values:
        values.discard(7)
        values.add(0)
    return Field(frozenset(values), restricted=not text.startswith("*"))
