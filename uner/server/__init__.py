"""``uner annotate``: a local, keyboard-first web page for the one human step, labelling the
vocabulary clusters in ``clusters.yaml`` (docs/design.md §2, §3.2).

Modules, lowest first: ``history`` (undo steps), ``context`` (frequency, examples, neighbours,
seed evidence, type lists), ``doubt`` (tagged entities per cluster, ``--records``), ``demand`` (the corpus
spans depending on each cluster, ``uner adapt``), ``workbench`` (the state, decisions, saving), ``opening`` (a
folder with its context), ``app`` (the Starlette app and uvicorn server); ``static/`` holds the page
(plain HTML, JS and CSS, no CDN).
"""

from .app import bind, create_app, is_loopback, make_server, running, url
from .opening import open_workbench
from .workbench import RequestError, Workbench, view_status

__all__ = ["RequestError", "Workbench", "bind", "create_app", "is_loopback", "make_server", "open_workbench",
           "running", "url", "view_status"]
