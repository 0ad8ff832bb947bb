import pytest

from semverkit import InvalidVersion, Version, compare, parse, sort_versions


def test_parse_full():
    v = parse("v1.2.3-rc.1+build.5")
    assert v == Version(1, 2, 3, ("rc", "1"), ("build", "5"))
    assert str(v) == "1.2.3-rc.1+build.5"


@pytest.mark.parametrize("text", ["1.2", "01.2.3", "1.2.3-"])
def test_parse_rejects(text):
    with pytest.raises(InvalidVersion):
        parse(text)


def test_core_ordering():
    assert compare("1.2.3", "1.2.4") == -1
    assert compare("1.10.0", "1.9.9") == 1
    assert compare("2.0.0", "2.0.0") == 0


def test_prerelease_before_release():
    assert compare("1.0.0-alpha", "1.0.0") == -1
    assert compare("1.0.0", "1.0.0-rc.1") == 1


def test_build_metadata_ignored():
    assert compare("1.0.0+a", "1.0.0+b") == 0


def test_sort_simple_prereleases():
    got = [str(v) for v in sort_versions(["1.0.0", "1.0.0-beta", "1.0.0-alpha", "0.9.0"])]
    assert got == ["0.9.0", "1.0.0-alpha", "1.0.0-beta", "1.0.0"]


def test_bump():
    assert str(parse("1.2.3").bump("minor")) == "1.3.0"
    assert str(parse("1.2.3-rc.2").bump("patch")) == "1.2.3"
