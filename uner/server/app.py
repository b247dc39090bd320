"""The web app of ``uner annotate``: a Starlette JSON API over a ``Workbench`` plus the page's static
files, served by uvicorn. Loopback only by default; any other address needs a token on every request.

Starlette (routing, requests, responses, static files) and uvicorn (the HTTP server) are small,
well-kept libraries; the standard library's ``http.server`` would need hand-written routing, body
parsing, error mapping and static file serving, and its docs advise against it beyond local testing.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from .workbench import RequestError, Workbench

if TYPE_CHECKING:
    import uvicorn

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 1 << 20
TOKEN_COOKIE = "uner_token"
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) only reaches this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Gate:
    """ASGI middleware: with a token, every request must carry it (``X-Uner-Token`` header, ``token``
    query parameter or the cookie the page gets); without one, only loopback Host names are served
    (no DNS rebinding). A cross-site Origin is refused either way."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (why := self.refuse(Request(scope))):
            await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def refuse(self, request: Request) -> str | None:
        host = request.headers.get("host", "")
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != host:
            return "cross-site request refused"
        if self.token is None:
            name = host if host.endswith("]") else host.rsplit(":", 1)[0]
            return None if name in LOOPBACK_NAMES else f"host {name!r} refused: uner annotate serves loopback only"
        given = (request.headers.get("x-uner-token") or request.query_params.get("token")
                 or request.cookies.get(TOKEN_COOKIE) or "")
        return None if hmac.compare_digest(given.encode(), self.token.encode()) else \
            "missing or wrong token: open the URL that `uner annotate` printed"


async def _body(request: Request) -> dict:
    """The JSON object a POST carries (none: an empty object); 415/413/400 for anything else."""
    raw = await request.body()
    if not raw:
        return {}
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise RequestError("send JSON (Content-Type: application/json)", 415)
    if len(raw) > MAX_BODY:
        raise RequestError("request too large", 413)
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(f"malformed JSON: {exc}") from None
    if not isinstance(body, dict):
        raise RequestError("expected a JSON object")
    return body


def _int(value: object, name: str) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RequestError(f"{name} must be an integer") from None


def _since(request: Request) -> int | None:
    since = request.query_params.get("since")
    return None if since is None else _int(since, "since")


def create_app(wb: Workbench, token: str | None = None) -> Starlette:
    """The annotation app over a workbench; with ``token`` every request must carry it."""

    def api(handler: Callable[[Request, dict], dict]) -> Callable:
        async def endpoint(request: Request) -> Response:
            try:
                body = await _body(request) if request.method == "POST" else {}
                return JSONResponse(await run_in_threadpool(handler, request, body))
            except RequestError as exc:
                return JSONResponse({"error": exc.message, "id": exc.cluster}, status_code=exc.status)
        return endpoint

    def after_change(version: int, body: dict, count: int = 1) -> dict:
        wb.commit(version, count)
        return wb.state(body["since"])

    def checked(body: dict) -> dict:
        """The body with ``since`` (the version the page has) checked before anything changes."""
        return {**body, "since": None if body.get("since") is None else _int(body["since"], "since")}

    def decision(request: Request, body: dict) -> dict:
        cid, body = _int(request.path_params["cid"], "cluster id"), checked(body)
        return after_change(wb.decide(cid, body.get("rev"), body.get("label"), body.get("status"), body.get("note")), body)

    def decisions(request: Request, body: dict) -> dict:
        body = checked(body)
        return after_change(wb.decide_many(body.get("decisions")), body, len(body["decisions"]))

    def bulk(request: Request, body: dict) -> dict:
        body, revs = checked(body), body.get("revs")
        if not isinstance(revs, dict):
            raise RequestError("revs must map cluster ids to the rev each was seen at")
        return after_change(wb.bulk({_int(k, "cluster id"): v for k, v in revs.items()}, body.get("label"),
                                    body.get("note")), body)

    def undo(request: Request, body: dict) -> dict:
        body = checked(body)
        version, step = wb.undo()
        return {**after_change(version, body), "undone": [c.id for c in step.changes]}

    def state(request: Request, body: dict) -> dict:
        wb.refresh()
        return wb.state(_since(request))

    def terms(request: Request, body: dict) -> dict:
        body = checked(body)
        labels = wb.set_term(body.get("term"), body.get("labels"))
        return {"term": body["term"], "labels": labels, **wb.state(body["since"])}

    def new_type(request: Request, body: dict) -> dict:
        return wb.add_type(body.get("name"), body.get("parent"), body.get("description", ""))

    async def index(request: Request) -> Response:
        response = HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))
        if token is not None and request.query_params.get("token") == token:
            response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    routes = [
        Route("/", index),
        Route("/api/boot", api(lambda request, body: wb.boot())),
        Route("/api/state", api(state)),
        Route("/api/clusters/{cid}", api(lambda request, body: wb.detail(_int(request.path_params["cid"], "cluster id")))),
        Route("/api/clusters/{cid}/decision", api(decision), methods=["POST"]),
        Route("/api/decisions", api(decisions), methods=["POST"]),
        Route("/api/bulk", api(bulk), methods=["POST"]),
        Route("/api/undo", api(undo), methods=["POST"]),
        Route("/api/terms", api(terms), methods=["POST"]),
        Route("/api/types", api(new_type), methods=["POST"]),
        Route("/api/words", api(lambda request, body: {"words": wb.words()})),
        Route("/api/compile", api(lambda request, body: {"message": wb.compile(), **wb.state()}), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(Gate, token=token)
    return app


def bind(host: str = "127.0.0.1", port: int = 8000) -> socket.socket:
    """A listening socket (port 0: any free port); OSError when the address is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    return sock


def url(sock: socket.socket, token: str | None = None) -> str:
    """The page's address on a bound socket."""
    host, port = sock.getsockname()[:2]
    if ipaddress.ip_address(host).is_unspecified:  # listening on every interface: name this machine
        host = socket.gethostname()
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{port}/" + (f"?token={token}" if token else "")


def make_server(app: Starlette) -> uvicorn.Server:
    """A uvicorn server for the app (``.run(sockets=[sock])``; set ``.should_exit`` to stop it)."""
    import uvicorn

    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))


@contextmanager
def running(app: Starlette, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Serve the app in a background thread (tests, benchmarks, notebooks); yields its URL."""
    sock = bind(host, port)
    server = make_server(app)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the annotation server did not start")
        time.sleep(0.02)
    try:
        yield url(sock)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
