"""Vector-space diagnostics: frequencies, the report `uner diagnose` prints, the plots."""

from __future__ import annotations

import numpy as np
import pytest

from uner.models import MaskedLM
from uner.vectors.diagnostics import ANISOTROPY_POOLINGS, diagnose, report_lines, token_frequencies, write_plots


@pytest.fixture(scope="module")
def diagnosis(tiny, tiny_corpus):
    mlm = MaskedLM.from_pretrained(tiny[0], device="cpu")
    return mlm, diagnose(mlm, tiny_corpus[:1], max_paragraphs=50, sentences=30)


def test_frequencies_count_the_first_paragraphs(diagnosis, tiny_corpus):
    mlm, d = diagnosis
    paragraphs = [p for p in tiny_corpus[0].read_text().splitlines() if p][:50]
    expected = np.bincount(np.concatenate(mlm.tokenize_ids(paragraphs)), minlength=len(mlm.vocab))
    np.testing.assert_array_equal(d.counts, expected)
    np.testing.assert_array_equal(token_frequencies(mlm, [str(tiny_corpus[0])], 50, chunk=7), expected)
    assert d.special[mlm.vocab.index(mlm.mask_token)] and not d.special[mlm.vocab.index("paris")]


def test_report_has_the_three_parts(diagnosis):
    _, d = diagnosis
    lines = report_lines(d)
    assert lines[0] == f"(a) word embeddings by frequency rank ({int(d.counts.sum())} tokens counted)"
    assert len(lines) == 2 + len(d.buckets) + 1 + len(ANISOTROPY_POOLINGS) + 3
    assert lines[2 + len(d.buckets)] == "(b) anisotropy: mean cosine of random pairs of 30 paragraph vectors"
    assert [ln.split(":")[0].strip() for ln in lines[3 + len(d.buckets):-3]] == list(ANISOTROPY_POOLINGS)
    assert lines[-3].startswith("(c) decoder bias vs log corpus frequency over ")
    assert lines[-2].startswith("  top 30: ") and lines[-1].startswith("  bottom 30: ")


def test_plots_are_written(diagnosis, tmp_path):
    pytest.importorskip("matplotlib")
    write_plots(tmp_path / "plots", diagnosis[1])
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {"bias_vs_frequency.png", "norm_by_rank.png"}
