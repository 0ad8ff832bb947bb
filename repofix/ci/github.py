"""One small GitHub REST client: urllib, JSON, `GITHUB_API_URL` honoured (GitHub Enterprise), retries
on secondary rate limits and 5xx. Tokens travel only in the Authorization header, never in messages."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from repofix import config

DEFAULT_API = "https://api.github.com"
USER_AGENT = "repofix-ci"
MAX_WAIT = 600.0  # a longer wait (an exhausted hourly quota) fails now rather than idling the job


class GitHubError(RuntimeError):
    """A GitHub API call failed; `status` is the HTTP status (0 when the server was unreachable)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


def _is_rate_limited(status: int, headers: Any, body: str) -> bool:
    if status == 429:
        return True
    if status != 403:
        return False
    return (
        "rate limit" in body.lower()
        or headers.get("Retry-After") is not None
        or headers.get("X-RateLimit-Remaining") == "0"
    )


def _wait_seconds(headers: Any, attempt: int) -> float:
    """GitHub's advice: Retry-After if given, else until X-RateLimit-Reset, else exponential from 1 minute
    (scaled by REPOFIX_GITHUB_BACKOFF so tests need not wait)."""
    scale = config.github_backoff_scale()
    if headers.get("Retry-After"):
        return float(headers["Retry-After"]) * scale
    if headers.get("X-RateLimit-Remaining") == "0" and headers.get("X-RateLimit-Reset"):
        return max(0.0, float(headers["X-RateLimit-Reset"]) - time.time()) * scale
    return 60.0 * (2**attempt) * scale


class GitHub:
    """REST calls for one repository (`owner/name`)."""

    def __init__(
        self,
        repository: str,
        token: str | None,
        api_url: str | None = None,
        *,
        retries: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30.0,
    ) -> None:
        self.repository = repository
        self.api_url = (api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API).rstrip("/")
        self._token = token
        self.retries = retries
        self.sleep = sleep
        self.timeout = timeout

    @property
    def token(self) -> str | None:
        return self._token

    # -- transport -----------------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        params: dict[str, Any] | None = None,
        ok404: bool = False,
    ) -> tuple[Any, Any]:
        """(decoded JSON or None, response headers). `path` is relative to the API root."""
        url = path if path.startswith("http") else f"{self.api_url}/{path.lstrip('/')}"
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
        data = None if body is None else json.dumps(body).encode()
        headers = {
            "Accept": "application/vnd.github+json",
            "User-Agent": USER_AGENT,
            "X-GitHub-Api-Version": "2022-11-28",
        }
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as response:
                    raw = response.read()
                    return (json.loads(raw) if raw.strip() else None), response.headers
            except urllib.error.HTTPError as error:
                text = error.read().decode("utf-8", "replace")
                if error.code == 404 and ok404:
                    return None, error.headers
                retry = _is_rate_limited(error.code, error.headers, text) or error.code >= 500
                wait = _wait_seconds(error.headers, attempt) if error.code < 500 else 2.0**attempt
                if retry and attempt < self.retries and wait <= MAX_WAIT:
                    self.sleep(wait)
                    continue
                message = _message(text)
                raise GitHubError(
                    f"GitHub {method} {_path_only(url)} failed: HTTP {error.code}: {message}", error.code
                ) from None
            except (urllib.error.URLError, OSError) as error:
                if attempt < self.retries:
                    self.sleep(2.0**attempt)
                    continue
                raise GitHubError(f"GitHub API at {self.api_url} is unreachable: {error}") from None
        raise AssertionError("unreachable")

    def paginate(self, path: str, params: dict[str, Any] | None = None, limit: int = 50) -> list[Any]:
        """Every item of a list endpoint, following Link: rel="next" (at most `limit` pages)."""
        items: list[Any] = []
        url: str | None = path
        query: dict[str, Any] | None = {"per_page": 100, **(params or {})}
        for _ in range(limit):
            if url is None:
                break
            page, headers = self.request("GET", url, params=query)
            items.extend(page or [])
            url, query = _next_link(headers.get("Link") or ""), None
        return items

    # -- the calls repofix needs --------------------------------------------------------------------
    def _repo(self, suffix: str) -> str:
        return f"repos/{self.repository}/{suffix}"

    def pull(self, number: int) -> dict[str, Any]:
        return self.request("GET", self._repo(f"pulls/{int(number)}"))[0]

    def pulls_for_head(self, owner: str, branch: str) -> list[dict[str, Any]]:
        return self.paginate(self._repo("pulls"), {"state": "open", "head": f"{owner}:{branch}"}, limit=2)

    def permission(self, login: str) -> str:
        """The user's permission on the repository: admin, maintain, write, triage, read or none."""
        data, _ = self.request(
            "GET", self._repo(f"collaborators/{urllib.parse.quote(login)}/permission"), ok404=True
        )
        if not data:
            return "none"
        role = data.get("role_name") or ""
        return (
            role
            if role in ("admin", "maintain", "write", "triage", "read")
            else data.get("permission", "none")
        )

    def comments(self, number: int) -> list[dict[str, Any]]:
        return self.paginate(self._repo(f"issues/{int(number)}/comments"))

    def create_comment(self, number: int, body: str) -> dict[str, Any]:
        return self.request("POST", self._repo(f"issues/{int(number)}/comments"), {"body": body})[0]

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        return self.request("PATCH", self._repo(f"issues/comments/{int(comment_id)}"), {"body": body})[0]


def _message(text: str) -> str:
    try:
        return str(json.loads(text).get("message", ""))[:300]
    except (ValueError, AttributeError):
        return text[:300]


def _path_only(url: str) -> str:
    return urllib.parse.urlsplit(url).path


def _next_link(link: str) -> str | None:
    for part in link.split(","):
        if 'rel="next"' in part:
            return part[part.find("<") + 1 : part.find(">")]
    return None
