"""What commands built on a settings dataclass share: options whose default is the dataclass's (the option's
default is None, "not given"; its help shows the field's default), the options given as the dataclass's changes,
and the dataclass's one-line ValueErrors reported with the options' names."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, fields
from typing import Any

import typer


def field_default(cls: type, name: str) -> Any:
    """The default of field ``name`` of dataclass ``cls``."""
    f = cls.__dataclass_fields__[name]
    return f.default_factory() if f.default is MISSING and f.default_factory is not MISSING else f.default


def config_option(cls: type, name: str, *decls: str, help: str, **kwargs: Any):
    """A Typer option (default None: the config's default) whose help shows ``cls``'s default of ``name``."""
    default = field_default(cls, name)
    if isinstance(default, bool) and decls and "/" in decls[0]:
        shown: str | bool = decls[0].split("/")[0 if default else 1]
    else:
        shown = False if default is None else str(default)
    return typer.Option(*decls, help=help, show_default=shown, **kwargs)


def given(options: Mapping[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """Of ``options``, those among ``names`` that were given (not None): the changes to a config's defaults."""
    return {n: options[n] for n in names if options.get(n) is not None}


def option_names(cls: type, renamed: Mapping[str, str] | None = None, skip: Iterable[str] = ()) -> dict[str, str]:
    """Field → option spelling (``max_steps`` → ``--max-steps``) for every field of dataclass ``cls``; ``renamed``
    gives the options that differ from their field, ``skip`` the fields with no option."""
    renamed = dict(renamed or {})
    return {f.name: renamed.get(f.name, "--" + f.name.replace("_", "-")) for f in fields(cls)
            if f.name not in set(skip)}


def as_options(message: str, names: Mapping[str, str]) -> str:
    """A config's error ``message`` with its field names written as the options that set them; quoted values
    (a bad value's repr) and parts of paths (``labels/x``, ``x.model``) are left as they are. (The configs'
    messages use a field's name only to name the field: "rounds (2) after the first need dev".)"""
    if not names:
        return message
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    pattern = re.compile(r"(?<!\w)'[^']*'|(?<![\w./-])(" + alternatives + r")(?![\w/-])")
    return pattern.sub(lambda m: names[m.group(1)] if m.group(1) else m.group(0), message)
