"""BatchEnv: its arrays against one Game per slot stepped with the same actions."""

import numpy as np
import pytest

import oware_zero as oz


def check_current(env, games, obs, mask, to_play):
    for i, g in enumerate(games):
        pos = g.position
        assert str(env.position(i)) == str(pos)
        assert to_play[i] == pos.to_play
        assert list(np.flatnonzero(mask[i])) == g.legal_moves()
        np.testing.assert_array_equal(obs[i], pos.encode(env.encoding))


@pytest.mark.parametrize("rules", oz.RULE_SETS)
@pytest.mark.parametrize("threads", [None, 1, 2])
def test_steps_match_single_games(rules, threads):
    n = 37
    env = oz.BatchEnv(n, rules=rules, seed=11, threads=threads)
    obs, mask, to_play = env.reset()
    assert obs.shape == (n, 354) and obs.dtype == np.float32
    assert mask.shape == (n, 6) and mask.dtype == np.bool_
    assert to_play.shape == (n,)
    games = [oz.Game(rules) for _ in range(n)]
    check_current(env, games, obs, mask, to_play)
    rng = np.random.default_rng(5)
    finished = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        movers = to_play.copy()
        obs, rewards, terminated, truncated, info = env.step(actions)
        mask, to_play = info["legal_mask"], info["to_play"]
        assert not truncated.any()
        for i, g in enumerate(games):
            g.play(int(actions[i]))
            if g.is_over:
                assert terminated[i]
                o = g.outcome
                # The reward is the result for the player who made this step's move.
                assert rewards[i] == o.returns[movers[i]]
                assert tuple(info["final_scores"][i]) == o.scores
                games[i] = oz.Game(rules)  # the slot restarted from the start
                finished += 1
            else:
                assert not terminated[i] and rewards[i] == 0
                assert tuple(info["final_scores"][i]) == (0.0, 0.0)
        check_current(env, games, obs, mask, to_play)
    assert finished > 0 and env.games_finished == finished


def test_counts_encoding_and_openings():
    env = oz.BatchEnv(8, encoding="counts", opening_plies=(2, 6), seed=1)
    obs, mask, to_play = env.reset()
    assert obs.shape == (8, 14)
    # Counts are seeds / 48 from the mover's view: they add up to 1.
    np.testing.assert_allclose(obs.sum(axis=1), 1.0, rtol=1e-6)
    assert any(str(env.position(i)) != str(oz.Position()) for i in range(8))


def test_reset_with_a_seed_repeats_the_games():
    env = oz.BatchEnv(16, opening_plies=(0, 10), seed=3)
    first = env.reset(seed=9)[0].copy()
    env.step(np.array([np.flatnonzero(m)[0] for m in env.reset()[1]]))
    again = env.reset(seed=9)[0]
    np.testing.assert_array_equal(first, again)


def test_any_integer_dtype_is_accepted():
    for dtype in (np.int8, np.uint8, np.int32, np.int64, np.uint64):
        env = oz.BatchEnv(4)
        env.reset()
        env.step(np.full(4, 5, dtype=dtype))
        assert str(env.position(0)) == str(oz.Position().apply(5))
    env = oz.BatchEnv(2)
    env.reset()
    env.step([5, 5])  # a list works too


def test_bad_input_raises_and_leaves_the_batch_untouched():
    env = oz.BatchEnv(4, seed=2)
    env.reset()
    before = [str(env.position(i)) for i in range(4)]
    cases = [
        (ValueError, np.zeros(4, dtype=np.float32)),  # wrong dtype
        (ValueError, np.zeros((4, 1), dtype=np.int64)),  # wrong shape
        (ValueError, np.zeros(3, dtype=np.int64)),  # wrong length
        (IndexError, np.array([0, 0, 6, 0])),  # out of range
        (IndexError, np.array([0, -1, 0, 0])),
        (ValueError, np.array(["a", "b", "c", "d"])),
    ]
    for exc, actions in cases:
        with pytest.raises(exc) as info:
            env.step(actions)
        assert "\n" not in str(info.value)
    # South plays F, North a (which sows b..f): South's F is then empty.
    env.step(np.array([5, 5, 5, 5]))
    env.step(np.array([0, 0, 0, 0]))
    before = [str(env.position(i)) for i in range(4)]
    with pytest.raises(ValueError, match="illegal"):
        env.step(np.array([5, 5, 5, 5]))  # South's F is empty
    assert [str(env.position(i)) for i in range(4)] == before
    for bad in (lambda: oz.BatchEnv(0), lambda: oz.BatchEnv(4, rules="chess"),
                lambda: oz.BatchEnv(4, opening_plies=(5, 2)),
                lambda: oz.BatchEnv(4, threads=0), lambda: oz.BatchEnv(4, encoding="x")):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(IndexError):
        env.position(4)
