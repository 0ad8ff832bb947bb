import pytest

from microweb.routing import Router, compile_pattern


def test_compile_pattern_converters():
    regex, converters = compile_pattern("/a/<int:id>/<name>")
    m = regex.fullmatch("/a/12/x")
    assert m.groupdict() == {"id": "12", "name": "x"}
    assert converters["id"]("12") == 12


def test_unknown_converter():
    with pytest.raises(ValueError):
        compile_pattern("/a/<float:x>")


def test_router_matches_method_and_path():
    router = Router()
    router.add("GET", "/items/<int:n>", "get-item")
    router.add("put", "/items/<int:n>", "put-item")
    route, params = router.match("PUT", "/items/7")
    assert route.handler == "put-item" and params == {"n": 7}
    assert router.match("GET", "/items/x") is None
