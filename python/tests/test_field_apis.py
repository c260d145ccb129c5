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


OPPONENTS = ["random", "alphabeta:2", "alphabeta:5", "network:novice", "network:amateur",
             "network:strong", "network:master", "network:16"]


@pytest.mark.parametrize("opponent", OPPONENTS)
def test_gymnasium_check_env_for_every_opponent(opponent):
    from gymnasium.utils.env_checker import check_env

    for side in (0, 1, "random"):
        check_env(gym.make("oware_zero/Oware-v0", agent_side=side, opponent=opponent).unwrapped)


@pytest.mark.parametrize("rules", oz.RULE_SETS)
def test_gymnasium_check_env_under_every_rule_set(rules):
    from gymnasium.utils.env_checker import check_env

    for opponent in ("random", "alphabeta:3"):
        env = gym.make("oware_zero/Oware-v0", rules=rules, opponent=opponent, agent_side="random").unwrapped
        check_env(env)
        assert env.game.rules == rules


def _play_out(env, seed, policy):
    """One episode from reset(seed); returns the agent's reward."""
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, reward, done, truncated, info = env.step(policy(info["action_mask"]))
    return reward


def test_gymnasium_network_opponents_play_as_their_level():
    net = oz.Network.load()
    # strong: no noise, the most visited move; as South's opening it plays what the
    # network's own search at that level plays.
    env = gym.make("oware_zero/Oware-v0", opponent="network:strong", agent_side=1).unwrapped
    env.reset(seed=0)
    assert env.game.actions == [net.search(oz.Game(), level="strong").move]
    env = gym.make("oware_zero/Oware-v0", opponent="network:64", agent_side=1).unwrapped
    env.reset(seed=0)
    assert env.game.actions == [net.search(oz.Game(), simulations=64).move]
    # novice samples its moves from the environment's generator: a seed replays a game,
    # and other seeds give other games.
    env = gym.make("oware_zero/Oware-v0", opponent="network:novice").unwrapped
    rng = np.random.default_rng(0)
    first = lambda mask: int(np.flatnonzero(mask)[0])  # noqa: E731
    games = []
    for seed in (1, 1, 2, 3):
        _play_out(env, seed, first)
        games.append(env.game.moves)
    assert games[0] == games[1] and len(set(games)) > 1
    # Even the weakest level beats the random agent: 8 games, the agent playing either side.
    rewards = []
    for k in range(8):
        env = gym.make("oware_zero/Oware-v0", opponent="network:novice", agent_side=k % 2).unwrapped
        rewards.append(_play_out(env, k, lambda mask: int(rng.choice(np.flatnonzero(mask)))))
    assert sum(rewards) <= -5, rewards


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
    for bad in (dict(opponent="chess"), dict(rules="x"), dict(agent_side=2), dict(opponent="alphabeta:x"),
                dict(opponent="alphabeta:0"), dict(opponent="network:grandmaster"), dict(opponent="network:0"),
                dict(opponent="network:strong", rules="awari")):
        with pytest.raises(ValueError) as e:
            gym.make("oware_zero/Oware-v0", **bad)
        assert "\n" not in str(e.value)


def test_gymnasium_registration():
    env = gym.make("oware_zero/Oware-v0")
    assert env.spec.id == "oware_zero/Oware-v0"
    assert env.observation_space.shape == (354,) and env.action_space.n == 6
