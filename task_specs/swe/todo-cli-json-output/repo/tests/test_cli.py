def test_add_and_list(todo):
    assert todo("add", "first") == (0, "added task 1\n")
    code, out = todo("list")
    assert code == 0
    assert out == "  1 [ ] · first\n"


def test_list_hides_done_unless_all(filled):
    assert [line.split()[0] for line in filled("list")[1].splitlines()] == ["1", "3"]
    assert [line.split()[0] for line in filled("list", "--all")[1].splitlines()] == ["1", "2", "3"]


def test_list_filters_and_sorting(filled):
    assert filled("list", "--tag", "work")[1].startswith("  1 [ ] ! write report  (due 2024-03-08)")
    assert filled("list", "--overdue")[1].count("\n") == 1
    assert [line.split()[0] for line in filled("list", "--sort", "due", "-a")[1].splitlines()] == ["1", "3", "2"]


def test_empty_list(todo):
    assert todo("list") == (0, "no tasks\n")


def test_unknown_id(todo):
    assert todo("done", "42")[0] == 1
    assert "no task with id 42" in todo.err
