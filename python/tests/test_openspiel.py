"""1 000 random abapa games played in oware_zero and in OpenSpiel's `oware` side by side.

OpenSpiel's `oware` (open_spiel/games/oware.cc) plays abapa: feeding obligation, a grand
slam captures nothing, a repeated position since the last capture ends the game, 25
seeds win. Its action is the pit counted from the mover's first pit (A or a), as ours.
Where it ends a game it puts each player's row into his store; our outcome does the same
except after a store reached 25, where the seeds left stay uncounted (the winner is the
same).
"""

import random

import numpy as np
import pytest

import oware_zero as oz

pyspiel = pytest.importorskip("pyspiel")

GAMES = 1000


def spiel_board(state):
    """Pits (A..F, a..f) and stores (South, North) of an OpenSpiel oware state."""
    t = np.rint(np.array(state.observation_tensor(0)) * 48).astype(int)
    return [int(x) for x in t[:12]], (int(t[12]), int(t[13]))


def test_random_abapa_games_agree_with_openspiel():
    game = pyspiel.load_game("oware")
    rng = random.Random(20261205)
    plies = 0
    reasons = set()
    for _ in range(GAMES):
        ours = oz.Game("abapa")
        theirs = game.new_initial_state()
        while True:
            pos = ours.position
            pits, stores = spiel_board(theirs)
            assert ours.is_over == theirs.is_terminal(), (ours, str(theirs))
            if ours.is_over:
                break
            assert (pos.pits, pos.stores) == (pits, stores), ours
            assert theirs.current_player() == pos.to_play
            assert sorted(theirs.legal_actions()) == ours.legal_moves(), ours
            a = rng.choice(ours.legal_moves())
            ours.play(a)
            theirs.apply_action(a)
            plies += 1
        o = ours.outcome
        reasons.add(o.reason)
        assert tuple(theirs.returns()) == o.returns, ours
        # OpenSpiel collects each row into its owner's store at the end.
        p = ours.position
        collected = (p.stores[0] + sum(p.pits[:6]), p.stores[1] + sum(p.pits[6:]))
        assert stores == collected, ours
        if o.reason == "store-threshold":
            assert o.scores == tuple(float(s) for s in p.stores)
        else:
            assert o.scores == tuple(float(s) for s in collected)
    assert plies > 50 * GAMES
    # The games reached more than one kind of ending, repetition among them.
    assert {"store-threshold", "repetition"} <= reasons, reasons
