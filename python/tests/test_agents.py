"""Network, MCTS, alpha-beta and the endgame tables from Python."""

import os
import pathlib

import numpy as np
import pytest

import oware_zero as oz

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHIPPED = REPO / "checkpoints" / "oware-abapa"
TABLES = REPO / "tablebases" / "abapa"


@pytest.fixture(scope="module")
def net():
    return oz.Network.load(str(SHIPPED))


def test_default_network_is_the_shipped_one():
    n = oz.Network.load()
    assert n.rules == "abapa" and n.input_dim == 354
    assert pathlib.Path(n.path).resolve() == SHIPPED.resolve()


def test_evaluate_is_batched_and_agrees_row_by_row(net):
    env = oz.BatchEnv(64, seed=4, opening_plies=(0, 30))
    obs, mask, _ = env.reset()
    logits, value = net.evaluate(obs)
    assert logits.shape == (64, 6) and value.shape == (64,)
    assert logits.dtype == np.float32 and value.dtype == np.float32
    assert np.all(np.abs(value) <= 1)
    # One row at a time gives the same numbers as the batch.
    for i in (0, 17, 63):
        l1, v1 = net.evaluate(obs[i:i + 1].copy())
        np.testing.assert_allclose(l1[0], logits[i], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(v1[0], value[i], rtol=1e-4, atol=1e-5)
    assert net.evaluate(np.zeros((0, 354), np.float32))[0].shape == (0, 6)


def test_evaluate_reads_any_memory_layout_by_rows(net):
    env = oz.BatchEnv(8, seed=1, opening_plies=(0, 20))
    obs = env.reset()[0].copy()
    logits, value = net.evaluate(obs)
    # A Fortran-order copy once gave other values: its memory was read as rows.
    for other in (np.asfortranarray(obs), np.repeat(obs, 2, axis=0)[::2]):
        l2, v2 = net.evaluate(other)
        np.testing.assert_allclose(l2, logits, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(v2, value, rtol=1e-5, atol=1e-6)


def test_evaluate_rejects_bad_arrays(net):
    for bad in (np.zeros((3, 354), np.float64), np.zeros((3, 14), np.float32),
                np.zeros(354, np.float32), [[0.0] * 354]):
        with pytest.raises(ValueError) as e:
            net.evaluate(bad)
        assert "\n" not in str(e.value)


def test_network_wins_a_won_capture(net):
    # South's F captures 5 and reaches 25: the network's search must find it.
    pos = "0-0-0-0-0-2-1-2-5-5-5-5-20-3-S"
    r = net.search(pos, simulations=64)
    assert r.move == 5 and r.letter == "F"
    assert sum(r.visits) >= 63 and r.visits[5] == max(r.visits)
    assert r.value > 0.5
    assert oz.alphabeta(pos, depth=1).move == 5


def test_search_from_a_game_and_bad_input(net):
    g = oz.Game(moves="FfBe")
    r = net.search(g, simulations=32)
    assert r.move in g.legal_moves()
    assert [i for i, v in enumerate(r.visits) if v] == [a for a in g.legal_moves() if r.visits[a]]
    with pytest.raises(ValueError):
        net.search(g, simulations=0)
    with pytest.raises(ValueError):
        net.search(oz.Game("awari"), simulations=8)
    over = oz.Game(position="0-0-0-0-0-2-1-2-5-5-5-5-20-3-S", moves="F")
    assert net.search(over).move is None
    for exc, bad in ((ValueError, dict(seed=-1)), (TypeError, dict(game=5)), (TypeError, dict(game=None))):
        args = dict(game=g, simulations=8)
        args.update(bad)
        with pytest.raises(exc) as e:
            net.search(**args)
        assert "\n" not in str(e.value)
    for t in (0, -1, 2000):
        with pytest.raises(ValueError):
            oz.Network.load(threads=t)


def test_search_at_the_playing_levels(net):
    g = oz.Game(moves="FfBe")
    # strong and master: no noise, the most visited move, the network's own policy
    # temperature; so strong is the plain search at its 400 simulations.
    strong = net.search(g, level="strong")
    assert strong.visits == net.search(g, simulations=400).visits and strong.depth == 400
    assert net.search(g, level="master").depth == 1600
    # novice and amateur: root noise and a move sampled from the seed's generator.
    novice = [net.search(g, level="novice", seed=s) for s in range(60)]
    assert all(r.depth == 8 and sum(r.visits) == 8 for r in novice)
    assert all(r.move in g.legal_moves() for r in novice)
    assert len({tuple(r.visits) for r in novice}) > 1  # the noise depends on the seed
    assert len({r.move for r in novice}) > 1  # and so does the move
    again = net.search(g, level="novice", seed=7)
    assert (again.move, again.visits) == (novice[7].move, novice[7].visits)
    assert net.search(g, level="Amateur").depth == 64  # names as `oware play` reads them
    for bad in (dict(level="grandmaster"), dict(level="strong", simulations=10), dict(level="")):
        with pytest.raises(ValueError) as e:
            net.search(g, **bad)
        assert "\n" not in str(e.value)


def test_alphabeta_finds_a_forced_win_and_rejects_bad_depths():
    r = oz.alphabeta(oz.Game(), depth=4)
    assert r.move in range(6) and r.depth == 4 and r.pv[0] == r.letter
    with pytest.raises(ValueError):
        oz.alphabeta(oz.Game(), depth=0)
    with pytest.raises(ValueError):
        oz.alphabeta("not a position", depth=3)
    with pytest.raises(TypeError) as e:
        oz.alphabeta(3, depth=3)
    assert "\n" not in str(e.value) and "got int" in str(e.value)


def test_missing_or_damaged_checkpoints(tmp_path):
    with pytest.raises(FileNotFoundError):
        oz.Network.load(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError):
        oz.Network.load(str(tmp_path))  # exists, holds no checkpoint
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in SHIPPED.iterdir():
        if f.name != "optimizer.bpk":
            (bad / f.name).write_bytes(f.read_bytes())
    data = bytearray((bad / "model.bpk").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bad / "model.bpk").write_bytes(bytes(data))
    with pytest.raises(ValueError) as e:
        oz.Network.load(str(bad))
    assert "\n" not in str(e.value)


def _outcome(margin):
    return "win" if margin > 0 else "draw" if margin == 0 else "loss"


@pytest.mark.skipif(not TABLES.exists(), reason="no tables in this checkout")
def test_tables_probe_keeps_not_proven_apart():
    tb = oz.Tablebase(str(TABLES))
    assert tb.rules == "abapa" and tb.max_seeds >= 2
    assert tb.probe(oz.Position()) is None  # 48 seeds on the board: beyond the tables
    # The shipped tables hold every board up to 12 seeds exact. A board whose entry
    # weaker tables leave as bounds (a repetition may decide it; tests/tablebase.rs
    # proves its value by search): 7 seeds, North to move, in the tables of
    # `oware tablebase build --max-seeds 7 --out python/tests/data/abapa-7-games-6
    # --cycle-seeds 7 --game-seeds 6`, which search the repetition rule's game only up
    # to 6 seeds.
    board = "0-1-0-2-1-1-0-1-0-1-0-0"
    assert tb.probe(f"{board}-21-20-N").exact
    tb = oz.Tablebase(str(HERE / "data" / "abapa-7-games-6"))
    r = tb.probe(f"{board}-21-20-N")
    assert r is not None and not r.exact
    lo, hi = r.bounds
    assert lo < hi and lo <= r.value <= hi
    # With the same board, the stores decide whether the bounds prove the result:
    # North's store minus South's plus the margin, at either bound.
    answers = {}
    for south in (20, 21, 22, 23):
        diff = (41 - south) - south
        p = tb.probe(f"{board}-{south}-{41 - south}-N")
        assert p.bounds == (lo, hi) and not p.exact
        expected = _outcome(diff + lo) if _outcome(diff + lo) == _outcome(diff + hi) else None
        assert p.proven == expected
        answers[south] = p.proven
    assert None in answers.values()
    # An exact entry is proven, its bounds one value.
    q = tb.probe("0-0-0-0-0-1-0-0-0-0-0-0-24-23-S")
    if q.exact:
        assert q.bounds == (q.value, q.value) and q.proven == q.outcome
    with pytest.raises(FileNotFoundError):
        oz.Tablebase(str(TABLES / "missing"))
    with pytest.raises(ValueError):
        oz.Tablebase(str(REPO / "docs"))  # exists, holds no tables


@pytest.mark.parametrize("big", [2**63, 2**64, 2**70, -(2**63) - 1, np.uint64(2**63)])
def test_every_integer_argument_beyond_64_bits_is_refused_by_value(big, net):
    # Each integer argument of the package, given a value pyo3 cannot hold in an i64:
    # the argument's own range check answers (ValueError, or IndexError for an action
    # or a player), naming the value as given, never pyo3's OverflowError.
    outcome = oz.Game(position="0-0-0-0-0-2-1-2-5-5-5-5-20-3-S", moves="F").outcome
    cases = [
        (ValueError, lambda: oz.BatchEnv(big)),
        (ValueError, lambda: oz.BatchEnv(4, threads=big)),
        (ValueError, lambda: oz.BatchEnv(4, opening_plies=big)),
        (ValueError, lambda: oz.BatchEnv(4, opening_plies=(0, big))),
        (IndexError, lambda: oz.Game().play(big)),
        (IndexError, lambda: oz.Position().apply(big)),
        (IndexError, lambda: outcome.returns_for(big)),
        (ValueError, lambda: oz.alphabeta(oz.Game(), depth=big)),
        (ValueError, lambda: oz.alphabeta(oz.Game(), depth=2, tt_mb=big)),
        (ValueError, lambda: net.search(oz.Game(), simulations=big)),
        (ValueError, lambda: oz.Network.load(threads=big)),
    ]
    if big < 0 or big >= 2**64:
        cases.append((ValueError, lambda: oz.BatchEnv(4, seed=big)))
    for exc, f in cases:
        with pytest.raises(exc) as info:
            f()
        assert type(info.value) is exc, info.value
        msg = str(info.value)
        assert "\n" not in msg and str(int(big)) in msg, msg
