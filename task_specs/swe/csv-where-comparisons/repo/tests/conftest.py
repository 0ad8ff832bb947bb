import pytest

from tabular import read_csv

PEOPLE = """name,age,city,zip,score,member
Ada,36,London,01234,9.5,yes
Grace,45,New York,10001,8,no
Linus,28,Helsinki,00100,,yes
Alan,41,London,02139,7.25,no
"""


@pytest.fixture
def people():
    return read_csv(PEOPLE)


@pytest.fixture
def people_file(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text(PEOPLE)
    return path
