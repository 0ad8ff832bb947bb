import pytest

from confini import Config, ConfigError, InterpolationError

TEXT = """
[DEFAULT]
home = /srv
debug = no

[app]
name = shop
data = ${home}/${name}/data
price = $$5
workers = 4
hosts = a.example, b.example
  c.example

[loop]
a = ${b}
b = ${a}
"""


@pytest.fixture
def config():
    return Config.from_string(TEXT)


def test_sections(config):
    assert config.sections() == ["app", "loop"]


def test_interpolation_same_section_and_default(config):
    assert config.get("app", "data") == "/srv/shop/data"
    assert config.get("app", "data", raw=True) == "${home}/${name}/data"


def test_dollar_escape(config):
    assert config.get("app", "price") == "$5"


def test_typed_getters(config):
    assert config.getint("app", "workers") == 4
    assert config.getbool("app", "debug") is False
    assert config.getlist("app", "hosts") == ["a.example", "b.example", "c.example"]
    assert config.getint("app", "missing", fallback=7) == 7


def test_errors(config):
    with pytest.raises(ConfigError):
        config.get("nope", "x")
    with pytest.raises(ConfigError):
        config.getint("app", "name")
    with pytest.raises(InterpolationError, match="circular"):
        config.get("loop", "a")


def test_unknown_reference(config):
    bad = Config.from_string("[a]\nx = ${nothing}\n")
    with pytest.raises(InterpolationError, match="unknown reference"):
        bad.get("a", "x")


def test_from_file(tmp_path):
    path = tmp_path / "app.ini"
    path.write_text("[s]\nk = v\n")
    assert Config.from_file(path).section("s") == {"k": "v"}
