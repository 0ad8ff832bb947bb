import datetime as dt

import pytest

from todocli.models import Task
from todocli.storage import StoreError, TaskStore


def test_round_trip(tmp_path):
    store = TaskStore(tmp_path / "t.json")
    tasks = [Task(1, "a", due=dt.date(2024, 1, 2), tags=["x"]), Task(2, "b", done=True, priority="high")]
    store.save(tasks)
    assert store.load() == tasks
    assert TaskStore.next_id(tasks) == 3


def test_bad_priority():
    with pytest.raises(ValueError):
        Task(1, "a", priority="urgent")


def test_corrupt_file(tmp_path):
    path = tmp_path / "t.json"
    path.write_text("{not json")
    with pytest.raises(StoreError):
        TaskStore(path).load()


def test_overdue():
    today = dt.date(2024, 3, 10)
    assert Task(1, "a", due=dt.date(2024, 3, 9)).is_overdue(today)
    assert not Task(1, "a", due=dt.date(2024, 3, 9), done=True).is_overdue(today)
