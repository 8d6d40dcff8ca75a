"""``goarena demo``: random against random, the games, their results, and optionally their SGF."""

from __future__ import annotations

import argparse

import numpy as np

from go_env import Game, Rules
from go_env.rules import RULES_PRESETS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--games", type=int, default=1, help="number of games (default 1)")
    parser.add_argument("--rules", choices=sorted(RULES_PRESETS), default="goarena", help="rules preset")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: the preset's)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--show", action="store_true", help="print every final board")
    parser.add_argument("--sgf", metavar="PREFIX", help="write each game to PREFIX[-n].sgf")


def command(args: argparse.Namespace) -> None:
    """Play the games and print them."""
    rules = Rules.preset(args.rules, komi=args.komi) if args.komi is not None else Rules.preset(args.rules)
    rng = np.random.default_rng(args.seed)
    black_wins = 0
    for index in range(args.games):
        game = Game(args.size, rules)
        while not game.is_over:
            game.play(int(rng.choice(game.legal_moves())))
        black_wins += game.winner() == 1
        how = "two passes" if game.is_terminated else "move cap"
        print(f"game {index + 1}: {game.result():>8s} after {game.move_number} moves ({how})")
        if args.games == 1 or args.show:
            print(game, end="\n\n")
        if args.sgf:
            from go_env.sgf import save_sgf

            path = f"{args.sgf}-{index + 1}.sgf" if args.games > 1 else f"{args.sgf}.sgf"
            save_sgf(path, game, black="random", white="random")
            print(f"  wrote {path}")
    print(f"Black won {black_wins} of {args.games} under {rules.name} rules, komi {rules.komi:g}")
