import pytest

from semverkit import satisfies


@pytest.mark.parametrize(
    "version,constraint,expected",
    [
        ("1.4.2", "^1.2.0", True),
        ("2.0.0", "^1.2.0", False),
        ("0.2.5", "^0.2.1", True),
        ("1.4.9", "~1.4", True),
        ("1.9.0", ">=1.0.0, <2.0.0", True),
        ("2.0.0", ">=1.0.0, <2.0.0", False),
    ],
    ids=["caret-in", "caret-out", "caret-zero", "tilde", "range-in", "range-out"],
)
def test_constraints(version, constraint, expected):
    assert satisfies(version, constraint) is expected


def test_prerelease_excluded_unless_named():
    assert not satisfies("1.3.0-beta", "^1.2.0")
    assert satisfies("1.3.0-beta", ">=1.3.0-alpha")
