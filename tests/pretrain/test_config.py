"""PretrainConfig validates its own fields (one line naming the field); `uner pretrain` builds on it: its options
default to the config's, only given options change it, and a bad value is one `uner: error:` line."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
import typer
from typer.testing import CliRunner

from uner.cli import app
from uner.pretrain import PretrainConfig


def make(**changes) -> PretrainConfig:
    return PretrainConfig(**{"sources": ["a.txt"], "out_dir": "run", "max_steps": 10, **changes})


def test_a_misspelt_schedule_is_refused_naming_the_choices():
    with pytest.raises(ValueError) as exc:
        make(schedule="cosin")
    assert str(exc.value) == "schedule must be one of constant, linear, cosine, not 'cosin'"


def test_a_run_without_a_step_or_time_budget_is_refused():
    with pytest.raises(ValueError, match=r"^max_steps or max_time must be given: .* never stops$"):
        PretrainConfig(sources=["a.txt"], out_dir="run")
    assert make().max_steps == 10 and make(max_steps=None, max_time=60.0).max_time == 60.0


@pytest.mark.parametrize("field, value", [
    ("lr", 0.0), ("lr", 2.0), ("head_lr", -1e-3), ("batch_size", 0), ("mlm_prob", 0.0), ("mlm_prob", 1.0),
    ("max_steps", 0), ("max_time", 0.0), ("warmup_steps", -1), ("weight_decay", 1.5), ("max_len", 2),
    ("log_every", 0), ("eval_every", -1), ("seed", -1), ("head_init", "zeros"), ("save_dtype", "int8"),
    ("extend_init", "median"), ("extend_min_pieces", 1), ("extend_min_count", 0), ("device", "gpu"),
    ("layers", 2.5), ("heads", 5), ("extend_vocab", 5),
])
def test_bad_values_are_refused_in_one_line_naming_the_field(field, value):
    with pytest.raises(ValueError) as exc:
        make(**{field: value})
    message = str(exc.value)
    assert re.search(rf"(^|\s){field}\b", message) and "\n" not in message, message


def test_settings_that_do_not_apply_are_not_checked_against_each_other():
    make(init="some-model", heads=5)  # continuing: the model's own shape, so hidden need not divide by heads
    make(init="some-model", extend_vocab=5, extend_from=["a.txt"], device="cuda:1", schedule="cosine")


@pytest.mark.parametrize("args, message", [
    (["--schedule", "cosin", "--max-steps", "3"], "--schedule must be one of constant, linear, cosine, not 'cosin'"),
    ([], "--max-steps or --max-time must be given: without a step or time budget the run never stops"),
    (["--max-time", "60", "--lr", "0"], "--lr must be in (0, 1], not 0.0"),
    (["--max-steps", "3", "--heads", "5"], "--hidden (384) must be a multiple of --heads (5)"),
])
def test_the_cli_reports_the_configs_error_as_one_line(tmp_path, args, message):
    res = CliRunner().invoke(app, ["pretrain", str(tmp_path / "a.txt"), "-o", str(tmp_path / "run"), *args])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [f"uner: error: {message}"]
    assert not (tmp_path / "run").exists()


def test_the_cli_changes_only_the_options_given(tmp_path, monkeypatch):
    seen = []

    def fake_run(cfg, resume=False):
        seen.append((cfg, resume))
        return {"top1": 0.5, "top10": 0.9, "masked_tokens": 7}

    monkeypatch.setattr("uner.cli.pretrain.run_pretrain", fake_run)
    res = CliRunner().invoke(app, ["pretrain", "a.txt", "b.txt:2", "-o", str(tmp_path / "run"), "--lr", "0.002",
                                   "--max-steps", "5", "--whole-word", "--no-bf16", "--resume"])
    assert res.exit_code == 0, res.output
    assert seen == [(PretrainConfig(sources=["a.txt", "b.txt:2"], out_dir=str(tmp_path / "run"), lr=0.002,
                                    max_steps=5, whole_word=True, bf16=False), True)]


def test_every_config_option_defaults_to_the_config():
    command = typer.main.get_command(app).commands["pretrain"]
    names = {f.name for f in fields(PretrainConfig)}
    options = [p for p in command.params if p.name in names and isinstance(p, typer.core.TyperOption)]
    assert {p.name for p in options} == names - {"sources", "out_dir", "extra"}  # (-o sets out_dir)
    for param in options:
        default = PretrainConfig.__dataclass_fields__[param.name].default
        assert param.default is None, param.name  # not given: the config's own default
        if isinstance(default, (int, float, str)) and not isinstance(default, bool):
            assert param.show_default == str(default), param.name  # --help shows the config's default
