"""datekit: small, dependency-free date arithmetic."""

from datekit.business import add_business_days, is_business_day
from datekit.calendar_math import days_in_month, is_leap, last_day_of_month
from datekit.offsets import apply_offset, parse_offset
from datekit.shift import add_months, add_years

__all__ = [
    "add_business_days", "add_months", "add_years", "apply_offset", "days_in_month",
    "is_business_day", "is_leap", "last_day_of_month", "parse_offset",
]
