"""The PettingZoo AEC environment and the Gymnasium environment, through their own checkers."""

import numpy as np
import pytest

import oware_zero as oz

pettingzoo = pytest.importorskip("pettingzoo")
gym = pytest.importorskip("gymnasium")


@pytest.mark.parametrize("rules", oz.RULE_SETS)
def test_pettingzoo_api_test(rules):
    from pettingzoo.test import api_test

    from oware_zero.pettingzoo_env import OwareAECEnv

    api_test(OwareAECEnv(rules=rules), num_cycles=200)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test

    from oware_zero.pettingzoo_env import OwareAECEnv

    seed_test(OwareAECEnv, num_cycles=200)


def test_pettingzoo_game_matches_a_game_and_pays_the_winner():
    from oware_zero.pettingzoo_env import OwareAECEnv

    env = OwareAECEnv()
    env.reset(seed=0)
    game = oz.Game()
    rng = np.random.default_rng(0)
    totals = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert agent == env.possible_agents[game.to_play]
        legal = np.flatnonzero(obs["action_mask"])
        assert list(legal) == game.legal_moves()
        np.testing.assert_array_equal(obs["observation"], game.position.encode())
        a = int(rng.choice(legal))
        env.step(a)
        game.play(a)
    assert game.is_over
    assert (totals["player_0"], totals["player_1"]) == game.outcome.returns


def test_pettingzoo_illegal_action_raises():
    from oware_zero.pettingzoo_env import OwareAECEnv

    env = OwareAECEnv()
    env.reset()
    env.step(5)
    env.step(0)
    with pytest.raises(ValueError):
        env.step(5)  # South's F is empty


def test_gymnasium_check_env_and_registration():
    from gymnasium.utils.env_checker import check_env

    env = gym.make("oware_zero/Oware-v0")
    check_env(env.unwrapped)
    for side in (0, 1, "random"):
        check_env(gym.make("oware_zero/Oware-v0", agent_side=side, opponent="alphabeta:2").unwrapped)


def test_gymnasium_episode_against_random_and_errors():
    env = gym.make("oware_zero/Oware-v0", agent_side=1).unwrapped
    obs, info = env.reset(seed=3)
    assert env.game.to_play == 1 and len(env.game.moves) == 1  # the opponent opened
    np.testing.assert_array_equal(obs, env.game.position.encode())
    done = False
    while not done:
        a = int(np.flatnonzero(info["action_mask"])[0])
        obs, reward, done, truncated, info = env.step(a)
    assert reward == env.game.outcome.returns[1]
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    env.reset(seed=1)
    illegal = [a for a in range(6) if a not in env.game.legal_moves()]
    if illegal:
        with pytest.raises(ValueError):
            env.step(illegal[0])
    for bad in (dict(opponent="chess"), dict(rules="x"), dict(agent_side=2), dict(opponent="alphabeta:x")):
        with pytest.raises(ValueError):
            gym.make("oware_zero/Oware-v0", **bad)
