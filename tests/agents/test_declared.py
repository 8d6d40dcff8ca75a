"""Options declared once (``agents.declared``): the fields that training configs and player
options are both made of."""

from dataclasses import dataclass, fields

import pytest

from goarena.agents.declared import check_fields, one_of, option, positive, redefault


@dataclass(frozen=True)
class Declared:
    steps: int = option(10, "steps to run", check=positive)
    kind: str = option("a", "which kind", check=one_of("a", "b"))

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True)
class Longer(Declared):
    steps: int = redefault(Declared, "steps", 100)


def test_each_field_is_checked_by_its_own_check_with_its_message():
    assert Declared() == Declared(10, "a")
    with pytest.raises(ValueError, match="steps must be positive, got 0"):
        Declared(steps=0)
    with pytest.raises(ValueError, match="kind is one of a, b, got 'c'"):
        Declared(kind="c")
    assert positive("steps", None) is None  # not given


def test_another_default_keeps_the_help_and_the_check():
    assert Longer().steps == 100
    steps = next(each for each in fields(Longer) if each.name == "steps")
    assert steps.metadata["help"] == "steps to run"
    with pytest.raises(ValueError, match="steps must be positive"):
        Longer(steps=-1)
