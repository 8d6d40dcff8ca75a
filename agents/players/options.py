"""Each player's options as one declaration: a frozen dataclass whose fields are the options.

A player's options class derives from ``PlayerOptions`` and declares each option once, with
``option``: its default, its help text and the check its value must pass (as the training
configs of ``agents.training.config`` do); its old spellings are its ``RENAMES`` (old name ->
new name and conversion, ``agents.specs.Renamed``). From that one declaration come:

- the player's keywords: ``Options.read(player, options)`` refuses an unknown option, takes an
  old spelling with a DeprecationWarning (``agents.specs.renamed_options``), checks each
  value's type against the field's annotation (``simulations must be an integer, got 'abc'``)
  and then the field's own check, and gives the frozen options;
- its signature (``declared``), which the spec machinery reads for a plug-in's hint and for
  whether it takes a ``seed``;
- its ``check_options`` (``OptionsPlayer``), which reads the options as ``__init__`` does and
  then checks what only files say (``check_files``: a network's kind and board size) without
  building the player;
- its help (``Options.help()``: one line per option, for ``goarena players`` and the spec
  help; ``agents.specs.option_help(name)``).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import numbers
import typing
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast

from goarena.agents import weights
from goarena.agents.declared import Check, check_fields, redefault
from goarena.agents.protocols import GameContext
from goarena.agents.specs import Renamed, renamed_options

Options = TypeVar("Options", bound="PlayerOptions")


def check_types(hints: Mapping[str, Any], options: Mapping[str, object]) -> None:
    """Refuse (TypeError) an option whose value is not what its annotation in ``hints`` says:
    an integer, a number, or true or false (None where the annotation allows it), so that
    ``uct:simulations=abc`` says ``simulations must be an integer, got 'abc'`` rather than
    failing in a comparison. Options of other types are the player's to check."""
    for name, value in options.items():
        hint = hints.get(name)
        kinds = set(typing.get_args(hint)) or {hint}  # int | None: {int, NoneType}
        if not kinds <= {int, float, bool, type(None)} or (value is None and type(None) in kinds):
            continue
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)  # numpy's too
        if bool in kinds and not isinstance(value, bool):
            raise TypeError(f"{name} must be true or false, got {value!r}")
        if float in kinds and not number:
            raise TypeError(f"{name} must be a number, got {value!r}")
        if int in kinds and float not in kinds and not (number and isinstance(value, numbers.Integral)):
            raise TypeError(f"{name} must be an integer, got {value!r}")


# -- common checks -------------------------------------------------------------------------


def at_least(least: float) -> Check:
    """A number >= ``least`` (None passes: not given)."""

    def check(name: str, value: Any) -> str | None:
        return None if value is None or value >= least else f"{name} must be at least {least}, got {value}"

    return check


def temperature(name: str, value: Any) -> str | None:
    """Finite and >= 0: 0 plays the most likely (most visited) move."""
    return None if 0 <= value < float("inf") else f"{name} must be finite and >= 0, got {value!r}"


# -- the declaration -----------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PlayerOptions:
    """The base of a player's options: a frozen dataclass of ``option`` fields, checked when
    made (types from the annotations, then each field's check, then ``check``)."""

    RENAMES: ClassVar[dict[str, Renamed]] = {}  # deprecated spellings: old name -> (new name, conversion)
    FIXED: ClassVar[dict[str, str]] = {}  # options a configured player does not take -> why
    FIRST: ClassVar[tuple[str, ...]] = ()  # options its help and signature list first, in this order

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        check_types(hints, {each.name: getattr(self, each.name) for each in fields(self)})
        check_fields(self)
        self.check()

    def check(self) -> None:
        """What the options check together, beyond each field's own check (ValueError)."""

    @classmethod
    def read(cls: type[Options], player: str, options: Mapping[str, Any]) -> Options:
        """The options a player was given (by keyword or spec), old spellings taken with a
        DeprecationWarning.

        Raises:
            TypeError: an option the player does not take, one given by both spellings, or a
                value of the wrong type.
            ValueError: a value the option's check refuses.
        """
        fixed = sorted(cls.FIXED.keys() & options.keys())
        if fixed:
            raise TypeError(f"{player} takes no {', '.join(fixed)}: {cls.FIXED[fixed[0]]}")
        names = {each.name for each in fields(cls) if each.init}
        given = {name: value for name, value in options.items() if name in names}
        old = {name: value for name, value in options.items() if name not in names}
        given = renamed_options(player, old, cls.RENAMES, **given)
        return cls(**given)

    def replace(self: Options, **changes: Any) -> Options:
        return dataclasses.replace(self, **changes)

    def given(self) -> dict[str, Any]:
        """The options whose values differ from their defaults."""
        return {
            each.name: getattr(self, each.name)
            for each in fields(self)
            if each.default is MISSING or getattr(self, each.name) != each.default
        }

    @classmethod
    def ordered(cls) -> list[dataclasses.Field]:
        """The options' fields, ``FIRST`` first, then in their declaration's order."""
        declared = list(fields(cls))
        rank = {name: i for i, name in enumerate(cls.FIRST)}
        return sorted(declared, key=lambda each: rank.get(each.name, len(rank)))

    @classmethod
    def help(cls) -> list[str]:
        """One line per option: ``name=default  help``."""
        rows = []
        for each in cls.ordered():
            default = "" if each.default is MISSING else f"={_shown(each.default)}"
            rows.append((f"{each.name}{default}", each.metadata.get("help", "")))
        width = max((len(name) for name, _ in rows), default=0) + 2
        return [f"{name:<{width}}{text}".rstrip() for name, text in rows]

    @classmethod
    def parameters(cls) -> list[inspect.Parameter]:
        """The options as keyword-only parameters with their defaults (a required one: none)."""
        hints = typing.get_type_hints(cls)
        return [
            inspect.Parameter(
                each.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if each.default is MISSING else each.default,
                annotation=hints.get(each.name, inspect.Parameter.empty),
            )
            for each in cls.ordered()
            if each.init
        ]


