"""Issue 76: every settings or stage file a tagger reads (tagger.yaml, calibration.yaml, stages/*.yaml) is checked up
front: a malformed one is one line, FILE:LINE, and exit 2 from `uner tag` and `uner eval` (not a 300-line traceback),
and `uner labels validate` reports it too (it said ok)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from uner.cli import app
from uner.paths import student_dir

BROKEN = {"words/countries.yaml": ("countries: [france, spain\n  - x: : y\n", 2),
          "tagger.yaml": ("domain: general\nsettings: {min_score: [0.5\n", 3),
          "calibration.yaml": ("type_weights:\n  ORGANIZATION: 1.4\n  bad: : [\n", 3)}


def _one_line(res, path, line: int, prefix: str = "uner: error: ") -> bool:
    return res.exit_code == 2 and re.fullmatch(rf"{re.escape(prefix + str(path))}:{line}: malformed YAML: [^\n]+\n",
                                               res.stderr) is not None


@pytest.mark.parametrize("name", BROKEN)
def test_a_malformed_file_is_one_line_from_tag_eval_and_validate(label_dir, tmp_path, name):
    text, line = BROKEN[name]
    path = label_dir / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    inp, gold = tmp_path / "in.txt", tmp_path / "gold.tsv"
    inp.write_text("Barack Obama visited Paris .\n")
    gold.write_text("Barack\tB-PER\nObama\tI-PER\n\n")
    runner = CliRunner()
    tagged = runner.invoke(app, ["tag", str(inp), "--labels", str(label_dir), "--engine", "serial"])
    assert _one_line(tagged, path, line), tagged.output
    scored = runner.invoke(app, ["eval", str(gold), "--labels", str(label_dir), "--engine", "teacher", "--mapping",
                                 "conll2003"])
    assert _one_line(scored, path, line), scored.output
    assert _one_line(runner.invoke(app, ["labels", "validate", str(label_dir)]), path, line, prefix="")


def test_a_students_own_malformed_file_is_one_line(tmp_path):
    folder = tmp_path / "student"
    folder.mkdir()
    for part in student_dir("uner-student-bio").iterdir():
        (folder / part.name).symlink_to(part)
    (folder / "tagger.yaml").unlink()
    (folder / "tagger.yaml").write_text("domain: biomedical\nstages: [abbreviations\n")
    res = CliRunner().invoke(app, ["tag", "-", "--engine", "student", "--model", str(folder)], input="ALD .\n")
    assert _one_line(res, folder / "tagger.yaml", 3), res.output
