"""The human review file ``clusters.yaml``: checking it, seed suggestions, writing it, and carrying
its decisions over to a re-clustering (docs/design.md §3.2)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import yaml

from ..io import atomic_write_text
from .problems import LabelError, compose, line_of, mapping
from .types import TypeHierarchy

STATUSES = ("suggested", "confirmed", "rejected")
CLUSTER_KEYS = {"id", "pivot", "size", "mean_cos", "std_cos", "members", "suggested", "label", "status", "note"}
HUMAN_KEYS = ("label", "status", "note")


def duplicate_keys(root: yaml.Node, path: Path) -> list[str]:
    """``FILE:LINE`` problems for every key repeated inside one mapping anywhere in the document, in file
    order: YAML would silently keep the last (``label: OTHER`` then ``label: PERSON`` flips a decision)."""
    problems: list[str] = []

    def visit(node: yaml.Node) -> None:
        if isinstance(node, yaml.SequenceNode):
            for item in node.value:
                visit(item)
        elif isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value in first:
                    problems.append(f"{path}:{line_of(key)}: duplicate key {key.value!r} "
                                    f"(first at line {first[key.value]})")
                elif isinstance(key, yaml.ScalarNode):
                    first[key.value] = line_of(key)
                visit(value)

    visit(root)
    return problems


def load_clusters(path: str | os.PathLike, types: TypeHierarchy, vocab: Sequence[str] | None = None) -> dict:
    """Read and check ``clusters.yaml``; raises LabelError listing every problem as FILE:LINE."""
    path = Path(path)
    root = compose(path)
    if not isinstance(root, yaml.MappingNode) or "clusters" not in mapping(root):
        raise LabelError([f"{path}:1: expected a mapping with a 'clusters' list"])
    seq = mapping(root)["clusters"][1]
    if not isinstance(seq, yaml.SequenceNode):
        raise LabelError([f"{path}:{line_of(seq)}: 'clusters' must be a list"])
    problems = duplicate_keys(root, path)
    vocab_set = set(vocab) if vocab is not None else None
    ids: dict[int, int] = {}
    for node in seq.value:
        where = f"{path}:{line_of(node)}"
        if not isinstance(node, yaml.MappingNode):
            problems.append(f"{where}: each cluster must be a mapping")
            continue
        body = mapping(node)
        for key, (knode, _) in body.items():
            if key not in CLUSTER_KEYS:
                problems.append(f"{path}:{line_of(knode)}: unknown field {key!r}")
        for required in ("id", "pivot", "members"):
            if required not in body:
                problems.append(f"{where}: missing field {required!r}")
        if "id" in body:
            idn = body["id"][1]
            if idn.tag != "tag:yaml.org,2002:int":
                problems.append(f"{path}:{line_of(idn)}: id must be an integer")
            elif int(idn.value) in ids:
                problems.append(f"{path}:{line_of(idn)}: duplicate id {idn.value} (first at line {ids[int(idn.value)]})")
            else:
                ids[int(idn.value)] = line_of(idn)
        members = body.get("members", (None, None))[1]
        names = []
        if members is not None and not isinstance(members, yaml.SequenceNode):
            problems.append(f"{path}:{line_of(members)}: members must be a list")
        elif members is not None:
            for m in members.value:
                names.append(m.value)
                if vocab_set is not None and m.value not in vocab_set:
                    problems.append(f"{path}:{line_of(m)}: member {m.value!r} is not in the model's vocabulary")
        if "pivot" in body and isinstance(members, yaml.SequenceNode) and body["pivot"][1].value not in names:
            problems.append(f"{path}:{line_of(body['pivot'][1])}: pivot {body['pivot'][1].value!r} is not a member")
        labels = []
        if "label" in body:
            lab = body["label"][1]
            items = lab.value if isinstance(lab, yaml.SequenceNode) else [lab]
            for item in items:
                if item.tag == "tag:yaml.org,2002:null":
                    continue
                if types.canonical(item.value) is None:
                    problems.append(f"{path}:{line_of(item)}: unknown label {item.value!r} (not in types.yaml)")
                labels.append(item.value)
        status = body["status"][1].value if "status" in body else "suggested"
        if status not in STATUSES:
            problems.append(f"{path}:{line_of(body['status'][1])}: status must be one of {', '.join(STATUSES)}")
        if status == "confirmed" and not labels:
            problems.append(f"{where}: status confirmed needs a label")
        if "suggested" in body:
            sug = body["suggested"][1]
            if isinstance(sug, yaml.MappingNode):
                for k, v in sug.value:
                    if types.canonical(k.value) is None:
                        problems.append(f"{path}:{line_of(k)}: unknown suggested label {k.value!r}")
                    if v.tag != "tag:yaml.org,2002:int":
                        problems.append(f"{path}:{line_of(v)}: suggested count must be an integer")
            elif sug.tag != "tag:yaml.org,2002:null":
                problems.append(f"{path}:{line_of(sug)}: suggested must be a mapping label: count")
    if problems:
        raise LabelError(problems)
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def cluster_labels(entry: dict) -> list[str]:
    """The human label(s) of a cluster entry as a list."""
    lab = entry.get("label")
    if lab is None:
        return []
    return [lab] if isinstance(lab, str) else [x for x in lab if x is not None]


def bootstrap(doc: dict, seeds: dict[str, Counter], types: TypeHierarchy) -> int:
    """Fill each cluster's ``suggested`` with the seed-label histogram of its members.

    Human fields (label, status other than suggested, note) are never touched. Returns how many
    clusters got suggestions.
    """
    lower = {}
    for term in seeds:
        lower.setdefault(term.lower(), term)
    n = 0
    for entry in doc["clusters"]:
        counts: Counter = Counter()
        for m in entry["members"]:
            key = m if m in seeds else lower.get(m.lower())
            if key is not None:
                counts.update(seeds[key])
        entry["suggested"] = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) or None
        entry.setdefault("label", None)
        entry.setdefault("status", "suggested")
        entry.setdefault("note", "")
        n += bool(counts)
    return n


def dump_clusters(path: str | os.PathLike, doc: dict) -> None:
    """Write clusters.yaml atomically, keys in review order."""
    order = ["id", "pivot", "size", "mean_cos", "std_cos", "label", "status", "note", "suggested", "members"]
    clusters = [{k: e[k] for k in order if k in e} for e in doc["clusters"]]
    out = {k: v for k, v in doc.items() if k != "clusters"}
    out["clusters"] = clusters
    atomic_write_text(path, yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=120))


def is_reviewed(entry: dict) -> bool:
    """Whether a person decided something about a cluster entry: a label, a status other than suggested, a note."""
    return bool(cluster_labels(entry) or entry.get("status", "suggested") != "suggested" or entry.get("note"))


def carry_labels(old: Sequence[dict], new: list[dict], min_overlap: float = 0.5) -> list[str]:
    """Move human fields from old clusters to new ones by member overlap; return a report.

    A new cluster with exactly the members of a reviewed old cluster keeps that cluster's decision
    (re-clustering an unchanged model changes nothing). Otherwise each term votes with the human
    decision (label, status, note) of the first reviewed old cluster
    that holds it (clusters are numbered in picking order, so that is the cluster that picked it).
    A new cluster takes the decision of more than ``min_overlap`` of its voting members (two or
    more); when they disagree with no such majority it is left for review and reported as a
    conflict. Splits (one old cluster's decision reaching several new clusters, two or more of its
    terms each), merges (several old clusters agreeing on one new cluster) and old reviewed clusters
    none of whose members survive (lost) are reported too.
    """
    def decision(o: dict) -> tuple:
        return tuple(sorted(cluster_labels(o))), o.get("status", "suggested")

    def show(d: tuple) -> str:
        return f"{list(d[0]) or '-'}/{d[1]}"

    owner: dict[str, dict] = {}
    for o in sorted((o for o in old if is_reviewed(o)), key=lambda o: o["id"]):
        for m in o["members"]:
            owner.setdefault(m, o)
    present = {m for e in new for m in e["members"]}
    report: list[str] = [f"lost: old cluster {o['id']} ({o['pivot']}) shares no member with the new clusters"
                         for o in old if is_reviewed(o) and not present.intersection(o["members"])]
    same = {frozenset(o["members"]): o for o in old if is_reviewed(o)}
    reached: dict[int, list[int]] = {}
    for e in new:
        if (src := same.get(frozenset(e["members"]))) is not None:
            e.update({key: src[key] for key in HUMAN_KEYS if key in src})
            continue
        voters = [owner[m] for m in e["members"] if m in owner]
        votes = Counter(decision(o) for o in voters)
        if not votes:
            continue
        (best, n), total = votes.most_common(1)[0], len(voters)
        if n >= 2 and n > min_overlap * total:
            by_source = Counter(o["id"] for o in voters if decision(o) == best)
            src = next(o for o in voters if o["id"] == by_source.most_common(1)[0][0])
            for key in HUMAN_KEYS:
                if key in src:
                    e[key] = src[key]
            for oid, c in by_source.items():
                if c >= 2:
                    reached.setdefault(oid, []).append(e["id"])
            if sum(c >= 2 for c in by_source.values()) > 1:
                report.append(f"merge: new cluster {e['id']} ({e['pivot']}) <- old "
                              f"{sorted(oid for oid, c in by_source.items() if c >= 2)} (same decision)")
        elif len(votes) > 1:
            tally = "; ".join(f"{show(d)} x{c}" for d, c in votes.most_common())
            e["status"], e["note"] = "suggested", f"conflict: members were {tally}"
            report.append(f"conflict: new cluster {e['id']} ({e['pivot']}) members were {tally} - left for review")
    for oid, targets in sorted(reached.items()):
        if len(targets) > 1:
            o = next(o for o in old if o["id"] == oid)
            report.append(f"split: old cluster {oid} ({o['pivot']}) -> new {sorted(targets)}")
    return report
