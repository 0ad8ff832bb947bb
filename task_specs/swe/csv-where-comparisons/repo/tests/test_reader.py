import pytest

from tabular import read_csv
from tabular.reader import TableError


def test_types_are_inferred(people):
    assert people.types == {"name": "str", "age": "int", "city": "str", "zip": "str", "score": "float",
                            "member": "bool"}
    assert people.rows[2] == {"name": "Linus", "age": 28, "city": "Helsinki", "zip": "00100", "score": None,
                              "member": True}


def test_quoted_fields_and_delimiter():
    table = read_csv('a;b\n"x;y";"say ""hi"""\n', delimiter=";")
    assert table.rows == [{"a": "x;y", "b": 'say "hi"'}]


@pytest.mark.parametrize("text", ["", "a,a\n1,2\n", "a,b\n1\n"], ids=["empty", "duplicate-header", "short-row"])
def test_bad_input(text):
    with pytest.raises(TableError):
        read_csv(text)
