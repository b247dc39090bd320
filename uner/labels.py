"""Entity labels: type hierarchy, seed term lists, cluster review YAML, propagation.

DESIGN.md §3.2. Humans label clusters once in ``clusters.yaml``; seed term lists
bootstrap suggestions; ``compile_table`` spreads confirmed labels and seeds over
the vocabulary's neighbourhoods (E = Nᵀ N L) into a sparse vocabulary × label table.
Every file problem is reported as ``FILE:LINE: message``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from .io import write_npz

STATUSES = ("suggested", "confirmed", "rejected")
CLUSTER_KEYS = {"id", "pivot", "size", "mean_cos", "std_cos", "members", "suggested", "label", "status", "note"}
HUMAN_KEYS = ("label", "status", "note")


class LabelError(ValueError):
    """One or more problems, each ``FILE:LINE: message``."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# ---------------------------------------------------------------- types


@dataclass
class TypeHierarchy:
    """Types with their subtypes, the not-entity labels, and aliases used by seed lists."""

    types: dict[str, list[str]]
    not_entity: list[str]
    aliases: dict[str, str] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        """Every label in table order: each type followed by its subtypes, then the not-entity labels."""
        out = []
        for t, subs in self.types.items():
            out.append(t)
            out.extend(subs)
        return out + list(self.not_entity)

    def parent(self, label: str) -> str:
        """The top-level type of a label (itself for types and not-entity labels)."""
        for t, subs in self.types.items():
            if label == t or label in subs:
                return t
        return label

    def canonical(self, label: str) -> str | None:
        """The label as the hierarchy names it (aliases resolved), or None if unknown."""
        label = self.aliases.get(label, label)
        return label if label in set(self.labels) else None


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _compose(path: Path) -> yaml.Node | None:
    try:
        return yaml.compose(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise LabelError([f"{path}:{mark.line + 1 if mark else 1}: malformed YAML: {exc.problem}"]) from None
    except OSError as exc:
        raise LabelError([f"{path}:1: cannot read ({exc.strerror})"]) from None


def _mapping(node: yaml.Node) -> dict[str, tuple[yaml.Node, yaml.Node]]:
    return {k.value: (k, v) for k, v in node.value}


def load_types(path: str | os.PathLike) -> TypeHierarchy:
    """Read and check ``types.yaml``; raises LabelError listing every problem with its line."""
    path = Path(path)
    root = _compose(path)
    problems: list[str] = []
    if not isinstance(root, yaml.MappingNode):
        raise LabelError([f"{path}:1: expected a mapping with 'types'"])
    top = _mapping(root)
    if "types" not in top or not isinstance(top["types"][1], yaml.MappingNode):
        raise LabelError([f"{path}:1: missing mapping 'types'"])
    types: dict[str, list[str]] = {}
    descriptions: dict[str, str] = {}
    seen: dict[str, int] = {}

    def claim(name: str, node: yaml.Node) -> None:
        if name in seen:
            problems.append(f"{path}:{_line(node)}: label {name} already defined at line {seen[name]}")
        seen[name] = _line(node)

    for key, val in top["types"][1].value:
        claim(key.value, key)
        if not isinstance(val, yaml.MappingNode):
            problems.append(f"{path}:{_line(val)}: type {key.value} needs 'description' and 'subtypes'")
            continue
        body = _mapping(val)
        descriptions[key.value] = body["description"][1].value if "description" in body else ""
        subs = body.get("subtypes", (None, None))[1]
        names = []
        if isinstance(subs, yaml.MappingNode):
            for sk, sv in subs.value:
                claim(sk.value, sk)
                names.append(sk.value)
                descriptions[sk.value] = sv.value if isinstance(sv, yaml.ScalarNode) else ""
        elif subs is not None:
            problems.append(f"{path}:{_line(subs)}: subtypes of {key.value} must be a mapping name: description")
        types[key.value] = names
    not_entity = []
    if "not_entity" in top:
        for k, v in top["not_entity"][1].value:
            claim(k.value, k)
            not_entity.append(k.value)
            descriptions[k.value] = v.value
    if "OTHER" not in not_entity:
        problems.append(f"{path}:1: 'not_entity' must define OTHER")
    aliases = {}
    if "aliases" in top:
        known = set(seen)
        for k, v in top["aliases"][1].value:
            if v.value not in known:
                problems.append(f"{path}:{_line(v)}: alias {k.value} points to unknown label {v.value}")
            aliases[k.value] = v.value
    for name in top:
        if name not in ("types", "not_entity", "aliases"):
            problems.append(f"{path}:{_line(top[name][0])}: unknown key {name!r}")
    if problems:
        raise LabelError(problems)
    return TypeHierarchy(types, not_entity, aliases, descriptions)


# ---------------------------------------------------------------- seed lists


def read_seeds(path: str | os.PathLike, types: TypeHierarchy) -> dict[str, Counter]:
    """Seed terms → label counts, from any of the supported formats.

    Formats: the reference ``term LABEL`` per line (``ner_labeling/*``; a line may hold several
    pairs), ``LABEL1/LABEL2 term`` (``bootstrap_entities.txt``), our TSV ``term<TAB>LABEL[/LABEL…]``,
    and YAML ``LABEL: [terms]``. Unknown labels raise LabelError with FILE:LINE.
    """
    path = Path(path)
    seeds: dict[str, Counter] = {}
    problems: list[str] = []

    def add(term: str, label: str, line: int) -> None:
        name = types.canonical(label)
        if name is None:
            problems.append(f"{path}:{line}: unknown label {label!r}")
            return
        seeds.setdefault(term, Counter())[name] += 1

    if path.suffix in (".yaml", ".yml"):
        root = _compose(path)
        if not isinstance(root, yaml.MappingNode):
            raise LabelError([f"{path}:1: expected a mapping LABEL: [terms]"])
        for k, v in root.value:
            for item in v.value if isinstance(v, yaml.SequenceNode) else []:
                add(str(item.value), k.value, _line(item))
    else:
        for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if "\t" in raw:
                term, _, labels = raw.partition("\t")
                for lab in labels.strip().split("/"):
                    add(term.strip(), lab, n)
                continue
            parts = line.split()
            label_first = len(parts) == 2 and types.canonical(parts[1]) is None and all(
                types.canonical(lab) for lab in parts[0].split("/"))
            if label_first:  # bootstrap_entities.txt: LABEL1/LABEL2 term
                for lab in parts[0].split("/"):
                    add(parts[1], lab, n)
            elif len(parts) % 2 == 0:  # ner_labeling: term LABEL [term LABEL …]
                for term, lab in zip(parts[0::2], parts[1::2]):
                    add(term, lab, n)
            else:
                problems.append(f"{path}:{n}: expected 'term LABEL' or 'LABEL term'")
    if problems:
        raise LabelError(problems)
    return seeds


def seed_files(folder: str | os.PathLike) -> list[Path]:
    """The seed files of a folder laid out as ``../shared/data/seeds`` (ner_labeling/* and bootstrap)."""
    folder = Path(folder)
    files = sorted((folder / "ner_labeling").glob("*")) if (folder / "ner_labeling").is_dir() else []
    boot = folder / "bootstrap_entities.txt"
    return files + ([boot] if boot.is_file() else [])


def merge_seeds(parts: Iterable[dict[str, Counter]]) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for part in parts:
        for term, counts in part.items():
            out.setdefault(term, Counter()).update(counts)
    return out


def seed_vocab_matches(seeds: dict[str, Counter], vocab: Sequence[str]) -> dict[int, Counter]:
    """Vocabulary id → seed label counts; a seed matches its exact-case entry, else its lower-case one."""
    index = {t: i for i, t in enumerate(vocab)}
    out: dict[int, Counter] = {}
    for term in sorted(seeds):
        i = index.get(term, index.get(term.lower()))
        if i is not None:
            out.setdefault(i, Counter()).update(seeds[term])
    return out


# ---------------------------------------------------------------- clusters.yaml


def load_clusters(path: str | os.PathLike, types: TypeHierarchy, vocab: Sequence[str] | None = None) -> dict:
    """Read and check ``clusters.yaml``; raises LabelError listing every problem as FILE:LINE."""
    path = Path(path)
    root = _compose(path)
    if not isinstance(root, yaml.MappingNode) or "clusters" not in _mapping(root):
        raise LabelError([f"{path}:1: expected a mapping with a 'clusters' list"])
    seq = _mapping(root)["clusters"][1]
    if not isinstance(seq, yaml.SequenceNode):
        raise LabelError([f"{path}:{_line(seq)}: 'clusters' must be a list"])
    problems: list[str] = []
    vocab_set = set(vocab) if vocab is not None else None
    ids: dict[int, int] = {}
    for node in seq.value:
        where = f"{path}:{_line(node)}"
        if not isinstance(node, yaml.MappingNode):
            problems.append(f"{where}: each cluster must be a mapping")
            continue
        body = _mapping(node)
        for key, (knode, _) in body.items():
            if key not in CLUSTER_KEYS:
                problems.append(f"{path}:{_line(knode)}: unknown field {key!r}")
        for required in ("id", "pivot", "members"):
            if required not in body:
                problems.append(f"{where}: missing field {required!r}")
        if "id" in body:
            idn = body["id"][1]
            if idn.tag != "tag:yaml.org,2002:int":
                problems.append(f"{path}:{_line(idn)}: id must be an integer")
            elif int(idn.value) in ids:
                problems.append(f"{path}:{_line(idn)}: duplicate id {idn.value} (first at line {ids[int(idn.value)]})")
            else:
                ids[int(idn.value)] = _line(idn)
        members = body.get("members", (None, None))[1]
        names = []
        if members is not None and not isinstance(members, yaml.SequenceNode):
            problems.append(f"{path}:{_line(members)}: members must be a list")
        elif members is not None:
            for m in members.value:
                names.append(m.value)
                if vocab_set is not None and m.value not in vocab_set:
                    problems.append(f"{path}:{_line(m)}: member {m.value!r} is not in the model's vocabulary")
        if "pivot" in body and isinstance(members, yaml.SequenceNode) and body["pivot"][1].value not in names:
            problems.append(f"{path}:{_line(body['pivot'][1])}: pivot {body['pivot'][1].value!r} is not a member")
        labels = []
        if "label" in body:
            lab = body["label"][1]
            items = lab.value if isinstance(lab, yaml.SequenceNode) else [lab]
            for item in items:
                if item.tag == "tag:yaml.org,2002:null":
                    continue
                if types.canonical(item.value) is None:
                    problems.append(f"{path}:{_line(item)}: unknown label {item.value!r} (not in types.yaml)")
                labels.append(item.value)
        status = body["status"][1].value if "status" in body else "suggested"
        if status not in STATUSES:
            problems.append(f"{path}:{_line(body['status'][1])}: status must be one of {', '.join(STATUSES)}")
        if status == "confirmed" and not labels:
            problems.append(f"{where}: status confirmed needs a label")
        if "suggested" in body:
            sug = body["suggested"][1]
            if isinstance(sug, yaml.MappingNode):
                for k, v in sug.value:
                    if types.canonical(k.value) is None:
                        problems.append(f"{path}:{_line(k)}: unknown suggested label {k.value!r}")
                    if v.tag != "tag:yaml.org,2002:int":
                        problems.append(f"{path}:{_line(v)}: suggested count must be an integer")
            elif sug.tag != "tag:yaml.org,2002:null":
                problems.append(f"{path}:{_line(sug)}: suggested must be a mapping label: count")
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
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(yaml.safe_dump(out, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
    os.replace(tmp, path)


# ---------------------------------------------------------------- carrying labels across re-clustering


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
    def reviewed(o: dict) -> bool:
        return bool(cluster_labels(o) or o.get("status", "suggested") != "suggested" or o.get("note"))

    def decision(o: dict) -> tuple:
        return tuple(sorted(cluster_labels(o))), o.get("status", "suggested")

    def show(d: tuple) -> str:
        return f"{list(d[0]) or '-'}/{d[1]}"

    owner: dict[str, dict] = {}
    for o in sorted((o for o in old if reviewed(o)), key=lambda o: o["id"]):
        for m in o["members"]:
            owner.setdefault(m, o)
    present = {m for e in new for m in e["members"]}
    report: list[str] = [f"lost: old cluster {o['id']} ({o['pivot']}) shares no member with the new clusters"
                         for o in old if reviewed(o) and not present.intersection(o["members"])]
    same = {frozenset(o["members"]): o for o in old if reviewed(o)}
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


# ---------------------------------------------------------------- propagation


@dataclass
class LabelTable:
    """Sparse vocabulary × label counts (COO), with the label names in column order.

    ``rows/cols/values`` hold the propagated counts E; ``direct_*`` the unpropagated matrix L
    (human cluster labels and seed terms) it was spread from, kept so scoring can weigh a
    term's own labels above what its neighbourhoods say.
    """

    labels: list[str]
    vocab_size: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    direct_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    direct_cols: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    direct_values: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    @classmethod
    def from_dense(cls, labels: list[str], spread: np.ndarray, direct: np.ndarray | None = None) -> LabelTable:
        rows, cols = np.nonzero(spread)
        d_rows, d_cols = np.nonzero(direct) if direct is not None else (np.zeros(0, int), np.zeros(0, int))
        return cls(labels, len(spread), rows.astype(np.int32), cols.astype(np.int16),
                   spread[rows, cols].astype(np.float32), d_rows.astype(np.int32), d_cols.astype(np.int16),
                   (direct[d_rows, d_cols] if direct is not None else np.zeros(0)).astype(np.float32))

    def _dense(self, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, term_id: int | None) -> np.ndarray:
        if term_id is not None:
            hit = rows == term_id
            rows, cols, values = np.zeros(int(hit.sum()), int), cols[hit], values[hit]
        out = np.zeros((self.vocab_size if term_id is None else 1, len(self.labels)), dtype=np.float32)
        np.add.at(out, (rows, cols), values)
        return out if term_id is None else out[0]

    def dense_row(self, term_id: int) -> np.ndarray:
        """One term's propagated label counts."""
        return self._dense(self.rows, self.cols, self.values, term_id)

    def dense(self) -> np.ndarray:
        """Propagated counts E, vocabulary × labels."""
        return self._dense(self.rows, self.cols, self.values, None)

    def direct_dense(self) -> np.ndarray:
        """Unpropagated counts L (human labels + seeds), vocabulary × labels."""
        return self._dense(self.direct_rows, self.direct_cols, self.direct_values, None)

    def save(self, path: str | os.PathLike) -> None:
        write_npz(Path(path), {"labels": np.asarray(self.labels, dtype=str), "vocab_size": np.array(self.vocab_size),
                               "rows": self.rows, "cols": self.cols, "values": self.values,
                               "direct_rows": self.direct_rows, "direct_cols": self.direct_cols,
                               "direct_values": self.direct_values})

    @classmethod
    def load(cls, path: str | os.PathLike) -> LabelTable:
        with np.load(path, allow_pickle=False) as z:
            direct = [z[k] for k in ("direct_rows", "direct_cols", "direct_values") if k in z]
            return cls(z["labels"].tolist(), int(z["vocab_size"]), z["rows"], z["cols"], z["values"], *direct)


@dataclass(frozen=True)
class Weighting:
    """How a term's label counts become the label distribution it votes with (DESIGN.md §3.3).

    ``normalise`` divides each label's counts by its type's total strength to that power (0: raw
    counts; 1: fully normalised), so types with long seed lists or many labelled clusters (PERSON,
    OTHER) do not win every term by sheer mass; ``sharpness`` is the power the counts are raised
    to before normalising each row (large → one-hot, like the reference's softmax over raw counts);
    ``direct`` mixes in the term's own human/seed labels with that weight; ``not_entity`` scales the
    not-entity labels (OTHER) against the entity types, trading precision for recall.
    """

    normalise: float = 0.5
    sharpness: float = 2.0
    direct: float = 0.5
    not_entity: float = 0.1  # extra factor on the not-entity labels (OTHER…): below 1 tags more spans

    def __post_init__(self) -> None:
        if not 0 <= self.normalise <= 1 or self.sharpness <= 0 or not 0 <= self.direct <= 1 or self.not_entity <= 0:
            raise ValueError("normalise and direct must be in [0, 1], sharpness and not_entity > 0")


def type_rollup(parents: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """Type names (first-seen order) and the labels × types 0/1 matrix that sums label scores into types,
    from each label's type (``parents[j]`` for label column j)."""
    names = list(dict.fromkeys(parents))
    rollup = np.zeros((len(parents), len(names)), dtype=np.float32)
    rollup[np.arange(len(parents)), [names.index(t) for t in parents]] = 1.0
    return names, rollup


def _rows_normalised(x: np.ndarray) -> np.ndarray:
    total = x.sum(1, keepdims=True)
    return np.divide(x, total, out=np.zeros_like(x), where=total > 0)


def term_distribution(table: LabelTable, types: TypeHierarchy, weighting: Weighting = Weighting()) -> np.ndarray:
    """Vocabulary × labels: each term's label distribution (rows sum to 1, or 0 for unlabelled terms)."""
    counts = table.dense().astype(np.float64)
    if weighting.normalise:
        _, rollup = type_rollup([types.parent(lab) for lab in table.labels])
        type_strength = rollup @ (counts.sum(0) @ rollup)  # each label column gets its type's total
        counts *= np.maximum(type_strength, 1.0) ** -weighting.normalise
    if weighting.not_entity != 1:
        counts[:, [j for j, lab in enumerate(table.labels) if types.parent(lab) in types.not_entity]] *= weighting.not_entity
    counts /= counts.max(1, keepdims=True).clip(min=1e-30)
    dist = _rows_normalised(counts ** weighting.sharpness)
    if weighting.direct and len(table.direct_rows):
        own = _rows_normalised(table.direct_dense().astype(np.float64))
        has = own.sum(1) > 0
        dist[has] = (1 - weighting.direct) * dist[has] + weighting.direct * own[has]
    return dist.astype(np.float32)


def label_matrix(vocab: Sequence[str], types: TypeHierarchy, clusters: Sequence[dict],
                 seeds: dict[str, Counter], terms: dict[str, Counter] | None = None) -> np.ndarray:
    """L: vocabulary × labels counts from confirmed cluster labels and seed terms (before propagation).

    ``terms`` are per-term human labels (the labels folder's ``terms.tsv``): a listed term's row is
    replaced by its own labels, since a decision about one word beats the clusters it happens to be in.
    """
    labels = types.labels
    col = {lab: j for j, lab in enumerate(labels)}
    index = {t: i for i, t in enumerate(vocab)}
    mat = np.zeros((len(vocab), len(labels)), dtype=np.float32)
    for entry in clusters:
        if entry.get("status") != "confirmed":
            continue
        for lab in cluster_labels(entry):
            j = col[types.canonical(lab)]
            for m in entry["members"]:
                if m in index:
                    mat[index[m], j] += 1
    for i, counts in seed_vocab_matches(seeds, vocab).items():
        for lab, c in counts.items():
            mat[i, col[lab]] += c
    for i, counts in seed_vocab_matches(terms or {}, vocab).items():
        mat[i] = 0
        for lab, c in counts.items():
            mat[i, col[lab]] += c
    return mat


def propagate(label_mat: np.ndarray, neighbourhoods: np.ndarray) -> np.ndarray:
    """E = Nᵀ N L, with row i of ``neighbourhoods`` the vocabulary ids of neighbourhood i (-1 padded)."""
    import torch

    rows, slots = np.nonzero(neighbourhoods >= 0)
    cols = neighbourhoods[rows, slots]
    n = torch.sparse_coo_tensor(torch.from_numpy(np.stack([rows, cols]).astype(np.int64)),
                                torch.ones(len(rows), dtype=torch.float64),
                                (len(neighbourhoods), label_mat.shape[0]), check_invariants=True).coalesce()
    hood_hist = torch.sparse.mm(n, torch.from_numpy(label_mat.astype(np.float64)))
    return torch.sparse.mm(n.t().coalesce(), hood_hist).numpy().astype(np.float32)


def labelled_neighbourhoods(embeddings: np.ndarray, labelled: np.ndarray, special: np.ndarray, want: int = 20,
                            min_cos: float = 0.2, candidates: int = 200, block_rows: int = 2048) -> np.ndarray:
    """Each entry's neighbourhood: itself, then neighbours with cosine > ``min_cos`` in descending order
    until ``want`` labelled ones are included (unlabelled ones met on the way stay in)."""
    import torch

    from .graph import normalise

    e = torch.from_numpy(normalise(embeddings).astype(np.float32))
    n = len(e)
    k = min(candidates, n)
    lab = torch.from_numpy(labelled & ~special)
    out = np.full((n, k + 1), -1, dtype=np.int32)
    for r0 in range(0, n, block_rows):
        sims = e[r0 : r0 + block_rows] @ e.T
        sims[:, torch.from_numpy(special)] = -2
        rows = torch.arange(r0, min(r0 + block_rows, n))
        sims[torch.arange(len(rows)), rows] = -2  # self goes first separately
        vals, idx = sims.topk(k, dim=1)
        ok = vals > min_cos
        hit = (lab[idx] & ok).int()
        keep = ok & (torch.cumsum(hit, dim=1) - hit < want)  # up to and including the want-th labelled one
        ids = torch.where(keep, idx, torch.full_like(idx, -1)).numpy()
        out[r0 : r0 + len(rows), 0] = rows.numpy()
        out[r0 : r0 + len(rows), 1:] = ids
    out[special] = -1
    return out


def compile_table(vocab: Sequence[str], embeddings: np.ndarray, types: TypeHierarchy, clusters: Sequence[dict],
                  seeds: dict[str, Counter], special: np.ndarray, want: int = 20,
                  min_cos: float = 0.2, terms: dict[str, Counter] | None = None) -> tuple[LabelTable, np.ndarray]:
    """The propagated label table and the unpropagated label matrix L."""
    mat = label_matrix(vocab, types, clusters, seeds, terms)
    hoods = labelled_neighbourhoods(embeddings, mat.sum(1) > 0, special, want, min_cos)
    return LabelTable.from_dense(types.labels, propagate(mat, hoods), mat), mat


def term_types(table: LabelTable, types: TypeHierarchy, weighting: Weighting = Weighting()) -> list[str | None]:
    """Each vocabulary term's strongest type as the tagger sees it (None for an unlabelled term)."""
    names, rollup = type_rollup([types.parent(lab) for lab in table.labels])
    typed = term_distribution(table, types, weighting) @ rollup
    best = typed.argmax(1)
    return [names[b] if typed[i, b] > 0 else None for i, b in enumerate(best)]


def label_stats(types: TypeHierarchy, table: LabelTable, weighting: Weighting = Weighting()) -> list[dict]:
    """Per label: terms labelled directly (seeds + human labels), terms the propagation reaches, terms whose
    strongest label it is (with ``weighting``, as the tagger sees them), total strength, magnification."""
    dense, direct = table.dense(), table.direct_dense()
    dist = term_distribution(table, types, weighting)
    top = np.where(dist.max(1) > 0, dist.argmax(1), -1)
    rows = []
    for j, lab in enumerate(table.labels):
        before = int((direct[:, j] > 0).sum())
        reached = int((dense[:, j] > 0).sum())
        if before or reached:
            won = int((top == j).sum())
            rows.append({"label": lab, "type": types.parent(lab), "seeded": before, "reached": reached, "top": won,
                         "strength": float(dense[:, j].sum()), "magnification": won / before if before else float("nan")})
    return rows
