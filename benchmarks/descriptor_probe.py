"""Which descriptors a teacher's masked LM predicts for the gold spans of each type (issue 42's probe).

For the first ``--limit`` sentences of a token file, every gold span is asked about as the tagger asks (its
masked inputs, given spans); the top ``--top`` descriptors of each input are counted per gold type. A type whose
spans get the type's own words ("algorithm", "conference") can be labelled; one whose spans get "problem",
"result", "system" cannot, whatever its labels say.

    python -m benchmarks.descriptor_probe ../shared/data/ner/crossner/ai/dev.txt --model crossner-ai
    python -m benchmarks.descriptor_probe ../shared/data/ner/crossner/ai/dev.txt --model M --labels L
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from itertools import islice

from uner import Tagger
from uner.analysis.evaluate import detokenize, entities, read_gold, to_iob2


def probe(tagger: Tagger, gold_path: str, limit: int, top: int) -> dict[str, tuple[int, Counter]]:
    """Per gold type: the number of spans and the count of each descriptor among their inputs' top ``top``."""
    texts, spans, kinds = [], [], []
    for sentence in islice(read_gold(gold_path), limit):
        text, offsets = detokenize(sentence.tokens)
        gold = sorted(entities(to_iob2(sentence.tags)), key=lambda e: e[1])
        texts.append(text)
        spans.append([(offsets[s][0], offsets[e - 1][1]) for _, s, e in gold])
        kinds.append([t for t, _, _ in gold])
    found: dict[str, tuple[int, Counter]] = defaultdict(lambda: (0, Counter()))
    for ents, given, types in zip(tagger.tag(texts, spans=spans, explain=True, rejected=True), spans, kinds):
        by_span = {(e.start, e.end): e for e in ents}
        for span, kind in zip(given, types):
            n, counts = found[kind]
            for inputs in getattr(by_span.get(span), "descriptors", None) or []:
                counts.update(d["term"] for d in inputs[:top])
            found[kind] = (n + 1, counts)
    return dict(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold")
    parser.add_argument("--model", default=None, help="model or adapted folder (default: the embedded model)")
    parser.add_argument("--labels", default=None, help="labels folder (default: the model's)")
    parser.add_argument("--limit", type=int, default=150)
    parser.add_argument("--top", type=int, default=5, help="descriptors counted per masked input")
    parser.add_argument("--show", type=int, default=6, help="descriptors shown per type")
    args = parser.parse_args()
    tagger = Tagger.from_pretrained(args.model, args.labels)
    for kind, (n, counts) in sorted(probe(tagger, args.gold, args.limit, args.top).items(), key=lambda kv: -kv[1][0]):
        shown = ", ".join(f"{term} {count}" for term, count in counts.most_common(args.show))
        print(f"{kind:<20} {n:>4} spans: {shown}")


if __name__ == "__main__":
    main()
