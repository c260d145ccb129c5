"""Position, Game and their bad input: facts checked by hand from the rules (docs/rules.md)."""

import pytest

import oware_zero as oz

START = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"


def test_start_position_text_round_trips():
    p = oz.Position()
    assert str(p) == START
    assert oz.Position(START) == p == oz.Position.start()
    assert p.pits == [4] * 12 and p.stores == (0, 0)
    assert p.to_play == 0 and p.side == "S"
    assert repr(p) == f"Position('{START}')"
    assert hash(p) == hash(oz.Position(START))


def test_sowing_f_from_the_start():
    # F (pit 5) holds 4: one seed each into a, b, c, d; nothing captured.
    p = oz.Position().apply(5)
    assert p.pits == [4, 4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4]
    assert p.to_play == 1
    assert str(p) == "4-4-4-4-4-0-5-5-5-5-4-4-0-0-N"


def test_a_capture_of_two_and_three():
    # South plays F (2 seeds) into a (1 -> 2) and b (2 -> 3): captures 5.
    p = oz.Position("0-0-0-0-0-2-1-2-5-5-5-5-10-13-S")
    q = p.apply(5)
    assert q.pits == [0, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5]
    assert q.stores == (15, 13)


def test_grand_slam_captures_nothing_in_abapa_but_all_in_traditional():
    # F (2 seeds) reaches a and b, which then hold 2 and 3: the whole row.
    p = oz.Position("10-0-0-0-0-2-1-2-0-0-0-0-20-13-S")
    assert p.apply(5, "abapa").stores == (20, 13)
    assert p.apply(5, "abapa").pits[6:8] == [2, 3]
    assert p.apply(5, "traditional").stores == (25, 13)
    # awari: the grand slam is illegal while another move exists.
    assert p.legal_moves("awari") == [0]
    assert p.legal_moves("abapa") == [0, 5]


def test_must_feed():
    # North's row is empty: only moves reaching it are legal (F with 1 seed does,
    # A with 2 does not).
    p = oz.Position("2-0-0-0-0-1-0-0-0-0-0-0-22-23-S")
    assert p.legal_moves() == [5]
    assert p.legal_moves("traditional") == [0, 5]


def test_game_plays_undoes_and_reads_move_text():
    g = oz.Game()
    g.play("F")
    g.play(0)  # North's a
    assert g.moves == "Fa"
    assert g.actions == [5, 0]
    assert g.legal_move_letters() == "ABCDE"
    g.play("Be")
    assert g.moves == "FaBe"
    g.undo()
    assert g.moves == "FaB"
    assert str(g.position) == str(oz.Game(moves="FaB").position)
    for _ in range(3):
        g.undo()
    assert str(g.position) == START
    with pytest.raises(IndexError, match="no move to undo"):
        g.undo()


def test_repetition_ends_a_game_when_a_position_recurs_since_the_last_capture():
    # Random games until some end by repetition; the final position must be one seen
    # before since the last capture, tracked here independently of the library.
    import random

    rng = random.Random(3)
    found = 0
    for _ in range(400):
        g = oz.Game()
        since_capture = [str(g.position)]
        while not g.is_over:
            before = sum(g.position.stores)
            g.play(rng.choice(g.legal_moves()))
            if sum(g.position.stores) != before:
                since_capture = []
            repeated = str(g.position) in since_capture
            since_capture.append(str(g.position))
            assert repeated == (g.is_over and g.outcome.reason == "repetition")
        if g.outcome.reason == "repetition":
            found += 1
            # Each player takes his own row (abapa).
            p = g.position
            assert g.outcome.scores == (p.stores[0] + sum(p.pits[:6]), p.stores[1] + sum(p.pits[6:]))
    assert found > 0


def test_outcome_of_threshold():
    g = oz.Game(position="0-0-0-0-0-2-1-2-5-5-5-5-20-3-S")
    g.play("F")  # captures 5: South reaches 25
    o = g.outcome
    assert o is not None and o.reason == "store-threshold"
    assert o.scores == (25.0, 3.0)
    assert o.winner == 0 and o.returns == (1.0, -1.0)
    assert g.legal_moves() == []


@pytest.mark.parametrize("rules", oz.RULE_SETS)
def test_every_rule_set_plays_a_game_to_its_end(rules):
    import random

    rng = random.Random(7)
    g = oz.Game(rules)
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
    assert g.outcome.reason in {
        "store-threshold", "even-split", "cannot-feed", "no-seeds",
        "only-grand-slams", "repetition",
    }
    scores = g.outcome.scores
    if g.outcome.reason == "store-threshold":
        # The game ends as a store reaches 25; the seeds left stay uncounted.
        assert max(scores) >= 25 and scores == tuple(float(s) for s in g.position.stores)
    else:
        assert sum(scores) == 48


def test_bad_input_raises_one_line_errors():
    cases = [
        (ValueError, lambda: oz.Position("4-4-4")),
        (ValueError, lambda: oz.Position("4-4-4-4-4-4-4-4-4-4-4-5-0-0-S")),
        (ValueError, lambda: oz.Position(START.replace("S", "X"))),
        (ValueError, lambda: oz.Game("chess")),
        (ValueError, lambda: oz.Game(moves="FZ")),
        (ValueError, lambda: oz.Game(moves="FF")),  # South's F again, North to move
        (IndexError, lambda: oz.Game().play(6)),
        (IndexError, lambda: oz.Game().play(-1)),
        (ValueError, lambda: oz.Game().play("a")),  # North's move, South to move
        (ValueError, lambda: oz.Position("0-0-0-0-0-2-1-2-5-5-5-5-10-13-S").apply(0)),
        (IndexError, lambda: oz.Position().apply(9)),
        (ValueError, lambda: oz.Position().legal_moves("nope")),
        (ValueError, lambda: oz.Position().encode("pixels")),
        (IndexError, lambda: oz.Outcome.returns_for(
            oz.Game(position="0-0-0-0-0-2-1-2-5-5-5-5-20-3-S", moves="F").outcome, 2)),
    ]
    for exc, f in cases:
        try:
            f()
        except exc as e:
            msg = str(e)
            assert msg and "\n" not in msg, msg
        except BaseException as e:  # a panic would surface here
            pytest.fail(f"expected {exc.__name__}, got {type(e).__name__}: {e}")
        else:
            pytest.fail(f"expected {exc.__name__}")


def test_a_move_after_the_end_raises():
    g = oz.Game(position="0-0-0-0-0-2-1-2-5-5-5-5-20-3-S", moves="F")
    with pytest.raises(ValueError, match="game is over"):
        g.play(0)
    with pytest.raises(ValueError, match="game is over"):
        g.play("a")
