"""GTP ``kata-analyze`` and ``kata-genmove_analyze``: KataGo's analysis format, with ownership."""

from __future__ import annotations

import dataclasses
import threading

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env.coords import from_gtp
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.ownership import OwnershipNet
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import Agent, MoveInfo
from goarena.agents.specs import builtin_factory
from tests.agents.gtp.test_engine import FakeAnalyst, Wire
from tests.agents.players.test_network import SIZE, Controlled

# FakeAnalyst's candidates as KataGo prints them: win rates in [0, 1], utility 2w - 1.
D4 = "info move D4 visits {} utility 0.1 winrate 0.55 prior 0.125 lcb 0.5 utilityLcb 0 order 0 pv D4 E5"
E5 = (
    "info move E5 visits {} utility -0.1358 winrate 0.4321 scoreMean -2.5 scoreLead -2.5 prior 0.25 "
    "lcb 0.31 utilityLcb -0.38 order 1 pv E5 C3 D4"
)


class ScoringAnalyst(FakeAnalyst):
    """FakeAnalyst whose second candidate has a score lead."""

    def candidates(self, game: Game, visits: int) -> list[MoveInfo]:
        first, second = super().candidates(game, visits)
        return [first, dataclasses.replace(second, score_lead=-2.5)]


class OwningAnalyst(ScoringAnalyst):
    """... with an ownership map: point i owns i / N*N, less 0.5 (with the side to move's sign)."""

    def __init__(self, reports: int | None = 3):
        super().__init__(reports)
        self.asked: list[int] = []  # the side to move of each position asked about

    def ownership(self, game: Game) -> np.ndarray:
        self.asked.append(game.to_play)
        return np.arange(game.num_points) / game.num_points - 0.5


def line(visits: int, ownership: str = "") -> str:
    return f"{D4.format(visits)} {E5.format(visits // 2)}{ownership}"


def test_kata_commands_are_listed_for_analysts_only():
    listed = set(GTPEngine(FakeAnalyst(), size=9).handle("list_commands")[2:].split())
    assert {"kata-analyze", "kata-genmove_analyze"} <= listed
    engine = GTPEngine(RandomAgent(seed=1), size=9)
    assert engine.handle("known_command kata-analyze") == "= false\n\n"
    assert engine.handle("kata-analyze b 10") == "? unknown command\n\n"


def test_kata_analyze_prints_katagos_fields():
    agent = ScoringAnalyst(reports=2)
    engine = GTPEngine(agent, size=9)
    assert engine.handle("kata-analyze b 25") == f"=\n{line(10)}\n{line(20)}\n\n"
    assert agent.intervals == [0.25]
    assert engine.game.moves == []  # analysis plays nothing
    assert engine.handle("4 kata-analyze interval 50 maxmoves 1 minmoves 3") == (
        f"=4\n{D4.format(10)}\n{D4.format(20)}\n\n"
    )
    assert agent.intervals == [0.25, 0.5]


def test_ownership_true_ends_each_line_with_every_points_owner():
    agent = OwningAnalyst(reports=2)
    engine = GTPEngine(agent, size=9, rules=Rules(komi=6.5))
    answer = engine.handle("kata-analyze w 10 ownership true")
    lines = answer.split("\n")
    assert lines[0] == "=" and lines[-2:] == ["", ""] and len(lines) == 5
    owners = "ownership " + " ".join(f"{i / 81 - 0.5:.6g}" for i in range(81))
    assert lines[1] == line(10, " " + owners) and lines[2] == line(20, " " + owners)
    assert len(lines[1].split(" ownership ")[1].split()) == 81
    assert agent.asked == [2]  # once per analysis, the position with White (2) to move
    # maxmoves 0: no candidates, but the ownership still
    assert engine.handle("kata-analyze b 10 maxmoves 0 ownership TRUE") == f"=\n{owners}\n{owners}\n\n"
    assert engine.handle("kata-analyze b 10 ownership false") == f"=\n{line(10)}\n{line(20)}\n\n"


def test_ownership_is_accepted_and_left_out_for_a_player_without_one(capsys):
    engine = GTPEngine(ScoringAnalyst(reports=1), size=9)
    assert engine.handle("kata-analyze b 10 ownership true") == f"=\n{line(10)}\n\n"
    assert engine.handle("kata-analyze b 10 ownership true") == f"=\n{line(10)}\n\n"
    assert capsys.readouterr().err.count("gives no ownership") == 1  # said once


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (
            "kata-analyze b 10 ownership maybe",
            "? syntax error: ownership 'maybe' is neither true nor false\n\n",
        ),
        ("kata-analyze b 10 ownership", "? syntax error: unsupported analysis argument 'ownership'\n\n"),
        (
            "kata-analyze b 10 movesOwnership true",
            "? syntax error: unsupported analysis argument 'movesownership'\n\n",
        ),
        ("lz-analyze b 10 ownership true", "? syntax error: unsupported analysis argument 'ownership'\n\n"),
        (
            "kata-genmove_analyze",
            "? wrong number of arguments: kata-genmove_analyze takes at least 1 arguments\n\n",
        ),
    ],
)
def test_bad_options_are_refused(command, error):
    assert GTPEngine(OwningAnalyst(reports=1), size=9).handle(command) == error


