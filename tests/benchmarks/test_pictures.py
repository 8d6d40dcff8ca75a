"""Ownership pictures: ``plot_ownership`` on a live game, and ``show_ownership`` on a record (the
command: ``tests/benchmarks/commands/test_show_ownership.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import BLACK, WHITE, Game, Rules
from go_env.core import GoState
from go_env.sgf import save_sgf
from goarena.agents.inference.ownership import estimate
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.errors import NetworkFileError
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.benchmarks.pictures import (
    DPI,
    FIGSIZE,
    black_score,
    network_ownership,
    player_ownership,
    plot_ownership,
    record_position,
    show_ownership,
)

SIZE = 5
MOVES = (12, 7, 13, 8, 25, 25)  # C3, C4, D3, D4, two passes: 6 moves, the game over
PNG_SIZE = (round(FIGSIZE[0] * DPI), round(FIGSIZE[1] * DPI))


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) of a PNG file, from its header (which must be a PNG's)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return record_and_networks(tmp_path_factory.mktemp("pictures"))


def record_and_networks(folder: Path) -> dict[str, Path]:
    """A 5x5 record (``game``), a broken one, an ownership and a policy network in ``folder``."""
    torch.manual_seed(0)
    save_model(folder / "ownership.pt", OwnershipNet(SIZE, blocks=1, filters=8))
    save_model(folder / "policy.pt", PolicyNet(SIZE, layers=2, filters=4))
    game = Game(SIZE, Rules(komi=0.5))
    game.replay(MOVES)
    save_sgf(folder / "game.sgf", game)
    (folder / "broken.sgf").write_text("(;GM[1]SZ[5];B[cc];W[zz])")
    return {"folder": folder, **{path.stem: path for path in folder.iterdir()}}


def test_a_live_game_is_drawn_from_blacks_view(tmp_path):
    game = Game(SIZE, Rules(komi=0.5))
    game.play(12)  # White to move: the map below is White's
    ownership = np.ones(SIZE * SIZE, np.float32)  # every point White's
    assert black_score(game, ownership) == -25.5
    figure = plot_ownership(game, ownership, tmp_path / "live.png", win_probability=0.125)
    assert png_size(tmp_path / "live.png") == PNG_SIZE
    title = figure.axes[0].get_title()
    assert title == (
        "Move 1, White to move: this position's figures, for Black\n"
        "V = -25.5 for Black (komi 0.5 included), Black wins 12%"
    )
    image = figure.axes[0].images[0].get_array()
    np.testing.assert_array_equal(image, -np.ones((SIZE, SIZE)))  # shaded as White's
    assert len(figure.axes) == 2  # the board and its colour bar


def test_it_draws_on_given_axes_and_refuses_a_bad_map(tmp_path):
    from matplotlib.figure import Figure

    game = Game(SIZE, Rules(komi=7))
    axes = Figure().add_subplot()
    ownership = np.zeros(SIZE * SIZE)
    ownership[:5] = 1.0  # Black (to move) owns the top row
    assert plot_ownership(game, ownership, ax=axes) is axes.figure
    assert (
        axes.get_title()
        == "Move 0, Black to move: this position's figures, for Black\nV = -2.0 for Black (komi 7 included)"
    )
    assert list(tmp_path.iterdir()) == []  # no path: nothing written
    with pytest.raises(ValueError, match=r"float\[25\], got shape \(24,\)"):
        plot_ownership(game, np.zeros(24))
    with pytest.raises(ValueError, match=r"in \[-1, 1\]"):
        plot_ownership(game, np.full(25, 2.0))


def test_a_record_is_replayed_to_the_move_asked(files):
    assert record_position(files["game"], 0).moves == []
    game = record_position(files["game"], 3)
    assert game.moves == list(MOVES[:3]) and game.to_play == WHITE and not game.is_over
    assert record_position(files["game"]).is_over
    with pytest.raises(ValueError, match=r"--move 7 is out of range: .*game.sgf has 6 moves"):
        record_position(files["game"], 7)
    with pytest.raises(ValueError, match="--move -1 is out of range"):
        record_position(files["game"], -1)
    with pytest.raises(ValueError, match=r"broken.sgf: .*zz"):
        record_position(files["broken"])
    with pytest.raises(ValueError, match="absent.sgf: cannot read the record"):
        record_position(files["folder"] / "absent.sgf")


def test_show_ownership_writes_the_networks_picture(files):
    shown = show_ownership(files["game"], 3, weights=files["ownership"])
    assert shown.path == files["folder"] / "game-ownership-3.png"
    assert png_size(shown.path) == PNG_SIZE
    model = OwnershipNet(SIZE, blocks=1, filters=8)
    model.load_state_dict(torch.load(files["ownership"], weights_only=True)["state_dict"])
    game = shown.game
    found = estimate(model.eval(), GoState(*(field[None] for field in game.state)), game.geometry)
    np.testing.assert_allclose(shown.ownership, found.ownership[0], atol=1e-6)
    assert shown.win_probability == pytest.approx(1 - found.win_probability[0], abs=1e-6)  # White moves
    v = -float(found.score[0])  # Black's view of White's V, komi included
    head = "Move 3, White to move: this position's figures, for Black"
    assert f"{head}\nV = {v:+.1f} for Black (komi 0.5 included)" in shown.title
    assert shown.title.endswith(f"Black wins {shown.win_probability:.0%}")


def test_show_ownership_asks_a_player_for_its_map(files, tmp_path):
    spec = f"ownership-greedy:weights={str(files['ownership'])!r}"
    shown = show_ownership(files["game"], 2, player=spec, out=tmp_path / "p.png")
    assert shown.path == tmp_path / "p.png" and png_size(shown.path) == PNG_SIZE
    assert shown.game.to_play == BLACK and shown.ownership.shape == (SIZE * SIZE,)
    assert "Move 2, Black to move" in shown.title and "Black wins" in shown.title
    over = show_ownership(files["game"], None, player=spec, out=tmp_path / "end.png")
    assert over.win_probability is None and "(game over)" in over.title  # no move to act on
    with pytest.raises(ValueError, match="random gives no ownership map"):
        show_ownership(files["game"], 2, player="random", out=tmp_path / "r.png")


def test_show_ownership_refuses_bad_sources(files, tmp_path):
    with pytest.raises(NetworkFileError, match=r"policy.pt: .*not an ownership network"):
        show_ownership(files["game"], 2, weights=files["policy"], out=tmp_path / "x.png")
    with pytest.raises(ValueError, match="one of them"):
        show_ownership(files["game"], 2, weights=files["ownership"], player="random", out=tmp_path / "x.png")
    with pytest.raises(ValueError, match="trained for 5x5, not 9x9"):
        game = Game(9, Rules())
        save_sgf(tmp_path / "nine.sgf", game)
        show_ownership(tmp_path / "nine.sgf", weights=files["ownership"], out=tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_show_ownership_defaults_to_the_shipped_network_and_a_player_of_it_agrees(tmp_path):
    """Neither --weights nor --player: the shipped 9x9 ownership network. ownership-greedy
    (the same network) gives the same position's figures, V and Black's chances, not those
    after its move: the empty board at komi 5.5, 7 and 9 once read 80% / 75% / 65% for Black
    through the player beside 39% / 31% / 23% through the network."""
    for komi in (5.5, 7, 9):
        save_sgf(tmp_path / "empty.sgf", Game(9, Rules(komi=komi)))
        shipped = show_ownership(tmp_path / "empty.sgf", 0, out=tmp_path / "shipped.png")
        # the player in the picture's float32 (players take bfloat16 where the CPU has it)
        player = show_ownership(
            tmp_path / "empty.sgf", 0, player="ownership-greedy:precision=float32", out=tmp_path / "p.png"
        )
        assert shipped.title == player.title
        assert player.win_probability == pytest.approx(shipped.win_probability, abs=1e-4)
        assert shipped.win_probability < 0.5  # komi outweighs the first move on an empty 9x9


def test_the_callers_of_an_ownership_map_are_told_a_win_network_has_none(tmp_path):
    path = tmp_path / "win.pt"
    save_model(path, WinNet(SIZE, blocks=1, filters=8))
    game = Game(SIZE, Rules(komi=0.5))
    with pytest.raises(NetworkFileError, match=r"win\.pt: a win-probability network .* no ownership head"):
        network_ownership(path, game)
    with pytest.raises(ValueError, match="ownership-greedy gives no ownership map"):
        player_ownership(f"ownership-greedy:weights={str(path)!r}", game)
