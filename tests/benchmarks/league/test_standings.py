"""Standings of a stored league: the ladder, the anchor, tables that fit the terminal, and
the live view of a resumed league."""

import pytest
from rich.console import Console

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.schedule import schedule
from goarena.benchmarks.league.standings import LiveProgress, build_report, print_report
from goarena.benchmarks.league.store import LeagueStore, StoredGame

UCT = {"uct-30": "uct:simulations=30", "uct-300": "uct:simulations=300", "uct-3000": "uct:simulations=3000"}


def stored_league(directory, config, winners):
    """A league's store holding its first scheduled games, won by ``winners`` in turn
    ("black", "white" or "draw")."""
    store = LeagueStore(directory)
    store.add_config(config.to_dict())
    for name, spec in config.players.items():
        store.add_player(name, spec, "")
    for game, winner in zip(schedule(config), winners, strict=False):
        store.add_game(stored_game(game.id, game.black, game.white, winner), sgf="(;)")
    return store


def stored_game(game_id, black, white, winner):
    result = {"black": "B+R", "white": "W+R", "draw": "0"}[winner]
    return StoredGame(
        id=game_id,
        black=black,
        white=white,
        seed=game_id,
        result=result,
        winner=winner,
        margin=None,
        reason="resign",
        cleanup_from=None,
        moves="",
        move_count=0,
        black_seconds=0.0,
        white_seconds=0.0,
        sgf=f"games/{game_id}.sgf",
        finished_at="",
    )


def test_one_game_per_pair_all_won_by_white_ranks_the_players_by_their_scores(tmp_path):
    # Round one: random is Black twice, uct-300 White twice, and White won all three games.
    config = LeagueConfig(
        players={"random": "random", "uct-30": UCT["uct-30"], "uct-300": UCT["uct-300"]}, games_per_pair=1
    )
    store = stored_league(tmp_path, config, ["white"] * 3)
    report = build_report(store)
    store.close()
    assert [row.name for row in report.standings] == ["uct-300", "uct-30", "random"]
    assert [row.score for row in report.standings] == [1.0, 0.5, 0.0]
    assert -500 < report.black_advantage < 0


def test_without_random_or_gnu_go_the_anchor_is_the_first_name_in_alphabetical_order(tmp_path):
    config = LeagueConfig(players={"uct-3000": UCT["uct-3000"], "uct-30": UCT["uct-30"]})
    assert config.rated_anchor() == ("uct-30", 0.0)
    store = stored_league(tmp_path, config, ["black", "white"])
    report = build_report(store)  # from the stored league, whose players are in another order
    store.close()
    assert (report.anchor, report.anchor_elo) == ("uct-30", 0.0)
    assert LeagueConfig(players={"zz": "random", "aa": "random"}).rated_anchor() == ("aa", 0.0)


def league_report(tmp_path, players):
    """The report of a finished league in which the longer name always wins (equal: a draw)."""
    config = LeagueConfig(players=players, games_per_pair=4)
    winners = []
    for game in schedule(config):
        black, white = len(game.black), len(game.white)
        winners.append("draw" if black == white else "black" if black > white else "white")
    store = stored_league(tmp_path, config, winners)
    report = build_report(store)
    store.close()
    return report


DEFAULT_LEAGUE = {
    "random": "random",
    **UCT,
    "gnugo-1": "gtp:gnugo --mode gtp --level 1",
    "gnugo-10": "gtp:gnugo --mode gtp --level 10",
}


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("extra", [{}, {"uct-3000-rave-with-a-long-name": "uct:simulations=3000,rave=true"}])
def test_the_report_fits_the_terminal_with_every_name_whole_and_no_cell_wrapped(tmp_path, width, extra):
    report = league_report(tmp_path, {**DEFAULT_LEAGUE, **extra})
    console = Console(width=width, record=True, color_system=None)
    print_report(report, console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= width
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines]
    # The standings, then the crosstable: one line per player each, with every name whole.
    names = [row.name for row in report.standings]
    labels = set(names) | {f"{rank} {name}" for rank, name in enumerate(names, 1)}
    standings = [i for i, row in enumerate(cells) if len(row) > 1 and row[1] in names]
    crosstable = [i for i, row in enumerate(cells) if row and row[0] in labels]
    for rows in (standings, crosstable):
        assert rows == list(range(rows[0], rows[0] + len(names)))
    assert [cells[i][1] for i in standings] == names
    if width == 120 and not extra:  # every column, and the names head the crosstable's
        assert "opp. Elo" in lines[2] and "uct-3000" in lines[crosstable[0] - 2]
    # The columns a newcomer does not know and the prior are said in words under the tables.
    footer = " ".join(" ".join(lines).split())
    assert "opp. Elo: the mean rating of its opponents; LOS next: the chance" in footer
    assert "imagined draw per colour against the field" in footer and "virtual" not in footer
    if width == 120:  # each line of words whole on a console of 120 columns (off a terminal)
        assert any(line.startswith("opp. Elo") and line.endswith("than the next.") for line in lines)


def test_a_resumed_league_counts_the_stored_games_in_the_bar_and_the_points():
    config = LeagueConfig(players=DEFAULT_LEAGUE, games_per_pair=2)
    games = schedule(config)
    finished = [stored_game(g.id, g.black, g.white, "black") for g in games[:4]]
    with LiveProgress(config, len(games), finished=finished) as progress:
        assert progress.progress.tasks[0].completed == 4
        assert sum(progress.points.values()) == 4 and sum(progress.games.values()) == 8
        following = games[4]
        progress.update(stored_game(following.id, following.black, following.white, "white"), 5, len(games))
        assert progress.progress.tasks[0].completed == 5
        assert sum(progress.points.values()) == 5
        console = Console(width=80, record=True, color_system=None)
        console.print(progress._view())
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert {line.split()[0] for line in lines[2:]} == set(DEFAULT_LEAGUE)


def test_the_summary_says_why_the_weakest_rates_as_it_does_the_anchor(tmp_path):
    report = league_report(tmp_path, DEFAULT_LEAGUE)  # gnugo-10 is the anchor, random the weakest
    assert report.anchor == "gnugo-10" and report.standings[-1].name == "random"
    console = Console(width=200, record=True, color_system=None)
    print_report(report, console)
    line = next(line for line in console.export_text().splitlines() if line.startswith("Anchor:"))
    elo = round(report.standings[-1].elo)
    assert line == (
        f"Anchor: gnugo-10 fixed at 1000 (Elo rates differences): random's {elo} is how far below it "
        "the games put it."
    )


def test_the_progress_lines_give_the_games_done_and_the_time_left():
    """Off a terminal each game is a line that starts with the games done of all and the time
    left at the pace so far; a resumed league's stored games are not timed."""
    config = LeagueConfig(players=DEFAULT_LEAGUE, games_per_pair=2)
    games = schedule(config)
    finished = [stored_game(g.id, g.black, g.white, "black") for g in games[:10]]
    clock = [100.0]
    progress = LiveProgress(config, len(games), finished=finished)
    progress.clock = lambda: clock[0]
    console = Console(width=200, record=True, color_system=None, force_terminal=False)
    with progress:
        progress.console = console
        for done, game in enumerate(games[10:14], 11):
            clock[0] += 30.0  # a game every 30 s: the 4 played take 2 minutes
            progress.update(stored_game(game.id, game.black, game.white, "white"), done, len(games))
    lines = console.export_text().splitlines()
    assert len(games) == 30
    assert lines[0].startswith("[11/30, about 10 min left] ")  # 19 games at 30 s
    assert lines[-1].startswith("[14/30, about 8 min left] ")  # 16 games at 30 s
