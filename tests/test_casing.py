"""Which of a person's types a corpus writes in lower case (uner.vocab.casing), from their seed terms."""

from __future__ import annotations

from uner.vocab.casing import lowercase_types, seed_case_counts

TEXTS = ["We used gradient descent and k-means here. Gradient descent is slow.",
         "Then gradient descent ran; k-means too, and K-Means once.",
         "She sang with Madonna, a singer, and Madonna sang with another singer and a third singer.",
         "Later Madonna left."]


def test_counts_skip_sentence_openings_and_match_phrases_and_hyphens():
    counts = seed_case_counts(TEXTS, {"ALGORITHM": ["gradient descent", "k-means", "perceptron"],
                                      "ARTIST": ["singer", "madonna"]})
    # "Gradient descent" opening a sentence does not count; "K-Means" mid-sentence counts as capitalised
    assert counts["ALGORITHM"] == {"gradient descent": [2, 2], "k-means": [3, 2]}
    assert counts["ARTIST"] == {"singer": [3, 3], "madonna": [3, 0]}


def test_a_type_is_lower_case_when_nearly_all_its_seen_seeds_are():
    counts = {"ALGORITHM": {"gradient descent": [5, 5], "k-means": [4, 3], "svm": [1, 0]},  # svm: seen once
              "ARTIST": {"singer": [9, 9], "musician": [5, 5], "madonna": [7, 0]},  # a name among the seeds
              "GENRE": {"jazz": [8, 8]},  # one seed seen: too little to say
              "MIXED": {"rock": [10, 4], "pop": [10, 9]}}  # rock written "Rock" more often than not
    assert lowercase_types(counts) == {"ALGORITHM": 1.0}
    assert lowercase_types(counts, share=0.5) == {"ALGORITHM": 1.0, "ARTIST": 0.667, "MIXED": 0.5}
    assert lowercase_types(counts, min_seen=1) == {}  # svm counts now, capitalised: 2 of 3 seeds lower case


def test_a_seed_written_as_an_acronym_counts_neither_way():
    texts = ["We report BLEU and the ROC curve, then accuracy.", "Here accuracy, Bleu and bleu again."]
    counts = seed_case_counts(texts, {"METRIC": ["bleu", "roc", "accuracy"]})
    # "BLEU" and "ROC" are skipped (ROC is never seen otherwise); "Bleu" still counts as capitalised
    assert counts["METRIC"] == {"accuracy": [2, 2], "bleu": [2, 1]}
