"""A local stand-in for the subset of GitHub's REST API that `repofix ci` uses, recording every
request: collaborator permission, pulls (get, list by head), issue comments (list with pagination,
create, update). Tokens are "read" or "write"; writes with a read token get GitHub's 403. Secondary
rate limits can be injected to exercise retries."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class Repo:
    full_name: str
    permissions: dict[str, str] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


class GitHubServer:
    def __init__(
        self,
        tokens: dict[str, str] | None = None,
        bot_login: str = "github-actions[bot]",
        page_size: int = 100,
    ) -> None:
        self.tokens = tokens or {
            "ghs_readtoken0123456789abcdefghij": "read",
            "ghs_writetoken0123456789abcdefghi": "write",
        }
        self.bot_login = bot_login
        self.page_size = page_size
        self.repos: dict[str, Repo] = {}
        self.requests: list[Recorded] = []
        self.rate_limited = 0  # answer this many next requests with a secondary rate limit
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    # -- lifecycle -----------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> GitHubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- state ---------------------------------------------------------------------------------------
    def repo(self, full_name: str) -> Repo:
        return self.repos.setdefault(full_name, Repo(full_name))

    def add_pull(
        self,
        repository: str,
        number: int,
        *,
        head_sha: str,
        head_ref: str,
        head_repo: str | None = None,
        author: str = "alice",
        title: str = "A change",
        body: str = "",
    ) -> dict[str, Any]:
        head_repo = head_repo or repository
        pull = {
            "number": number,
            "state": "open",
            "title": title,
            "body": body,
            "user": {"login": author, "type": "User"},
            "head": {
                "sha": head_sha,
                "ref": head_ref,
                "label": f"{head_repo.split('/')[0]}:{head_ref}",
                "repo": {"full_name": head_repo, "owner": {"login": head_repo.split("/")[0]}},
            },
            "base": {"ref": "main", "repo": {"full_name": repository}},
        }
        self.repo(repository).pulls[number] = pull
        return pull

    def add_comment(
        self, repository: str, number: int, login: str, body: str, kind: str = "User"
    ) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            comment = {
                "id": self._next_id,
                "body": body,
                "user": {"login": login, "type": kind},
                "html_url": f"https://github.example/{repository}/pull/{number}#c{self._next_id}",
            }
        self.repo(repository).comments.setdefault(number, []).append(comment)
        return comment

    def comments(self, repository: str, number: int) -> list[dict[str, Any]]:
        return self.repo(repository).comments.get(number, [])

    def writes(self) -> list[Recorded]:
        return [r for r in self.requests if r.method in ("POST", "PATCH", "PUT", "DELETE")]

    # -- HTTP ----------------------------------------------------------------------------------------
    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                server.requests.append(
                    Recorded(
                        self.command,
                        parts.path,
                        parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                if server.rate_limited > 0:
                    server.rate_limited -= 1
                    self._send(
                        403,
                        {
                            "message": "You have exceeded a secondary rate limit. Please wait a few "
                            "minutes before you try again."
                        },
                        {"Retry-After": "1"},
                    )
                    return
                auth = self.headers.get("Authorization", "")
                scope = (
                    server.tokens.get(auth.removeprefix("Bearer ").strip())
                    if auth.startswith("Bearer ")
                    else None
                )
                if scope is None:
                    self._send(401, {"message": "Bad credentials"})
                    return
                if self.command != "GET" and scope != "write":
                    self._send(403, {"message": "Resource not accessible by integration"})
                    return
                status, data, headers = server.route(
                    self.command, parts.path, parse_qs(parts.query), body, scope
                )
                self._send(status, data, headers)

            do_GET = do_POST = do_PATCH = _serve

        return Handler

    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, scope: str
    ) -> tuple[int, Any, dict[str, str]]:
        match = re.fullmatch(r"/repos/([^/]+/[^/]+)/(.*)", path)
        if not match or match.group(1) not in self.repos:
            return 404, {"message": "Not Found"}, {}
        repo, rest = self.repos[match.group(1)], match.group(2)
        if method == "GET" and (m := re.fullmatch(r"collaborators/([^/]+)/permission", rest)):
            level = {k.lower(): v for k, v in repo.permissions.items()}.get(m.group(1).lower(), "read")
            role = level
            permission = {"maintain": "write", "triage": "read"}.get(level, level)
            return 200, {"permission": permission, "role_name": role, "user": {"login": m.group(1)}}, {}
        if method == "GET" and (m := re.fullmatch(r"pulls/(\d+)", rest)):
            pull = repo.pulls.get(int(m.group(1)))
            return (200, pull, {}) if pull else (404, {"message": "Not Found"}, {})
        if method == "GET" and rest == "pulls":
            head = (query.get("head") or [""])[0]
            found = [
                p
                for p in repo.pulls.values()
                if p["state"] == "open" and (not head or p["head"]["label"] == head)
            ]
            return 200, found, {}
        if m := re.fullmatch(r"issues/(\d+)/comments", rest):
            number = int(m.group(1))
            if method == "POST":
                comment = self.add_comment(repo.full_name, number, self.bot_login, body["body"], "Bot")
                return 201, comment, {}
            items = repo.comments.get(number, [])
            size = min(int((query.get("per_page") or ["30"])[0]), self.page_size)
            page = int((query.get("page") or ["1"])[0])
            chunk = items[(page - 1) * size : page * size]
            headers = {}
            if page * size < len(items):
                headers["Link"] = (
                    f"<{self.url}/repos/{repo.full_name}/issues/{number}/comments?per_page={size}"
                    f'&page={page + 1}>; rel="next"'
                )
            return 200, chunk, headers
        if method == "PATCH" and (m := re.fullmatch(r"issues/comments/(\d+)", rest)):
            for comments in repo.comments.values():
                for comment in comments:
                    if comment["id"] == int(m.group(1)):
                        if comment["user"]["login"] != self.bot_login:
                            return 403, {"message": "Resource not accessible by integration"}, {}
                        comment["body"] = body["body"]
                        return 200, comment, {}
            return 404, {"message": "Not Found"}, {}
        return 404, {"message": f"not implemented here: {method} {path}"}, {}


# -- a pull request's repository on disk -----------------------------------------------------------------


def git(cwd, *args: str) -> str:
    import os
    import subprocess

    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Alice",
        "GIT_AUTHOR_EMAIL": "alice@example.com",
        "GIT_COMMITTER_NAME": "Alice",
        "GIT_COMMITTER_EMAIL": "alice@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout.strip()


def commit_files(work, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        path = work / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    return git(work, "rev-parse", "HEAD")


BUGGY = {
    "pkg/__init__.py": "",
    "pkg/calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from pkg.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n",
}


def make_remote(root, pr_number: int = 1, branch: str = "feature") -> tuple:
    """A bare repository standing in for GitHub's copy: `main` passes, `branch` (the PR, also published
    as refs/pull/N/head like GitHub does) breaks `add`. Returns (bare path, work clone, head sha)."""
    bare, work = root / "origin.git", root / "work"
    git(root, "init", "-q", "--bare", "-b", "main", str(bare))
    git(root, "init", "-q", "-b", "main", str(work))
    commit_files(work, {**BUGGY, "pkg/calc.py": "def add(a, b):\n    return a + b\n"}, "add")
    git(work, "checkout", "-q", "-b", branch)
    head = commit_files(work, BUGGY, "refactor add")
    git(work, "push", "-q", str(bare), "main", branch, f"{branch}:refs/pull/{pr_number}/head")
    return bare, work, head


READ_TOKEN, WRITE_TOKEN = "ghs_readtoken0123456789abcdefghij", "ghs_writetoken0123456789abcdefghi"
FIX_PATCH = (
    "diff --git a/pkg/calc.py b/pkg/calc.py\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n"
    "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
)


class World:
    """A repository `acme/widgets` on the API stand-in and on disk, with PR #1 (branch `feature`, whose
    tests fail). `alice` is an admin, `carol` may only read."""

    repository = "acme/widgets"

    def __init__(self, root, server: GitHubServer, fork: bool = False) -> None:
        self.root, self.server = root, server
        self.bare, self.work, self.head = make_remote(root)
        server.repo(self.repository).permissions.update(alice="admin", carol="read")
        self.pull = server.add_pull(
            self.repository,
            1,
            head_sha=self.head,
            head_ref="feature",
            head_repo="mallory/widgets" if fork else None,
            title="Refactor add",
            body="Makes `add` shorter.",
        )

    def branch(self, name: str = "feature") -> str:
        return git(self.bare, "rev-parse", f"refs/heads/{name}")

    def move_head(self) -> str:
        """Someone pushes to the PR branch (GitHub updates refs/pull/1/head and the API)."""
        git(self.work, "checkout", "-q", "feature")
        sha = commit_files(self.work, {"NOTES.md": "more\n"}, "notes")
        git(self.work, "push", "-q", str(self.bare), "feature", "feature:refs/pull/1/head")
        self.pull["head"]["sha"] = sha
        return sha

    def bot_comments(self) -> list[dict]:
        return [
            c for c in self.server.comments(self.repository, 1) if c["user"]["login"] == self.server.bot_login
        ]

    def env(self, event_name: str, payload: dict, token: str = READ_TOKEN) -> dict[str, str]:
        import json

        path = self.root / f"event-{len(list(self.root.glob('event-*')))}.json"
        path.write_text(json.dumps(payload))
        return {
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_API_URL": self.server.url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_TOKEN": token,
            "GITHUB_STEP_SUMMARY": str(self.root / "step-summary.md"),
            "REPOFIX_GIT_REMOTE": str(self.bare),
            "REPOFIX_HOME": str(self.root / "home"),
            "REPOFIX_GITHUB_BACKOFF": "0",
        }
