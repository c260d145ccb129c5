//! The openings of a match: each pair of games starts from one position and moves
//! played from it, read from text or drawn at random (distinct where possible, since a
//! repeated opening between deterministic players repeats the pair's games).

use oware_core::game::{Game, Position, RuleSet};
use oware_core::rng::Rng;

/// A start position for a pair of games: a position and moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Where the game starts (its history for repetition starts here).
    pub start: Position,
    /// Moves (mover-relative actions) played from `start` before the players take over.
    pub moves: Vec<u8>,
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Openings {
    /// `plies` uniformly random legal moves from the start position, distinct where
    /// possible (see [`random_openings`]).
    Random {
        /// Plies per opening.
        plies: u32,
    },
    /// These openings in order, taken again from the first when there are more pairs.
    List(Vec<Opening>),
}

/// Reads openings, one per line: `FEN`, moves (`FfBe`), or `FEN;moves`. Blank lines
/// and lines starting with `#` are skipped. Errors name the line.
pub fn parse_openings(text: &str, rules: RuleSet) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (fen, moves) = match t.split_once(';') {
            Some((f, m)) => (Some(f.trim()), m.trim()),
            // A FEN has dashes; a move list never does.
            None if t.contains('-') => (Some(t), ""),
            None => (None, t),
        };
        let start = match fen {
            Some(f) => f
                .parse::<Position>()
                .map_err(|e| format!("line {}: {e}", n + 1))?,
            None => Position::start(),
        };
        let mut g = Game::new(rules, start);
        g.play_text(moves).map_err(|e| {
            format!(
                "line {}: {}: {e}",
                n + 1,
                oware_core::game::after_moves(g.moves().len())
            )
        })?;
        if g.is_over() {
            return Err(format!("line {}: the game is already over there", n + 1));
        }
        out.push(Opening {
            start,
            moves: g.moves().iter().map(|&(_, a)| a).collect(),
        });
    }
    if out.is_empty() {
        return Err("no openings found".into());
    }
    Ok(out)
}

/// The longest random opening a match accepts, in plies.
pub const MAX_OPENING_PLIES: u32 = 60;

/// `pairs` random openings of `plies` plies, distinct positions where possible: pair k
/// draws from stream k of `seed` and draws again (up to 200 times) while its position
/// repeats an earlier pair's, since a repeated opening between deterministic players
/// repeats the pair's games and would make the interval look tighter than it is.
/// An opening that ends the game is always drawn again.
pub fn random_openings(rules: RuleSet, plies: u32, pairs: usize, seed: u64) -> Vec<Opening> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(pairs);
    for pair in 0..pairs {
        let mut rng = Rng::stream(seed, pair as u64);
        let mut chosen = None;
        for attempt in 0..1000 {
            let mut g = Game::new(rules, Position::start());
            while g.moves().len() < plies as usize && !g.is_over() {
                let a = rng.pick_bit(g.legal_moves());
                let _ = g.play(a);
            }
            if g.is_over() {
                continue;
            }
            let o = Opening {
                start: Position::start(),
                moves: g.moves().iter().map(|&(_, a)| a).collect(),
            };
            if seen.insert(g.position().key()) || attempt >= 200 {
                chosen = Some(o);
                break;
            }
        }
        out.push(chosen.unwrap_or(Opening {
            start: Position::start(),
            moves: Vec::new(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_distinct_while_they_can_be() {
        let r = RuleSet::default();
        let key = |o: &Opening| {
            let mut g = Game::new(r, o.start);
            for &a in &o.moves {
                g.play(a as usize).unwrap();
            }
            g.position().key()
        };
        let o = random_openings(r, 4, 100, 5);
        assert!(o.iter().all(|x| x.moves.len() == 4));
        let keys: std::collections::HashSet<_> = o.iter().map(key).collect();
        assert_eq!(keys.len(), 100);
        assert_eq!(o, random_openings(r, 4, 100, 5), "same seed, same openings");
        // One ply has only six openings: the seventh pair must repeat one.
        let o = random_openings(r, 1, 8, 5);
        let keys: std::collections::HashSet<_> = o.iter().map(key).collect();
        assert_eq!(keys.len(), 6);
    }

    #[test]
    fn openings_from_text() {
        let r = RuleSet::default();
        let o = parse_openings(
            "# comment\nFfBe\n\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S;Cc\n",
            r,
        )
        .unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].moves, vec![5, 5, 1, 4]);
        assert!(o[1].moves.is_empty());
        assert_eq!(o[2].moves, vec![2, 2]);
        let e = parse_openings("Ff\nFF\n", r).unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse_openings("1-2-3\n", r).unwrap_err();
        assert!(e.starts_with("line 1:"), "{e}");
        assert!(parse_openings("# nothing\n", r).is_err());
    }
}
