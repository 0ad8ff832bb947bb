"""tabular: query CSV data."""

from tabular.query import Query, parse_where
from tabular.reader import Table, read_csv

__all__ = ["Query", "Table", "parse_where", "read_csv"]
