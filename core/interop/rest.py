"""The request plumbing pynautobot and pynetbox share (pynetbox is pynautobot's ancestor: the
same endpoints, records and errors).

Every failure of a request becomes one line naming the server and what could not be done, with
the HTTP status and the start of the server's answer; never the token, which travels in the
request header only.
"""

from __future__ import annotations

import importlib

from core.errors import DesignError

CHUNK = 100  # rows per bulk request: a request a server answers in seconds


def check_url(url: str) -> None:
    """A server URL the clients may use: http(s), and no user:password in it, which would
    otherwise travel into the project's provenance and every message that names the server."""
    if not url.startswith(("http://", "https://")):
        raise DesignError(f"{url.split('@')[-1]}: not an http(s) URL")
    host = url.split("://", 1)[1].split("/", 1)[0]
    if "@" in host:
        raise DesignError(f"{url.split('://')[0]}://{host.split('@')[-1]}: the URL carries "
                          "credentials; give the server's address and pass the token with --token")


def connected(module: str, server: str, url: str, token: str, **options):
    """An API handle of the client ``module`` (pynautobot or pynetbox: the same ``api(url,
    token=...)``) for ``url``, with a timeout on every request and checked by one; a one-line
    error that never holds the token."""
    try:
        client = importlib.import_module(module)
    except ImportError:
        extra = server.lower()
        raise DesignError(f"{server} needs {module}: pip install 'cluster-designer[{extra}]'") from None
    check_url(url)
    if not token:
        raise DesignError(f"no {server} token: pass --token or set {server.upper()}_TOKEN")
    api = client.api(url, token=token, **options)
    api.http_session.request = with_timeout(api.http_session.request)
    call(lambda: api.status(), url, "reach the server")
    return api


def with_timeout(request, seconds: float = 300.0):
    """``request`` (a requests.Session's) with a timeout, so a server that stops answering is an
    error and not a hang."""
    def call(*args, **kwargs):
        kwargs.setdefault("timeout", seconds)
        return request(*args, **kwargs)
    return call


def call(fn, where: str, what: str):
    """``fn()``, with any failure of the request as one line naming ``where`` and ``what``."""
    try:
        return fn()
    except DesignError:
        raise
    except Exception as exc:  # noqa: BLE001 - requests' and the clients' errors, reduced to one line
        status = getattr(getattr(exc, "req", None), "status_code", None)
        detail = _detail(exc)
        raise DesignError(f"{where}: cannot {what}" + (f" (HTTP {status}{detail})" if status else
                                                         f" ({type(exc).__name__})")) from None


def _detail(exc) -> str:
    error = getattr(exc, "error", "")
    text = str(error) if error else ""
    text = text.replace("\n", " ")
    return f": {text[:160]}" if text else ""


def get_or_create(endpoint, url: str, key: dict, extra: dict, lookup: dict | None = None):
    """The record ``lookup`` (default: ``key``) finds, else the one created from ``key`` and
    ``extra``."""
    found = call(lambda: endpoint.get(**(lookup or key)), url, f"read {endpoint.name}")
    if found is not None:
        return found
    return call(lambda: endpoint.create(**key, **extra), url, f"create {endpoint.name} {list(key.values())[0]!r}")


def bulk(endpoint, url: str, what: str, rows: list[dict]) -> list:
    """Create ``rows`` in chunks (one request each); their ids in order."""
    ids: list = []
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        created = call(lambda c=chunk: endpoint.create(c), url, what)
        ids += [record.id for record in created]
    return ids
