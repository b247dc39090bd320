"""``uner annotate``: a local, keyboard-first web page for the one human step, labelling the
vocabulary clusters in ``clusters.yaml`` (docs/design.md §2, §3.2).

Modules, lowest first: ``history`` (undo steps), ``context`` (frequency, examples, neighbours,
seed evidence, type lists), ``doubt`` (tagged entities per cluster, ``--records``), ``workbench`` (the
state, decisions, saving), ``app`` (the Starlette app and uvicorn server); ``static/`` holds the page
(plain HTML, JS and CSS, no CDN).
"""

from .app import bind, create_app, is_loopback, make_server, running, url
from .workbench import RequestError, Workbench, open_workbench, view_status

__all__ = ["RequestError", "Workbench", "bind", "create_app", "is_loopback", "make_server", "open_workbench",
           "running", "url", "view_status"]
