"""Transitional: the protocols moved to ``goarena.agents.protocols``, spec strings to
``goarena.agents.specs``."""

from goarena.agents.protocols import *  # noqa: F403
from goarena.agents.protocols import RESIGN, _RULES_ATTRIBUTES  # noqa: F401
from goarena.agents.specs import *  # noqa: F403
from goarena.agents.specs import (  # noqa: F401
    _build,
    _import_from_working_directory,
    _load,
    _resolve,
    _signature,
    _takes_seed,
)
