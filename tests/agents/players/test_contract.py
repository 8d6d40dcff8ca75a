"""What every network player owes its caller: one device rule (its ``device`` option, else the
context's, resolved at reset; an unsupported device refused by ``check_spec`` before any game),
and the process's threads left alone (whoever owns the process sets them, never a player)."""

from __future__ import annotations

import pytest
import torch

from go_env import Rules
from goarena.agents.nets.predict import player_device
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.agents.weights import SL_POLICY_9X9, VALUE_9X9

NETWORK_PLAYERS = [
    "sl-policy",
    "rl-policy",
    "value-greedy",
    f"puct:prior={str(SL_POLICY_9X9)!r},value={str(VALUE_9X9)!r},simulations=8",
    "alphago:simulations=8",
]
ABSENT = "cuda:7"  # no machine this runs on has eight GPUs


def test_the_device_is_the_players_own_else_the_contexts():
    context = GameContext(9, Rules(), device="cpu")
    assert player_device(None, context) == torch.device("cpu")
    assert player_device(None, None) == torch.device("cpu")
    with pytest.raises(ValueError, match="unsupported device 'mps': use cpu or cuda"):
        player_device(None, GameContext(9, Rules(), device="mps"))
    with pytest.raises(ValueError, match=f"device '{ABSENT}' asked for, but"):
        player_device(ABSENT, context)  # its own option first


@pytest.mark.parametrize("spec", NETWORK_PLAYERS)
def test_every_network_player_follows_the_contexts_device_at_reset(spec):
    player = make_agent(spec)
    player.reset(GameContext(9, Rules(), device="cpu"))
    with pytest.raises(ValueError, match=f"device '{ABSENT}' asked for, but"):
        player.reset(GameContext(9, Rules(), device=ABSENT))
    own = make_agent(f"{spec}{',' if ':' in spec else ':'}device='cpu'")
    own.reset(GameContext(9, Rules(), device=ABSENT))  # its own device wins over the context's


@pytest.mark.parametrize("spec", NETWORK_PLAYERS)
@pytest.mark.parametrize("device", ["mps", ABSENT])
def test_check_spec_refuses_a_device_the_player_cannot_run_on(spec, device):
    with pytest.raises(AgentSpecError, match=f"bad options for .*device '{device}'"):
        check_spec(spec, GameContext(9, Rules(), device=device))
    check_spec(spec, GameContext(9, Rules(), device="cpu"))


@pytest.mark.parametrize("spec", NETWORK_PLAYERS)
def test_building_a_player_leaves_the_processs_threads_alone(spec):
    before = torch.get_num_threads()
    threads = 2 if before != 2 else 3
    torch.set_num_threads(threads)
    try:
        player = make_agent(spec)
        player.reset(GameContext(9, Rules()))
        assert torch.get_num_threads() == threads
    finally:
        torch.set_num_threads(before)