def test_a_wrong_sized_ownership_is_an_error_not_a_stream():
    class Wrong(OwningAnalyst):
        def ownership(self, game: Game) -> np.ndarray:
            return np.zeros(game.num_points - 1)

    answer = GTPEngine(Wrong(reports=1), size=9).handle("kata-analyze b ownership true")
    assert answer == "? the player's ownership has shape (80,), not (81,)\n\n"


def test_kata_genmove_analyze_streams_then_plays():
    agent = OwningAnalyst(reports=1)
    engine = GTPEngine(agent, size=9)
    answer = engine.handle("3 kata-genmove_analyze b 10 ownership true")
    assert answer.startswith(f"=3\n{D4.format(10)} ") and answer.endswith("\nplay D4\n\n")
    assert answer.count("\n") == 4 and " ownership " in answer
    assert engine.game.moves == [from_gtp("D4", 9)]


def test_kata_analyze_streams_until_the_next_command_arrives():
    wire = Wire()
    engine = GTPEngine(OwningAnalyst(reports=None), size=9)
    session = threading.Thread(target=engine.run, args=(wire, wire), daemon=True)
    session.start()
    wire.send("1 kata-analyze b 1 ownership true")
    assert wire.receive() == "=1"
    assert wire.receive().startswith("info move D4 visits 10 utility 0.1 winrate 0.55 ")
    assert wire.receive().startswith("info move D4 visits 20 ")
    wire.send("2 name")  # interrupts the analysis
    while (received := wire.receive()).startswith("info"):
        assert len(received.split(" ownership ")[1].split()) == 81
    assert received == ""  # the end of the analysis answer
    assert [wire.receive(), wire.receive()] == ["=2 analyst", ""]
    wire.send("quit")
    assert [wire.receive(), wire.receive()] == ["=", ""]
    session.join(timeout=10)
    assert not session.is_alive()


@pytest.fixture(scope="module")
def greedy(tmp_path_factory) -> Agent:
    """ownership-greedy with ``Controlled``'s ownership: +1 on the side to move's stones, -1 on
    the opponent's, 0 on empty points; so V is the stones' balance and the komi."""
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "ownership.pt"
    save_model(path, OwnershipNet(SIZE, blocks=1, filters=8))
    player = builtin_factory("ownership-greedy")(weights=path)
    player.model = Controlled()
    return player


def owners(answer: str) -> list[float]:
    return [float(value) for value in answer.split("\n")[1].split(" ownership ")[1].split()]


def test_ownership_greedy_reports_its_candidates_and_its_networks_ownership(greedy):
    engine = GTPEngine(greedy, size=SIZE, rules=Rules(komi=0.5))
    assert engine.handle("play b A5") == engine.handle("play w E1") == "=\n\n"
    answer = engine.handle("kata-analyze b 10 maxmoves 2 ownership true")
    # Black to move: each stone makes V = 2 - 1 - 0.5 for Black; a pass 1 - 1 - 0.5. White's V
    # after a stone is -0.5, p(White) = sigmoid(0.5 * -0.5): Black's win rate sigmoid(0.25).
    groups = answer.split("\n")[1].split(" ownership ")[0].split("info ")[1:]
    assert [group.split()[:4] for group in groups] == [
        ["move", "B5", "visits", "1"],
        ["move", "C5", "visits", "1"],
    ]
    winrate = 1 / (1 + np.exp(-0.25))
    for order, group in enumerate(groups):
        words = group.split()
        fields = dict(zip(words[4:-4:2], map(float, words[5:-4:2]), strict=True))
        assert fields == pytest.approx(
            {
                "utility": 2 * winrate - 1,
                "winrate": winrate,
                "scoreMean": 0.5,
                "scoreLead": 0.5,
                "prior": 1 / 24,  # uniform over 23 points and the pass
                "lcb": winrate,  # no search: no spread
                "utilityLcb": 2 * winrate - 1,
            },
            abs=1e-6,
        )
        assert words[-4:] == ["order", str(order), "pv", words[1]]  # the principal variation: the move
    # Row by row from the top left, for the side to move: A5 (Black's) is point 0, E1 (White's) 24.
    expected = [0.0] * SIZE * SIZE
    expected[0], expected[24] = 1.0, -1.0
    assert owners(answer) == expected
    answer = engine.handle("kata-analyze w 10 maxmoves 1 ownership true")  # White to move now
    assert owners(answer) == [-value for value in expected]
    assert engine.handle("genmove b") == "= B5\n\n"  # the move analysis put first
