"""Value checks that every config's ``__post_init__`` shares: one message for one kind of mistake."""

from __future__ import annotations

import numbers


def at_least(config: object, low: int, *names: str, optional: bool = False) -> None:
    """ValueError naming the first of ``names`` (fields of ``config``) that is not an integer >= ``low`` (with
    ``optional``, None passes)."""
    for name in names:
        value = getattr(config, name)
        if optional and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, not {value!r}")
