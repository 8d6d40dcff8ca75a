"""Live games: the person's moves through go_env's rules, the player's moves off the event loop,
its analysis in Black's view, undo and resignation, and every bad message answered, not fatal."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
import web_fixtures

from go_env import Game, Rules, coords
from go_env.game import BLACK, WHITE
from goarena.agents.gtp import find_engine
from goarena.agents.specs import make_agent
from goarena.benchmarks.web import sessions
from goarena.benchmarks.web.sessions import (
    MESSAGE_BYTES,
    Flood,
    PlaySession,
    SessionError,
    decode,
    new_game_settings,
    settle_final,
    winrates_along,
)
from goarena.search.settle import Settled, settled_board
from tests.boards import GNUGO_MISSES_SEKI, SEKI, position

PLAYERS = {"random": "random", "uct": "uct:simulations=200", "sl-policy": "sl-policy"}


class Browser:
    """A session and what it says, as a page sees them."""

    def __init__(self, players: dict[str, str] = PLAYERS, allow_spec: bool = False):
        self.inbox: asyncio.Queue[dict] = asyncio.Queue()
        self.session = PlaySession(lambda: players, allow_spec, self.inbox.put_nowait)
        self.seen: list[dict] = []

    async def send(self, **message: object) -> None:
        await self.session.handle(message)

    async def next(self, kind: str | None = None) -> dict:
        while True:
            message = await asyncio.wait_for(self.inbox.get(), 30)
            self.seen.append(message)
            if kind is None or message["type"] == kind:
                return message

    async def turn(self) -> dict:
        """The state once the person is to move or the game is over."""
        while True:
            state = await self.next("state")
            if state["over"] or (not state["thinking"] and state["to_play"] == state["human"]):
                return state

    async def error(self) -> str:
        return (await self.next("error"))["message"]


def run(test):
    """Run ``test(browser)`` on an event loop; the session is closed after."""

    async def main(**options: object) -> None:
        browser = Browser(**options)
        try:
            await test(browser)
        finally:
            await browser.session.close()

    return main


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{oops", "malformed JSON"),
        ("[1, 2]", "JSON object"),
        ("[" * 2000 + "]" * 2000, "malformed JSON|JSON object"),
        ('{"kind": "play"}', '"type"'),
        ('{"type": 3}', '"type"'),
        (b'{"type": "pass"}', "JSON text"),
        (None, "JSON text"),
        (json.dumps({"type": "play", "move": "x" * MESSAGE_BYTES}), "longer than"),
    ],
)
def test_only_json_objects_with_a_type_are_messages(text, message):
    with pytest.raises(SessionError, match=message):
        decode(text)
    assert decode('{"type": "pass"}') == {"type": "pass"}


def test_a_flood_is_warned_of_once_then_dropped_until_it_slows_down():
    now = [0.0]
    flood = Flood(limit=3, window=1.0, clock=lambda: now[0])
    assert [flood.check() for _ in range(6)] == ["ok", "ok", "ok", "warn", "drop", "drop"]
    now[0] = 0.5
    assert flood.check() == "drop"
    now[0] = 1.0  # the first three are a second old
    assert [flood.check() for _ in range(4)] == ["ok", "ok", "ok", "warn"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"size": 1}, "size"),
        ({"size": "9"}, "size"),
        ({"size": 9.0}, "size"),
        ({"size": 26}, "size"),
        ({"rules": "klingon"}, "unknown rules"),
        ({"komi": "7"}, "komi"),
        ({"komi": 0.3}, "multiple of 0.5"),
        ({"komi": True}, "komi"),
        ({"handicap": "2"}, "handicap"),
        ({"color": "red"}, "color"),
        ({"color": ["black"]}, "color"),
        ({"rules": {"ko": "simple"}}, "unknown rules"),
    ],
)
def test_bad_game_settings_are_refused_saying_which(change, message):
    with pytest.raises(SessionError, match=message):
        new_game_settings({"type": "new", **change})
    size, rules, handicap, color = new_game_settings({"type": "new", "rules": "chinese", "komi": 5})
    assert (size, rules.name, rules.komi, handicap, color) == (9, "chinese", 5, 0, 1)


def test_illegal_moves_and_moves_out_of_turn_are_errors_and_the_game_goes_on():
    async def test(browser: Browser) -> None:
        await browser.send(type="play", move="C3")
        assert "no game yet" in await browser.error()
        await browser.send(type="new", player="random", size=5, komi=0.5)
        state = await browser.turn()
        assert state["legal"] == [coords.to_gtp(p, 5) for p in range(25)] and state["human"] == "black"
        await browser.send(type="play", move="C3")
        state = await browser.turn()
        await browser.send(type="play", move="C3")
        assert "occupied" in await browser.error()
        for bad in ("Z9", "C33", "", 12):
            await browser.send(type="play", move=bad)
            await browser.error()
        await browser.send(type="dance")
        assert "unknown message type 'dance'" in await browser.error()
        move = state["legal"][0]
        await browser.send(type="play", move=move)
        state = await browser.turn()
        assert state["moves"][:3] == ["C3", state["moves"][1], move]

    asyncio.run(run(test)())


def test_the_player_thinks_off_the_event_loop_and_the_person_must_wait_for_it():
    web_fixtures.RELEASE.clear()

    async def test(browser: Browser) -> None:
        await browser.send(type="new", spec="web_fixtures:Slow", size=5, color="white")
        state = await browser.next("state")
        assert state["thinking"] and state["to_play"] == "black" and state["legal"] == []
        await browser.send(type="play", move="C3")  # answered while the player waits
        assert "not your turn" in await browser.error()
        await browser.send(type="undo")
        assert "thinking" in await browser.error()
        web_fixtures.RELEASE.set()
        state = await browser.turn()
        assert state["moves"] == ["A5"] and not state["thinking"]

    asyncio.run(run(test)(allow_spec=True))


def test_a_new_game_starts_without_waiting_for_the_old_players_search_and_drops_its_move():
    web_fixtures.RELEASE.clear()
    web_fixtures.ANSWERED.clear()

    async def test(browser: Browser) -> None:
        await browser.send(type="new", spec="web_fixtures:Slow", size=5, color="white")
        assert (await browser.next("state"))["thinking"]
        await browser.send(type="new", player="random", size=5)
        state = await browser.turn()
        assert state["player"] == "random" and state["moves"] == []
        await browser.send(type="play", move="C3")
        state = await browser.turn()  # the new player answers while the old one still thinks
        assert state["moves"][0] == "C3" and len(state["moves"]) == 2
        assert not web_fixtures.ANSWERED.is_set()
        web_fixtures.RELEASE.set()
        await asyncio.to_thread(web_fixtures.ANSWERED.wait, 30)
        await browser.send(type="pass")
        state = await browser.turn()
        assert state["moves"][2] == "pass" and len(state["winrates"]) == len(state["moves"]) in (3, 4)

    asyncio.run(run(test)(players={"random": "random"}, allow_spec=True))


def test_a_new_game_that_cannot_start_leaves_the_game_in_play():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=5)
        await browser.turn()
        await browser.send(type="play", move="C3")
        await browser.turn()
        await browser.send(type="new", player="sl-policy", size=5)  # a 9x9 network
        assert "cannot play" in await browser.error()
        assert browser.session.game.moves[0] == coords.from_gtp("C3", 5)
        await browser.send(type="pass")
        state = await browser.turn()
        assert state["moves"][0] == "C3" and state["moves"][2] == "pass" and state["player"] == "random"

    asyncio.run(run(test)())


def test_undo_takes_back_the_persons_last_move_and_the_answer():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=5, komi=0.5)
        await browser.turn()
        await browser.send(type="undo")
        assert "no move of yours" in await browser.error()
        await browser.send(type="play", move="C3")
        await browser.turn()
        await browser.send(type="play", move="pass")
        await browser.turn()  # over, if random passed too: undo then reopens the game
        await browser.send(type="undo")
        state = await browser.turn()
        assert len(state["moves"]) == 2 and state["moves"][0] == "C3" and not state["over"]
        assert state["winrates"] == [None, None] and state["to_play"] == "black"
        game = Game(5, browser.session.game.rules)
        game.replay([coords.from_gtp(move, 5) for move in state["moves"]])
        assert state["board"] == game.board.ravel().tolist()

    asyncio.run(run(test)())


def test_resigning_ends_the_game_for_the_other_side():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=5)
        await browser.turn()
        await browser.send(type="resign")
        state = await browser.next("state")
        assert state["over"] and state["result"] == "W+R" and state["score"] is None
        await browser.send(type="play", move="C3")
        assert "over" in await browser.error()
        await browser.send(type="undo")
        assert "over" in await browser.error()

    asyncio.run(run(test)())


MISBEHAVING = [("resign", None), ("crash", "the player broke"), ("illegal", "occupied")]


@pytest.mark.parametrize(("how", "said"), MISBEHAVING)
def test_a_player_that_resigns_fails_or_plays_an_illegal_move_loses(how, said):
    async def test(browser: Browser) -> None:
        await browser.send(type="new", spec=f"web_fixtures:Misbehaving:how='{how}'", size=5)
        await browser.turn()
        await browser.send(type="play", move="C3")
        state = await browser.turn()
        assert state["over"] and state["result"] == ("B+R" if how == "resign" else "B+F")
        errors = [m["message"] for m in browser.seen if m["type"] == "error"]
        assert len(errors) == (said is not None) and all(said in error for error in errors)
        await browser.send(type="new", player="random", size=5)  # the session goes on
        assert not (await browser.turn())["over"]

    asyncio.run(run(test)(players={"random": "random"}, allow_spec=True))


def test_only_offered_players_are_played_unless_specs_are_allowed():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="gnugo")
        assert "unknown player 'gnugo'" in await browser.error()
        await browser.send(type="new", spec="random")
        assert "--allow-spec" in await browser.error()
        await browser.send(type="new", player="sl-policy", size=5)  # a 9x9 network
        assert "cannot play" in await browser.error()
        await browser.send(type="new", player="random", size=9, handicap=1)
        assert "handicap" in (await browser.error()).lower()
        assert browser.session.game is None

    asyncio.run(run(test)())


def test_handicap_stones_are_black_and_white_moves_first():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=9, handicap=2, komi=0.5)
        state = await browser.turn()
        assert state["handicap"] == 2 and len(state["moves"]) == 1
        assert state["board"].count(1) == 2 and state["to_play"] == "black"

    asyncio.run(run(test)())


def test_analysis_arrives_in_blacks_view_while_the_player_searches_and_the_switch_stops_it():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="uct", size=5, komi=0.5, color="white")
        state = await browser.turn()
        reports = [m for m in browser.seen if m["type"] == "analysis"]
        assert reports, "no analysis while the player searched"
        last = reports[-1]
        assert last["winrate"] == last["moves"][0]["winrate"]  # Black searched: its view is Black's
        assert state["moves"] == [last["moves"][0]["move"]] and state["winrates"] == [last["winrate"]]
        for info in last["moves"]:
            assert set(info) == {"move", "visits", "winrate", "prior", "score_lead", "pv"}
            assert info["pv"][0] == info["move"] and 0 <= info["winrate"] <= 1
        assert last["visits"] == sum(info["visits"] for info in last["moves"]) > 0
        assert last["ownership"] is None and last["policy"] is None  # uct has neither to give cheaply
        pondered = await browser.next("analysis")  # the person's turn: uct analyses their position
        assert pondered["ponder"] and pondered["winrate"] is not None
        await browser.send(type="play", move=state["legal"][0])
        state = await browser.turn()
        heard = [m for m in browser.seen[len(reports) :] if m["type"] == "analysis"]
        assert state["winrates"][1] == [m for m in heard if m.get("ponder")][-1]["winrate"]
        assert state["winrates"][2] == heard[-1]["winrate"] and not heard[-1].get("ponder")
        browser.seen.clear()
        await browser.send(type="analysis", on=False)
        await browser.send(type="new", player="uct", size=5, komi=0.5, color="white")
        await browser.turn()
        assert [m["type"] for m in browser.seen] == ["state", "state"]
        await browser.send(type="analysis", on="yes")
        assert '"on"' in await browser.error()

    asyncio.run(run(test)())


def test_ownership_and_the_policy_are_turned_to_blacks_view():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="greedy", size=9, komi=7)
        hint = await browser.next("analysis")  # the person's turn: Black to move
        await browser.send(type="play", move="E5")
        state = await browser.turn()
        answer = [m for m in browser.seen if m["type"] == "analysis"][-1]  # White searched
        agent = make_agent("ownership-greedy")
        game = Game(9, browser.session.game.rules)
        assert hint["ownership"] == pytest.approx(agent.ownership(game), abs=2e-3)
        game.play(coords.from_gtp("E5", 9))
        assert answer["ownership"] == pytest.approx(-agent.ownership(game), abs=2e-3)
        best = answer["moves"][0]
        assert best["move"] == state["moves"][1] and best["score_lead"] is not None
        assert answer["winrate"] == pytest.approx(1 - best["winrate"], abs=1e-4)
        assert answer["policy"] is None  # a player that is no PolicyAgent

    asyncio.run(run(test)(players={"greedy": "ownership-greedy"}))


def test_a_policy_player_hints_the_persons_turn_with_its_policy():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=5)
        hint = await browser.next("analysis")
        assert hint["policy"] == pytest.approx([1 / 26] * 26, abs=1e-4)
        assert hint["winrate"] is None and hint["moves"] == [] and hint["ownership"] is None

    asyncio.run(run(test)())


def test_win_rates_along_a_game_have_one_per_position_and_none_at_its_end():
    game = Game(5)
    start = game.copy()
    moves = [12, 6, 18, 25, 25]
    game.replay(moves)
    found = winrates_along(start, moves, "uct:simulations=50")
    assert len(found) == 6 and found[-1] is None
    assert all(0 <= value <= 1 for value in found[:-1])
    assert winrates_along(start, moves, "random") == [None] * 6  # no estimate to give


# A 9x9 game: Black walls off the left six columns, White the right three; White's B5 stands in
# atari in Black's area, dead, and both pass. Counted as it stands, B5 makes Black's area nobody's.
BLACK_MOVES = [f"F{row}" for row in range(1, 10)] + ["A5", "C5", "B6"]
WHITE_MOVES = [f"G{row}" for row in range(1, 10)] + ["B5", "H5", "J5"]
DEAD_B5 = 54 - 27 - 7.5  # Black's area with B5 off, less White's, less komi


def walled_off(rules: str) -> Game:
    game = Game(9, Rules.preset(rules, komi=7.5))
    moves = [coords.from_gtp(v, 9) for pair in zip(BLACK_MOVES, WHITE_MOVES, strict=True) for v in pair]
    game.replay([*moves, game.pass_move, game.pass_move])
    return game


def play_walled_off(rules: str) -> list[dict]:
    """The states of the walled-off game played through a session: the person Black, a
    scripted White; from the first that says the game is over to the counted one."""

    async def test(browser: Browser) -> None:
        await browser.send(
            type="new", spec=f"web_fixtures:Scripted:moves='{' '.join(WHITE_MOVES)}'", rules=rules, komi=7.5
        )
        await browser.turn()
        for move in [*BLACK_MOVES, "pass"]:
            await browser.send(type="play", move=move)
            state = await browser.turn()
        states.append(state)
        while state["result"] is None:
            state = await browser.next("state")
            states.append(state)

    states: list[dict] = []
    asyncio.run(run(test)(allow_spec=True))
    return states


def assert_b5_counted_dead(state: dict, counted_by: str) -> None:
    game = walled_off("chinese")
    assert state["moves"] == [coords.to_gtp(move, 9) for move in game.moves] and state["over"]
    assert state["dead"] == ["B5"] and state["counted_by"] == counted_by
    assert state["score"] == DEAD_B5 and state["result"] == f"B+{DEAD_B5:g}" and game.score() < 0
    owners = settled_board(game, [coords.from_gtp("B5", 9)]).area_owner().ravel().tolist()
    assert state["owners"] == owners and owners[coords.from_gtp("B5", 9)] == BLACK
    assert state["board"][coords.from_gtp("B5", 9)] == WHITE  # still on the board, shown dead


@pytest.mark.skipif(find_engine("gnugo") is None, reason="GNU Go is not installed")
def test_under_chinese_rules_gnu_go_names_the_dead_stones_and_they_come_off_before_the_count():
    counting, *_, counted = play_walled_off("chinese")
    assert counting["over"] and counting["result"] is None and counting["counted_by"] is None
    assert_b5_counted_dead(counted, "GNU Go")
    assert settle_final(walled_off("chinese")) == Settled(DEAD_B5, "GNU Go", (coords.from_gtp("B5", 9),))


@pytest.mark.parametrize("gnugo", ["absent", "failing"])
def test_without_gnu_go_the_ownership_network_names_the_dead_stones(gnugo, monkeypatch, capsys):
    if gnugo == "absent":
        monkeypatch.setattr(sessions, "find_engine", lambda program: None)
    else:  # a program that is no GTP engine: it exits at once
        monkeypatch.setattr(sessions, "GNUGO", "false")
    *_, counted = play_walled_off("chinese")
    assert_b5_counted_dead(counted, "the ownership network")
    assert ("GNU Go could not judge" in capsys.readouterr().err) == (gnugo == "failing")


def test_with_no_judge_the_board_is_counted_as_it_stands(monkeypatch):
    monkeypatch.setattr(sessions, "find_engine", lambda program: None)
    game = Game(7, Rules.preset("chinese"))  # the network plays 9x9 only
    game.replay([coords.from_gtp("D4", 7), coords.from_gtp("A1", 7), game.pass_move, game.pass_move])
    assert settle_final(game) == Settled(game.score(), "the board as it stands")


def test_a_judge_that_calls_a_seki_dead_is_overruled(monkeypatch):
    """The count keeps a chain in seki on the board, whoever judged it dead."""
    white_seki = [coords.from_gtp(v, 9) for v in ("C9", "C8", "C7", "D7")]
    monkeypatch.setattr(sessions, "JUDGES", {"GNU Go": lambda game: white_seki})
    game = position(SEKI, Rules.preset("chinese"))
    game.replay([game.pass_move, game.pass_move])
    settled = settle_final(game)
    assert settled.margin == game.score() and settled.dead == ()
    assert settled.how == "GNU Go; in seki, alive: C9 C8 C7 D7"


@pytest.mark.skipif(find_engine("gnugo") is None, reason="GNU Go is not installed")
def test_gnu_go_calls_a_seki_dead_and_the_count_keeps_it():
    game = position(GNUGO_MISSES_SEKI, Rules.preset("chinese"))
    game.replay([game.pass_move, game.pass_move])
    settled = settle_final(game)
    assert settled.margin == game.score() == -0.5 and settled.dead == ()
    assert settled.how.startswith("GNU Go; in seki, alive: F8 C7 D7")


@pytest.mark.parametrize("rules", ["tromp-taylor", "goarena"])
def test_under_tromp_taylor_counting_every_stone_is_alive(rules):
    states = play_walled_off(rules)
    assert len(states) == 1  # counted at once
    game = walled_off(rules)
    assert states[0]["dead"] == [] and states[0]["counted_by"] == "the board as it stands"
    assert states[0]["score"] == game.score() < 0 and states[0]["result"] == game.result()
    assert states[0]["owners"] == game.area_owner().ravel().tolist()


def test_an_undo_while_the_dead_stones_are_judged_drops_the_count(monkeypatch):
    release, judged = threading.Event(), threading.Event()

    def slow_judge(game: Game) -> list[int]:
        release.wait(30)
        judged.set()
        return [coords.from_gtp("B5", 9)]

    monkeypatch.setattr(sessions, "JUDGES", {"a slow judge": slow_judge})

    async def test(browser: Browser) -> None:
        await browser.send(
            type="new", spec=f"web_fixtures:Scripted:moves='{' '.join(WHITE_MOVES)}'", rules="chinese"
        )
        for move in [*BLACK_MOVES, "pass"]:
            await browser.turn()
            await browser.send(type="play", move=move)
        counting = await browser.turn()
        assert counting["over"] and counting["result"] is None
        await browser.send(type="undo")  # takes back the passes: the game goes on
        state = await browser.turn()
        assert not state["over"] and state["moves"][-1] == "J5"
        release.set()
        await asyncio.to_thread(judged.wait, 30)
        await asyncio.sleep(0.2)  # the count's answer, had it been kept, would be sent by now
        assert browser.inbox.empty() and browser.session.settled is None

    asyncio.run(run(test)(allow_spec=True))


# -- the person's turn analysed, hints, games resumed, random's pass ------------------------------


def test_a_search_player_analyses_the_persons_position_until_they_move():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="uct", size=5, komi=0.5)  # the person moves first
        state = await browser.turn()
        first = await browser.next("analysis")
        later = await browser.next("analysis")
        assert first["ponder"] and later["ponder"] and later["visits"] > first["visits"]  # it goes on
        assert browser.session._pondering
        await browser.send(type="play", move="C3")
        assert browser.session._ponder_stop.is_set()  # stopped by the move
        state = await browser.turn()
        assert state["moves"][0] == "C3" and state["winrates"][0] is not None  # its estimate kept
        after = [m for m in browser.seen if m["type"] == "analysis"]
        since = after.index(later) + 1
        played = next(i for i, m in enumerate(browser.seen) if m["type"] == "state" and m["moves"])
        # Nothing of the empty board's analysis after the move: the next reports are the player's search.
        assert all(not m.get("ponder") for m in after[since:] if browser.seen.index(m) > played)

    asyncio.run(run(test)())


def test_pondering_stops_at_its_cap_and_when_the_page_leaves(monkeypatch):
    monkeypatch.setattr(sessions, "PONDER_SECONDS", 0.5)

    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="uct", size=5, komi=0.5)
        await browser.next("analysis")
        for _ in range(200):
            if not browser.session._pondering:
                break
            await asyncio.sleep(0.05)
        assert not browser.session._pondering  # within its cap

    asyncio.run(run(test)())

    async def leave(browser: Browser) -> None:
        monkeypatch.setattr(sessions, "PONDER_SECONDS", 60.0)
        await browser.send(type="new", player="uct", size=5, komi=0.5)
        await browser.next("analysis")
        await browser.session.close()
        assert browser.session._ponder_stop.is_set()

    asyncio.run(run(leave)())


def test_a_hint_is_the_best_move_of_the_analysis_or_of_the_players_own_search():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="uct", size=5, komi=0.5)
        state = await browser.turn()
        await browser.send(type="hint")
        hint = await browser.next("hint")
        assert hint["at"] == 0 and hint["move"] in state["legal"] + ["pass"]
        await browser.send(type="analysis", on=False)  # no analysis under way: the player's own search
        await browser.send(type="play", move="C3")
        state = await browser.turn()
        await browser.send(type="hint")
        hint = await browser.next("hint")
        assert hint["at"] == 2 and hint["move"] in state["legal"] + ["pass"]

    asyncio.run(run(test)())


def test_a_game_resumed_from_its_moves_goes_on_and_bad_moves_are_refused():
    async def test(browser: Browser) -> None:
        await browser.send(type="new", player="random", size=5, moves=["C3", "B2", "D4"])
        state = await browser.turn()
        assert state["moves"][:3] == ["C3", "B2", "D4"] and len(state["moves"]) == 4
        assert state["scores"][:3] == [None] * 3
        for moves, said in [
            (["C3", "C3"], "move 2"),
            ("C3", "list of vertices"),
            (["pass", "pass", "C3"], "over before move 3"),
            (["Z9"], "move 1"),
        ]:
            await browser.send(type="new", player="random", size=5, moves=moves)
            assert said in await browser.error()
        assert browser.session.game.moves == [coords.from_gtp(v, 5) for v in state["moves"]]  # kept

    asyncio.run(run(test)())


def test_nothing_is_left_to_play_once_every_empty_point_is_someones():
    game = Game(5)
    assert not sessions.nothing_left_to_play(game)  # an empty board
    for black, white in zip(["B1", "B2", "B3", "B4", "B5"], ["D1", "D2", "D3", "D4", "D5"], strict=True):
        game.play(coords.from_gtp(black, 5))
        assert not sessions.nothing_left_to_play(game)  # White has no stone yet, or C borders both
        game.play(coords.from_gtp(white, 5))
    assert not sessions.nothing_left_to_play(game)
    for point in ("C1", "C2", "C3", "C4"):
        game.play(coords.from_gtp(point, 5))
        game.play(game.pass_move)
    game.play(coords.from_gtp("C5", 5))
    assert sessions.nothing_left_to_play(game)


def test_random_passes_after_a_pass_when_nothing_is_left_to_play():
    game = Game(5, Rules(komi=0.5))
    # Black walls columns B and C, White column D and E1: A is Black's, E White's.
    for row in range(1, 6):
        game.play(coords.from_gtp(f"B{row}", 5))
        game.play(coords.from_gtp(f"D{row}", 5))
    for row in range(1, 6):
        game.play(coords.from_gtp(f"C{row}", 5))
        game.play(game.pass_move if row < 5 else coords.from_gtp("E1", 5))
    assert sessions.nothing_left_to_play(game)
    session = PlaySession(lambda: PLAYERS, False, lambda message: None)
    seat = sessions._Seat(make_agent("random", seed=1))
    stop = threading.Event()
    game.play(game.pass_move)  # the person passes: random passes too
    assert session._think(seat, game.copy(), stop, lambda m: None)[0] == game.pass_move
    game.undo()
    game.play(coords.from_gtp("A1", 5))  # no pass before: random plays on
    moves = {session._think(seat, game.copy(), stop, lambda m: None)[0] for _ in range(20)}
    assert moves != {game.pass_move}
