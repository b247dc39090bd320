"""The ``uner`` command line: thin Typer commands over the Python API, one module per command group
(as spaCy's ``spacy/cli``). Each command parses its options, calls one function and reports."""

from __future__ import annotations

# imported for their commands, in the order `uner --help` lists them
from . import fill, pretrain, cluster, vectors, diagnose, tag, distill, evaluate, relations, synonyms, labels, annotate  # noqa: F401, I001
from ._util import app

__all__ = ["app", "main"]


def main() -> None:
    app()


if __name__ == "__main__":
    main()
