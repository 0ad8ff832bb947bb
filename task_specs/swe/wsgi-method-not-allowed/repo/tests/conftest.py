import pytest

from microweb import App, HTTPError
from microweb.testing import Client


@pytest.fixture
def app():
    app = App()
    users = {1: {"id": 1, "name": "ada"}}

    @app.get("/users")
    def list_users(request):
        return list(users.values())

    @app.post("/users")
    def create_user(request):
        data = request.json()
        user = {"id": max(users) + 1, "name": data["name"]}
        users[user["id"]] = user
        return user

    @app.route("/users/<int:user_id>", methods=["GET", "DELETE"])
    def user(request, user_id):
        if user_id not in users:
            raise HTTPError(404, f"no user {user_id}")
        if request.method == "DELETE":
            return users.pop(user_id)
        return users[user_id]

    @app.get("/files/<path:name>")
    def files(request, name):
        return f"file {name}"

    @app.get("/boom")
    def boom(request):
        raise RuntimeError("boom")

    return app


@pytest.fixture
def client(app):
    return Client(app)
