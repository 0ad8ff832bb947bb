import pytest

from tabular import Query
from tabular.__main__ import main
from tabular.reader import TableError


def names(result):
    return [row["name"] for row in result[1]]


def test_where_equality_uses_column_type(people):
    assert names(Query(where=["city=London"]).run(people)) == ["Ada", "Alan"]
    assert names(Query(where=["age=45"]).run(people)) == ["Grace"]
    assert names(Query(where=["member=yes", "city=London"]).run(people)) == ["Ada"]
    assert names(Query(where=["zip=00100"]).run(people)) == ["Linus"]


def test_where_errors(people):
    with pytest.raises(TableError):
        Query(where=["height=2"]).run(people)
    with pytest.raises(TableError):
        Query(where=["age=old"]).run(people)
    with pytest.raises(TableError):
        Query(where=["nonsense"]).run(people)


def test_select_sort_limit(people):
    columns, rows = Query(select=["name", "score"], sort="score", descending=True, limit=3).run(people)
    assert columns == ["name", "score"]
    assert rows == [{"name": "Ada", "score": 9.5}, {"name": "Grace", "score": 8.0},
                    {"name": "Alan", "score": 7.25}]


def test_sort_puts_missing_last(people):
    assert names(Query(sort="score").run(people)) == ["Alan", "Grace", "Ada", "Linus"]


def test_cli_table(people_file, capsys):
    assert main([str(people_file), "-w", "city=London", "-s", "name,age"]) == 0
    assert capsys.readouterr().out == "name  age\n----  ---\nAda   36\nAlan  41\n"


def test_cli_csv_and_errors(people_file, capsys):
    assert main([str(people_file), "-s", "name,member", "-n", "1", "-f", "csv"]) == 0
    assert capsys.readouterr().out == "name,member\nAda,yes\n"
    assert main([str(people_file), "--sort", "height"]) == 2
