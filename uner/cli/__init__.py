"""The ``uner`` command line: thin Typer commands over the Python API, one module per command group
(as spaCy's ``spacy/cli``). Each command parses its options, calls one function and reports. A command's module
is imported only when the command runs (``_util.COMMANDS``)."""

from __future__ import annotations

from ._util import app

__all__ = ["app", "main"]


def main() -> None:
    app()


if __name__ == "__main__":
    main()
