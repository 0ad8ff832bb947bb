"""microweb: a tiny WSGI framework."""

from microweb.app import App, HTTPError
from microweb.request import Request
from microweb.response import Response, json_response

__all__ = ["App", "HTTPError", "Request", "Response", "json_response"]