def _shown(default: Any) -> str:
    """A default as help shows it: a shipped weights file by its name, not by where it is installed."""
    if isinstance(default, (str, Path)) and Path(default).parent == weights.FOLDER:
        return f"(the shipped {Path(default).name})"
    return str(default)


def declared(options: type[PlayerOptions], positional: tuple[str, ...] = ()) -> inspect.Signature:
    """The signature of a player whose keywords are ``options``' (those named in ``positional``
    may come first, by position)."""
    parameters = {parameter.name: parameter for parameter in options.parameters()}
    first = [
        parameters.pop(name).replace(kind=inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in positional
    ]
    return inspect.Signature([*first, *parameters.values()])


Player = TypeVar("Player", bound="type[OptionsPlayer]")


def configured(
    player: Player,
    name: str,
    defaults: Mapping[str, Any],
    fixed: Mapping[str, str] | None = None,
    **attributes: Any,
) -> Player:
    """``player`` under another ``name``, with other ``defaults`` for its options (a registry
    entry, such as ``alphago``, PUCT with AlphaGo's defaults); the options named in ``fixed``
    (-> why) it does not take. Its options class is ``player.Options`` redefaulted, so its
    signature, ``check_options`` and help follow; ``attributes`` are its class attributes (a
    network player's ``kind``). The same arguments give the same class."""
    return cast(
        Player,
        _configured(
            cast(Any, player), name, *(tuple(each.items()) for each in (defaults, fixed or {}, attributes))
        ),
    )


@functools.cache
def _configured(player: Any, name: str, defaults: tuple, fixed: tuple, attributes: tuple) -> Any:
    base = player.Options
    hints = typing.get_type_hints(base)
    title = "".join(part.capitalize() for part in name.replace("-", " ").split()) or "Configured"
    options = dataclasses.make_dataclass(
        f"{title}Options",
        [(key, hints[key], redefault(base, key, value)) for key, value in defaults],
        bases=(base,),
        frozen=True,
        kw_only=True,
        namespace={"FIXED": {**base.FIXED, **dict(fixed)}, "__module__": player.__module__},
    )
    return type(
        title,
        (player,),
        {
            "Options": options,
            "name": name,
            "__module__": player.__module__,
            "__doc__": player.__doc__,
            **dict(attributes),
        },
    )


class OptionsPlayer:
    """A player whose options are its ``Options`` declaration: ``__init__(**options)`` reads
    them (``self.options``), ``check_options`` reads them the same way and then calls
    ``check_files``. A subclass sets ``Options`` and ``name``; its signature follows."""

    Options: ClassVar[type[PlayerOptions]] = PlayerOptions
    positional: ClassVar[tuple[str, ...]] = ()  # options that may be given by position, in order
    name: str = "player"
    options: PlayerOptions

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__signature__ = declared(cls.Options, cls.positional)  # type: ignore[attr-defined]

    def __init__(self, *args: Any, **options: Any):
        self.options = self.read(args, options)

    @classmethod
    def read(cls, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
        """The player's options, given as ``__init__`` takes them (``positional`` ones first)."""
        if len(args) > len(cls.positional):
            raise TypeError(f"{cls.name} takes {len(cls.positional)} options by position, got {len(args)}")
        for name, value in zip(cls.positional, args, strict=False):
            if name in options:
                raise TypeError(f"{cls.name} got {name} twice, by position and by name")
            options[name] = value
        return cls.Options.read(cls.name, options)

    @classmethod
    def configured(
        cls, name: str, defaults: Mapping[str, Any], fixed: Mapping[str, str] | None = None, **attributes: Any
    ) -> type[OptionsPlayer]:
        """This player as a registry entry configures it (``configured``)."""
        return configured(cls, name, defaults, fixed, **attributes)

    @classmethod
    def check_options(cls, context: GameContext | None, *args: Any, **options: Any) -> None:
        """Check the options as the player reads them, and what its files say (given a
        context, the board size and device), without building it."""
        cls.check_files(context, cls.read(args, options))

    @classmethod
    def check_files(cls, context: GameContext | None, options: Any) -> None:
        """What ``check_options`` checks beyond the options themselves (nothing by default)."""
