"""cronlite: cron expressions and their schedules."""

from cronlite.expression import CronExpression, CronSyntaxError
from cronlite.schedule import next_run, upcoming

__all__ = ["CronExpression", "CronSyntaxError", "next_run", "upcoming"]
