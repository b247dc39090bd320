"""Where a command's model runs (``--engine``) and the options that map onto Ray's (`uner tag`, `uner embed`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._util import fail

_ENGINE_HELP = "Where the model runs: {} ('ray': Ray Data actors, needs pip install 'uner\\[ray]')."
TAG_ENGINES = ("student", "teacher", "serial", "processes", "ray")
TEACHER_RUNNERS = ("processes", "ray")  # where the teacher runs besides this process
EMBED_ENGINES = ("serial", "ray")

TagEngineOpt = Annotated[Optional[str], typer.Option(
    help=_ENGINE_HELP.format("student (default: the fast spaCy student of --model, when it has one) | teacher "
                             "(the masked LM: in this process, or in processes with --workers; serial: the same) | "
                             "processes | ray (the teacher there)"))]
EmbedEngineOpt = Annotated[str, typer.Option(help=_ENGINE_HELP.format("serial | ray"))]
NumActorsOpt = Annotated[Optional[int], typer.Option(
    "--workers", "--num-actors", min=1,
    help="Copies of the model: worker processes or Ray actors (Ray's concurrency); default 1 (serial), "
         "else one per CPU.")]
CpusPerActorOpt = Annotated[float, typer.Option(
    min=0.01, help="--engine ray: CPUs reserved per actor; its torch threads are the whole CPUs among them.")]
AddressOpt = Annotated[Optional[str], typer.Option(
    help="--engine ray: a running cluster (auto: the one `ray start --head` runs here; ray://HOST:10001); "
         "default: start a local Ray.")]


def tag_engine(engine: Optional[str], model: Optional[str], labels, teacher_options: list[str]) -> tuple[str, Optional[str], Optional[str]]:
    """``(engine, runner, student)`` for ``uner tag``/``uner eval``: ``uner.tagger.loading.choose_engine`` on the
    command line's ``--engine`` (a teacher runner means the teacher); its note on stderr; exit 2 on a student engine
    asked with a teacher's option or without a student."""
    from ..tagger.loading import choose_engine
    if engine == "student" and teacher_options:
        fail(f"{', '.join(teacher_options)}: the teacher's option(s); add --engine teacher (not student)")
    asked = None if engine is None else "student" if engine == "student" else "teacher"
    try:
        chosen, student, note = choose_engine(asked, model, labels, teacher_options)
    except ValueError as exc:  # (LabelError too)
        fail(str(exc))
    if note:
        typer.echo(f"uner: {note}", err=True)
    runner = "student" if chosen == "student" else engine if engine in TEACHER_RUNNERS else None
    return chosen, runner, student


def engine_settings(engine: Optional[str], engines: tuple[str, ...], num_cpus_per_actor: float,
                    address: Optional[str]) -> dict:
    """The runner settings of the Ray options (given only with ``--engine ray``); exit 2 on an engine not in
    ``engines`` or a Ray option without Ray."""
    if engine is not None and engine not in engines:
        fail(f"--engine: unknown engine {engine!r} ({' | '.join(engines)})")
    if engine != "ray":
        if address is not None or num_cpus_per_actor != 1.0:
            fail("--address and --num-cpus-per-actor need --engine ray")
        return {}
    return {"num_cpus_per_actor": num_cpus_per_actor, "address": address}
