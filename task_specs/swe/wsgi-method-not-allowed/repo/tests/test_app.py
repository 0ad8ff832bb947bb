def test_get_json(client):
    resp = client.get("/users")
    assert resp.status == 200
    assert resp.headers["Content-Type"] == "application/json"
    assert resp.json() == [{"id": 1, "name": "ada"}]


def test_post_and_path_params(client):
    assert client.post("/users", {"name": "grace"}).json() == {"id": 2, "name": "grace"}
    assert client.get("/users/2").json()["name"] == "grace"


def test_handler_http_error(client):
    resp = client.get("/users/99")
    assert resp.status == 404
    assert resp.json() == {"error": "no user 99"}


def test_unknown_path_is_404(client):
    resp = client.get("/nope")
    assert resp.status == 404
    assert "Allow" not in resp.headers


def test_path_converter(client):
    assert client.get("/files/a/b.txt").body == b"file a/b.txt"


def test_unhandled_exception_is_500(client):
    assert client.get("/boom").status == 500


def test_content_length(client):
    resp = client.get("/users")
    assert int(resp.headers["Content-Length"]) == len(resp.body)
