"""``goarena serve``: the web board, on this machine only unless ``--host`` says otherwise.

``goarena serve --dir runs --port 8000`` prints the page's address and serves it until Ctrl-C:
play any offered player (the fast built-ins of ``DEFAULT_PLAYERS``, the ``--player NAME=SPEC``
given, and the players of a league once it is opened) with its live analysis, and browse,
replay and watch the leagues under ``--dir``. Nothing outside ``--dir`` is read on a browser's
behalf, and only the server's own page may use it (``web.guard``: no other site's page, and no
name but the server's own addresses and ``--allowed-host``). ``--allow-spec`` lets the page name
any player spec, which runs code as you: on a ``--host`` other than the loopback that is every
host of the network, refused unless ``--let-the-network-run-code`` says so; any other address
is served with a warning.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from goarena.benchmarks.commands import log, needs_extra

# Players that load offline (the shipped 9x9 networks) and move within a second on a CPU.
DEFAULT_PLAYERS = {
    "random": "random",
    "uct": "uct:simulations=5000",
    "sl-policy": "sl-policy",
    "ownership-greedy": "ownership-greedy",
    "zero": "zero:simulations=100",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dir", type=Path, default=Path("runs"), help="the leagues' directory (default runs)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--player",
        action="append",
        default=[],
        type=named_spec,
        metavar="NAME=SPEC",
        help="offer a player besides the defaults (repeatable), e.g. strong=uct:simulations=20000",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the page is reached by, e.g. this machine's name (repeatable); "
        "requests for any other name are refused (DNS rebinding)",
    )
    parser.add_argument(
        "--allow-spec",
        action="store_true",
        help="let the page play any player spec (runs code: take care)",
    )
    parser.add_argument(
        "--let-the-network-run-code",
        action="store_true",
        help="with --allow-spec on a --host other than the loopback: let every host that reaches "
        "the port run any command on this machine as you",
    )


def named_spec(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` (``--player``) as (name, spec)."""
    name, equals, spec = text.partition("=")
    if not equals or not name.strip() or not spec.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=SPEC")
    return name.strip(), spec.strip()


def command(args: argparse.Namespace) -> None:
    """Check the players, warm their kernels up in the background, and serve until Ctrl-C."""
    try:
        import uvicorn

        from goarena.benchmarks.web.app import create_app
        from goarena.benchmarks.web.guard import Address
    except ImportError as error:
        sys.exit(f"{needs_extra('goarena serve', 'web')} ({error})")
    from goarena.agents.specs import AgentSpecError, check_spec

    if not args.dir.is_dir():
        sys.exit(f"goarena serve: no directory {args.dir}")
    exposure = _exposure(args)
    if exposure:
        print(f"goarena serve: {exposure}", file=sys.stderr, flush=True)
    players = {**DEFAULT_PLAYERS, **dict(args.player)}
    for name, spec in args.player:
        try:
            check_spec(spec)
        except AgentSpecError as error:
            sys.exit(f"goarena serve: --player {name}={spec}: {error}")
    address = Address(args.host, args.port, frozenset(args.allowed_host))
    app = create_app(args.dir, players, allow_spec=args.allow_spec, address=address)
    threading.Thread(target=_warm_up, args=(players,), name="warmup", daemon=True).start()
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"goarena serve: http://{host}:{args.port}/ (leagues in {args.dir}; Ctrl-C to stop)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


def _exposure(args: argparse.Namespace) -> str:
    """The warning that ``--host`` calls for ("" on the loopback); exits where ``--allow-spec``
    would let the network run code and the user has not said so."""
    from goarena.benchmarks.web.guard import is_loopback

    if is_loopback(args.host):
        return ""
    reach = f"every host that reaches {args.host} port {args.port}"
    if args.allow_spec and not args.let_the_network_run_code:
        sys.exit(
            f"goarena serve: --allow-spec on --host {args.host} lets {reach} run any command on this "
            "machine as you; serve on 127.0.0.1, or add --let-the-network-run-code if that is meant"
        )
    if args.allow_spec:
        return f"WARNING: {reach} may run any command on this machine as you (--allow-spec)"
    return f"warning: {reach} may play games here (which take CPU) and read the leagues in {args.dir}"


def _warm_up(players: dict[str, str]) -> None:
    """Compile the 9x9 kernels of the players and load them once, so the first game waits
    for neither (a failure is left for that game to report)."""
    from goarena.agents.specs import player_warmup
    from goarena.benchmarks.web.app import capabilities
    from goarena.search.warmup import warmup

    try:
        warmups = {name: warm for name, spec in players.items() if (warm := player_warmup(spec)) is not None}
        seconds = warmup(9, log=log, warmups=warmups)
        for spec in players.values():
            capabilities(spec)
        log(f"players ready in {seconds:.1f} s")
    except Exception as error:
        log(f"warm-up failed ({type(error).__name__}: {error}); players compile when first used")
