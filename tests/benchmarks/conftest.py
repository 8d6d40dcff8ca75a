"""The helper players that specs name by module (``misbehaving_players:Slow``,
``web_fixtures:Scripted``) are imported by that name, here and in the league's workers (which
start with this process's path): their folders are on the path, as ``python -m`` runs with
``PYTHONPATH`` set to them."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE / "web"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
