"""Where a command's model runs (``--engine``) and the options that map onto Ray's (`uner tag`, `uner embed`)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ._util import fail

_ENGINE_HELP = "Where the model runs: {} ('ray': Ray Data actors, needs pip install 'uner[ray]')."
TAG_ENGINES = ("serial", "processes", "ray", "student")
EMBED_ENGINES = ("serial", "ray")

TagEngineOpt = Annotated[Optional[str], typer.Option(
    help=_ENGINE_HELP.format("serial | processes | ray (default: serial for one worker, else processes) | student "
                             "(the fast spaCy student of uner distill instead of the masked LM; --model: its folder)"))]
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
