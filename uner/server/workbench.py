"""The state behind the annotation page: the clusters under review, decisions with an undo history, and
saving ``clusters.yaml`` so that neither two tabs nor a hand edit of the file lose a decision.

Every change bumps a version and stamps the changed clusters with it (their ``rev``). A decision names
the ``rev`` it was made on and is refused (409) when the cluster changed since, so one tab never
overwrites another's decision unseen. Writes are serialised: a decision is acknowledged once a write
of a state that includes it has finished; decisions that arrive during a write are saved together by
the next one. A write first checks whether the file changed on disk since the last read or write
(a hand edit, a second server); if so it reloads the file, validated, and replays the unsaved changes
over it, refusing those whose cluster was changed there.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

from ..labels import STATUSES, LabelError, LabelsFolder, Review, cluster_labels, compile_folder, model_embeddings
from ..labels.terms_file import set_term_labels
from ..labels.user_types import NewType, add_type
from .context import Context, key_types, type_list
from .demand import Demand
from .doubt import Doubt
from .history import Change, Step, human, restore

VIEW_STATUSES = ("unlabelled", "suggested", "conflict", "confirmed", "rejected")
MAX_NOTE = 1000
MAX_BULK = 500
HISTORY = 100


class RequestError(Exception):
    """A request that was refused, with the HTTP status to answer; nothing was changed."""

    def __init__(self, message: str, status: int = 400, cluster: int | None = None) -> None:
        super().__init__(message)
        self.message, self.status, self.cluster = message, status, cluster


def view_status(entry: dict) -> str:
    """The queue status: confirmed / rejected, else conflict (left by a re-clustering), suggested (a
    bootstrap suggestion waits) or unlabelled."""
    status = entry.get("status") or "suggested"
    if status != "suggested":
        return status
    if str(entry.get("note") or "").startswith("conflict:"):
        return "conflict"
    return "suggested" if entry.get("suggested") else "unlabelled"


class Workbench:
    """A labels folder under review. Thread-safe: the web app calls it from worker threads."""

    def __init__(self, labels: LabelsFolder, review: Review, context: Context | None = None,
                 doubt: Doubt | None = None, demand: Demand | None = None) -> None:
        self.labels, self.review, self.types, self.doubt, self.demand = labels, review, review.types, doubt, demand
        self.context = context or Context(review.vocab or [])
        self.terms = labels.load_terms(self.types)
        self.key_types = key_types(review)
        self.version = self._saved = 0
        self.history: list[Step] = []
        self._rev: dict[int, int] = {}
        self._pending: list[tuple[int, Change]] = []
        self._dropped: dict[int, str] = {}
        self._lock, self._write_lock, self._compile_lock = threading.RLock(), threading.Lock(), threading.Lock()
        self._stamp = self._disk_stamp()
        self._embeddings = None
        self._index()

    def _index(self) -> None:
        self._by_id = {e["id"]: e for e in self.review.clusters}
        self.context.index(self.review.clusters)

    # ---- reading -------------------------------------------------------------------------------

    def counts(self) -> dict:
        """Clusters per queue status, done (confirmed or rejected) and total."""
        c = Counter(view_status(e) for e in self.review.clusters)
        return {**{s: c.get(s, 0) for s in VIEW_STATUSES}, "done": c["confirmed"] + c["rejected"],
                "total": len(self.review.clusters)}

    def top_suggestion(self, entry: dict) -> str | None:
        """The label most members were suggested (canonical name), or None."""
        sug = entry.get("suggested") or {}
        return self.types.canonical(max(sug, key=sug.get)) if sug else None

    def compact(self, entry: dict) -> dict:
        """What the queue needs of a cluster."""
        sug = entry.get("suggested") or {}
        total = sum(sug.values()) or 1
        return {"id": entry["id"], "pivot": entry["pivot"], "size": entry.get("size", len(entry["members"])),
                "status": view_status(entry), "label": cluster_labels(entry), "note": entry.get("note") or "",
                "suggested": [[self.types.canonical(k) or k, v] for k, v in list(sug.items())[:5]],
                "top": self.top_suggestion(entry), "share": round(max(sug.values(), default=0) / total, 3),
                "members": self.context.by_frequency(entry["members"]), "rev": self._rev.get(entry["id"], 0),
                **self.context.frequency(entry["members"]), **(self.doubt.summary(entry["id"]) if self.doubt else {}),
                **(self.demand.summary(entry["id"]) if self.demand else {})}

    def boot(self) -> dict:
        """Everything the page loads once: types, number-key types, what context there is, every cluster."""
        with self._lock:
            return {"file": str(self.labels.clusters_path), "types": type_list(self.review),
                    "key_types": self.key_types, "graph": self.context.graph is not None,
                    "corpus": self.context.corpus is not None, "seeds": bool(self.context.seeds),
                    "records": self.doubt is not None, "demand": self.demand.spans if self.demand else None,
                    "clusters": [self.compact(e) for e in self.review.clusters], **self.state()}

    def state(self, since: int | None = None) -> dict:
        """Version, counts, recent history and (with ``since``) the clusters changed after that version."""
        with self._lock:
            pivots = {c.id: self._by_id[c.id]["pivot"] for s in self.history for c in s.changes if c.id in self._by_id}
            out = {"version": self.version, "counts": self.counts(),
                   "history": [s.view(pivots) for s in reversed(self.history[-20:])]}
            if since is not None:
                out["changed"] = [self.compact(self._by_id[i]) for i, r in self._rev.items()
                                  if r > since and i in self._by_id]
            return out

    def detail(self, cid: int) -> dict:
        """A cluster with its neighbours (labelled), example sentences, seed evidence, term overrides and the
        least sure tagged entities touching it (with ``--records``)."""
        with self._lock:
            entry = self._entry(cid)
            out = self.compact(entry)
            out["neighbours"] = [{**n, "pivot": self._by_id[n["id"]]["pivot"], "label": cluster_labels(self._by_id[n["id"]]),
                                  "status": view_status(self._by_id[n["id"]])}
                                 for n in self.context.neighbours(entry) if n["id"] in self._by_id]
            out["evidence"] = self.context.evidence(out["members"])
            out["overrides"] = {m: sorted(self.terms[m]) for m in entry["members"] if m in self.terms}
        out["examples"] = self.context.corpus.examples(out["members"]) if self.context.corpus else []
        out["least_sure"] = self.doubt.examples(cid) if self.doubt else []
        out["descriptors"] = self.demand.descriptors(entry["members"]) if self.demand else []
        out["mean_cos"], out["std_cos"] = entry.get("mean_cos"), entry.get("std_cos")
        return out

    def words(self, n: int = 300) -> list[dict]:
        """The descriptor words the corpus's spans were given most (``uner adapt``), each with its own labels
        (terms.tsv), the labels of the confirmed clusters it is a member of (its vote when it has no own labels)
        and spans that were given it: a word's decision is the most direct one."""
        if self.demand is None:
            raise RequestError("no descriptors.jsonl in this folder: `uner adapt` writes it", 404)
        with self._lock:
            out = []
            for term, spans in self.demand.words(n):
                clusters = Counter(lab for cid in self.demand.owners.get(term, ()) for lab in
                                   cluster_labels(self._by_id[cid])[:1] if self._by_id[cid].get("status") == "confirmed")
                out.append({"term": term, "spans": spans, "own": sorted(self.terms[term]) if term in self.terms else None,
                            "clusters": dict(clusters.most_common()), "examples": self.demand.examples.get(term, [])})
            return out

    def _entry(self, cid: int) -> dict:
        if cid not in self._by_id:
            raise RequestError(f"unknown cluster id {cid}", 404)
        return self._by_id[cid]

    # ---- deciding ------------------------------------------------------------------------------

    def label_value(self, label: object) -> str | list[str] | None:
        """A label as clusters.yaml writes it (canonical names; one label as a string); 400 when unknown."""
        items = [] if label is None else [label] if isinstance(label, str) else label
        if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
            raise RequestError("label must be a label name, a list of names or null")
        names = []
        for item in items:
            name = self.types.canonical(item)
            if name is None:
                raise RequestError(f"unknown label {item!r} (not in types.yaml)")
            names.append(name)
        return None if not names else names[0] if len(names) == 1 else names

    def auto_note(self, entry: dict, label: str | list[str] | None, status: str) -> str:
        """The note a keyboard decision writes, in the reviewers' convention (REVIEW.md)."""
        top = self.top_suggestion(entry)
        if status == "rejected":
            return "reviewed: rejected"
        if status == "suggested":
            return ""
        if top is None:
            return "reviewed: labelled (no suggestion)"
        return "reviewed: accepted suggestion" if label == top else f"reviewed: corrected from suggestion {top}"

    def decide(self, cid: int, rev: int, label: object, status: str, note: str | None = None) -> int:
        """Set one cluster's label, status and note (an automatic note when ``note`` is None); the new version."""
        return self.decide_many([{"id": cid, "rev": rev, "label": label, "status": status, "note": note}])

    def decide_many(self, items: object) -> int:
        """Apply decisions ``{id, rev, label, status, note}`` in order, all or none (the error names the
        cluster); each is its own undo step. The page sends the decisions made during a save together."""
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_BULK:
            raise RequestError(f"decisions must be a list of 1 to {MAX_BULK} decisions")
        with self._lock:
            planned: list[tuple[str, dict, dict]] = []
            for item in items:
                cid = item.get("id") if isinstance(item, dict) else None
                if not isinstance(cid, int) or isinstance(cid, bool):
                    raise RequestError("each decision needs an integer id")
                try:
                    if any(entry["id"] == cid for _, entry, _ in planned):
                        raise RequestError(f"cluster {cid} is decided twice in one request")
                    entry = self._entry(cid)
                    self._check_rev(cid, item.get("rev"))
                    value, status, note = self.label_value(item.get("label")), item.get("status"), item.get("note")
                    _check_decision(value, status, note)
                except RequestError as exc:
                    exc.cluster = cid
                    raise
                what = f"{status} {value if isinstance(value, str) else '/'.join(value or [])}".strip()
                planned.append((what, entry, {"label": value, "status": status,
                                              "note": self.auto_note(entry, value, status) if note is None else note}))
            for what, entry, after in planned:
                version = self._apply(what, [(entry, after)])
            return version

    def bulk(self, revs: dict[int, int], label: object, note: str | None = None) -> int:
        """Confirm every listed cluster (id → rev seen) with one label, all or none; the new version."""
        value = self.label_value(label)
        if value is None:
            raise RequestError("bulk accept needs a label")
        if not revs or len(revs) > MAX_BULK:
            raise RequestError(f"bulk accept takes 1 to {MAX_BULK} clusters")
        _check_decision(value, "confirmed", note)
        with self._lock:
            pairs = []
            for cid, rev in revs.items():
                entry = self._entry(cid)
                self._check_rev(cid, rev)
                pairs.append((entry, {"label": value, "status": "confirmed",
                                      "note": self.auto_note(entry, value, "confirmed") if note is None else note}))
            return self._apply(f"bulk {value if isinstance(value, str) else '/'.join(value)} ×{len(pairs)}", pairs)

    def undo(self) -> tuple[int, Step]:
        """Revert the last step of the history, unless one of its clusters changed since; the new version."""
        with self._lock:
            if not self.history:
                raise RequestError("nothing to undo", 409)
            step = self.history[-1]
            for c in step.changes:
                if c.id not in self._by_id or human(self._by_id[c.id]) != c.after:
                    raise RequestError(f"cluster {c.id} changed after that decision; nothing undone", 409)
            version = self._apply(None, [(self._by_id[c.id], c.before) for c in step.changes])
            self.history.pop()
            return version, step

    def _check_rev(self, cid: int, rev: object) -> None:
        if not isinstance(rev, int) or isinstance(rev, bool):
            raise RequestError("rev (the cluster version the decision was made on) must be an integer")
        if rev != self._rev.get(cid, 0):
            raise RequestError(f"cluster {cid} was changed elsewhere (another tab?) since you saw it; "
                               "reloaded, decide again", 409)

    def _apply(self, what: str | None, pairs: list[tuple[dict, dict]]) -> int:
        """Change entries (under the lock), record the change for saving and, with ``what``, for undo."""
        self.version += 1
        changes = []
        for entry, after in pairs:
            change = Change(entry["id"], human(entry), dict(after))
            restore(entry, after)
            self._rev[entry["id"]] = self.version
            self._pending.append((self.version, change))
            changes.append(change)
        if what is not None:
            self.history = (self.history + [Step(what, changes, self.version)])[-HISTORY:]
        return self.version

    # ---- saving --------------------------------------------------------------------------------

    def commit(self, version: int, count: int = 1) -> None:
        """Return once clusters.yaml holds the ``count`` changes up to ``version``; 409 when a hand edit
        of the file changed the same cluster first (that change was not saved)."""
        self.save(version)
        with self._lock:
            why = [self._dropped.pop(v) for v in range(version - count + 1, version + 1) if v in self._dropped]
        if why:
            raise RequestError(why[0], 409)

    def save(self, upto: int | None = None) -> None:
        """Write clusters.yaml (atomically) unless a write already saved version ``upto`` (default: the
        current one); merges the file's outside changes first."""
        with self._write_lock:
            if self._disk_stamp() != self._stamp:
                self._merge_disk()
            with self._lock:
                if self._saved >= (self.version if upto is None else upto):
                    return
                doc = {**self.review.doc, "clusters": [dict(e) for e in self.review.clusters]}
                version, taken, self._pending = self.version, self._pending, []
            try:
                self.labels.save_clusters(doc)
            except BaseException:
                with self._lock:
                    self._pending = taken + self._pending
                raise
            self._stamp, self._saved = self._disk_stamp(), version

    def refresh(self) -> None:
        """Take in outside changes of clusters.yaml, if any (the page asks when it regains focus)."""
        if self._disk_stamp() != self._stamp:
            self.save(0)

    def _disk_stamp(self) -> tuple | None:
        try:
            st = os.stat(self.labels.clusters_path)
        except FileNotFoundError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def _merge_disk(self) -> None:
        """Reload the changed file (validated) and replay the unsaved changes over it (write lock held)."""
        try:
            fresh = self.labels.load_review(self.review.model)
        except LabelError as exc:
            raise RequestError(f"clusters.yaml was changed outside uner annotate and is now invalid: "
                               f"{exc.problems[0]}; fix it (nothing was written)", 409) from None
        with self._lock:
            old = {e["id"]: (e["members"], human(e)) for e in self.review.clusters}
            by_id = {e["id"]: e for e in fresh.clusters}
            for version, change in self._pending:
                entry = by_id.get(change.id)
                if entry is not None and human(entry) == change.before:
                    restore(entry, change.after)
                else:
                    self._dropped[version] = (f"cluster {change.id} was changed in {self.labels.clusters_path.name} "
                                              "outside uner annotate; reloaded, decide again")
            self.history = [s for s in self.history if s.version not in self._dropped]
            self.review = Review(fresh.types, fresh.doc, self.review.model, fresh.vocab)
            self.version += 1
            for e in fresh.clusters:
                if old.get(e["id"]) != (e["members"], human(e)):
                    self._rev[e["id"]] = self.version
            self._index()
            self._stamp = self._disk_stamp()

    # ---- terms and compiling -------------------------------------------------------------------

    def add_type(self, name: object, parent: object = None, description: object = "") -> dict:
        """A new type (or a subtype of ``parent``) saved to the folder's types.yaml; the page's type list."""
        if not isinstance(name, str) or not isinstance(parent, (str, type(None))) or not isinstance(description, str):
            raise RequestError("name, parent and description must be text")
        with self._lock:
            try:
                self.types = self.review.types = add_type(self.labels, NewType(name.strip().upper(), parent or None,
                                                                               description.strip()))
            except LabelError as exc:
                raise RequestError("; ".join(exc.problems)) from None
            return {"types": type_list(self.review)}

    def set_term(self, term: object, labels: object) -> list[str]:
        """Give a vocabulary term its own labels in terms.tsv (none: remove its override); the labels written."""
        if not isinstance(term, str) or (self.review.vocab is not None and term not in self.context.rank):
            raise RequestError(f"term {term!r} is not in the model's vocabulary")
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise RequestError("labels must be a list of label names")
        with self._write_lock:
            try:
                names = set_term_labels(self.labels.terms_path, term, labels, self.types)
                terms = self.labels.load_terms(self.types)
            except LabelError as exc:
                raise RequestError(exc.problems[0]) from None
        with self._lock:
            self.terms = terms
            self.version += 1
            for e in self.review.clusters:
                if term in e["members"]:
                    self._rev[e["id"]] = self.version
        return names

    def compile(self) -> str:
        """Save, then rebuild label_table.npz from the saved review (as ``uner labels compile``); its report."""
        if not self._compile_lock.acquire(blocking=False):
            raise RequestError("a compile is already running", 409)
        try:
            self.save()
            with self._lock:
                review = Review(self.types, {**self.review.doc, "clusters": [dict(e) for e in self.review.clusters]},
                                self.review.model, self.review.vocab)
            embeddings, special = self._model_embeddings()
            try:
                return str(compile_folder(self.labels, review, embeddings, special, self.context.seeds))
            except LabelError as exc:
                raise RequestError(exc.problems[0], 409) from None
        finally:
            self._compile_lock.release()

    def _model_embeddings(self) -> tuple:
        """The model's input word embeddings and special-token mask (loaded on the first compile)."""
        if self._embeddings is None:
            self._embeddings = model_embeddings(self.review.model, self.review.vocab)
        return self._embeddings


def _check_decision(value: object, status: object, note: object) -> None:
    if status not in STATUSES:
        raise RequestError(f"status must be one of {', '.join(STATUSES)}")
    if status == "confirmed" and value is None:
        raise RequestError("status confirmed needs a label")
    if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
        raise RequestError(f"note must be text of at most {MAX_NOTE} characters")
