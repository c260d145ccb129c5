//! Position text ("FEN") and move letters, as `docs/notation.md` describes them.
//!
//! FEN: `p0-p1-…-p11-storeSouth-storeNorth-S|N`, 14 non-negative integers then the side
//! to move; the 14 numbers add up to the game's seed total.

use std::fmt;
use std::str::FromStr;

use super::position::{
    EndReason, MoveInfo, Outcome, Position, Side, move_letter, parse_move_letter,
};
use super::rules::{Leftover, RuleSet, TOTAL_SEEDS};

/// What was wrong with a position text or a move list. The message names the bad token
/// and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// The position text did not have 15 `-`-separated fields.
    #[error(
        "position '{text}': expected 15 fields separated by '-' (12 pits, 2 stores, S or N), found {found}"
    )]
    FieldCount {
        /// The whole text.
        text: String,
        /// How many fields it had.
        found: usize,
    },
    /// A seed count was not a non-negative integer.
    #[error(
        "position '{text}': field {index} ('{token}') is not a seed count: expected a non-negative integer"
    )]
    BadCount {
        /// The whole text.
        text: String,
        /// 1-based field number.
        index: usize,
        /// The bad field.
        token: String,
    },
    /// The side-to-move field was not `S` or `N`.
    #[error("position '{text}': field 15 ('{token}') is not a side to move: expected S or N")]
    BadSide {
        /// The whole text.
        text: String,
        /// The bad field.
        token: String,
    },
    /// The seeds did not add up to the game's total.
    #[error("position '{text}': the 14 numbers add up to {sum}, expected {expected}")]
    BadTotal {
        /// The whole text.
        text: String,
        /// Their sum.
        sum: u32,
        /// The game's total (48).
        expected: u32,
    },
    /// A character in a move list is no move letter.
    #[error("move {index} ('{token}') is not a move: expected a letter A-F (South) or a-f (North)")]
    BadMove {
        /// 1-based move number.
        index: usize,
        /// The bad character.
        token: char,
    },
}

impl FromStr for Position {
    type Err = TextError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let t = text.trim();
        let fields: Vec<&str> = t.split('-').collect();
        if fields.len() != 15 {
            return Err(TextError::FieldCount {
                text: t.to_string(),
                found: fields.len(),
            });
        }
        let mut nums = [0u8; 14];
        let mut sum = 0u32;
        for (i, f) in fields[..14].iter().enumerate() {
            let f = f.trim();
            let bad = || TextError::BadCount {
                text: t.to_string(),
                index: i + 1,
                token: f.to_string(),
            };
            if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let v: u32 = f.parse().map_err(|_| bad())?;
            if v > TOTAL_SEEDS as u32 {
                return Err(TextError::BadTotal {
                    text: t.to_string(),
                    sum: v,
                    expected: TOTAL_SEEDS as u32,
                });
            }
            sum += v;
            nums[i] = v as u8;
        }
        let side = match fields[14].trim() {
            "S" | "s" => Side::South,
            "N" | "n" => Side::North,
            other => {
                return Err(TextError::BadSide {
                    text: t.to_string(),
                    token: other.to_string(),
                });
            }
        };
        if sum != TOTAL_SEEDS as u32 {
            return Err(TextError::BadTotal {
                text: t.to_string(),
                sum,
                expected: TOTAL_SEEDS as u32,
            });
        }
        let mut pits = [0u8; 12];
        pits.copy_from_slice(&nums[..12]);
        Ok(Position {
            pits,
            stores: [nums[12], nums[13]],
            side,
        })
    }
}

impl fmt::Display for Position {
    /// Writes the position text (FEN).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in self.pits {
            write!(f, "{p}-")?;
        }
        write!(
            f,
            "{}-{}-{}",
            self.stores[0],
            self.stores[1],
            self.side.letter()
        )
    }
}

/// Parses a move list: letters concatenated (`FfBe`) or separated by white space or
/// commas (`F f B e`). Returns (side, action) pairs; whose turn it is is checked when
/// they are played.
pub fn parse_moves(text: &str) -> Result<Vec<(Side, usize)>, TextError> {
    let mut out = Vec::new();
    for c in text.chars() {
        if c.is_whitespace() || c == ',' {
            continue;
        }
        match parse_move_letter(c) {
            Some(m) => out.push(m),
            None => {
                return Err(TextError::BadMove {
                    index: out.len() + 1,
                    token: c,
                });
            }
        }
    }
    Ok(out)
}

/// A board diagram as seen from South (North's row on top, `f` at the left).
pub fn diagram(pos: &Position) -> String {
    diagram_for(pos, Side::South)
}

/// A board diagram as seen from `viewer`'s seat: his row at the bottom, read left to
/// right in sowing order (`A`..`F` for South, `a`..`f` for North), the opponent's row on
/// top in the other direction, so the seeds go round anticlockwise either way.
pub fn diagram_for(pos: &Position, viewer: Side) -> String {
    let (me, them) = (viewer, viewer.opponent());
    let letters = |side: Side, pits: &mut dyn Iterator<Item = usize>| -> String {
        pits.map(|a| format!("    {}", move_letter(side, a)))
            .collect::<String>()
    };
    let row = |side: Side, pits: &mut dyn Iterator<Item = usize>| -> String {
        let mut r = format!("{} {:>3}  |", side.letter(), pos.stores[side.index()]);
        for a in pits {
            r.push_str(&format!(" {:>2} |", pos.pits[side.base() + a]));
        }
        r.push('\n');
        r
    };
    let rule = "       +----+----+----+----+----+----+\n";
    let mut s = String::new();
    s.push_str(&format!("      {}\n", letters(them, &mut (0..6).rev())));
    s.push_str(rule);
    s.push_str(&row(them, &mut (0..6).rev()));
    s.push_str(rule);
    s.push_str(&row(me, &mut (0..6)));
    s.push_str(rule);
    s.push_str(&format!("      {}\n", letters(me, &mut (0..6))));
    s.push_str(&format!("{} to move\n", pos.side));
    s
}

/// Seeds as text: whole numbers without a point, halves (from "split evenly") with `.5`.
fn seeds(x: f32) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x:.1}")
    }
}

/// What a move did, in words, or `None` for a quiet move: "North captures 5: b 2, c 3",
/// a grand slam that captured nothing, the seeds a `grand-slam-captures` finish takes, a
/// player who moves again. `before` is the position the move was played in (by
/// `before.side`), `after` the one it led to.
pub fn move_words(
    before: &Position,
    after: &Position,
    action: usize,
    info: &MoveInfo,
) -> Option<String> {
    let me = before.side;
    let them = me.opponent();
    let from = me.base() + action;
    // Seeds each pit received from the sowing (the pit played from is skipped).
    let n = before.pits[from] as usize;
    let mut sown = [0usize; 12];
    let mut p = from;
    let mut left = n;
    while left > 0 {
        p = (p + 1) % 12;
        if p != from {
            sown[p] += 1;
            left -= 1;
        }
    }
    let mut parts = Vec::new();
    if info.captured > 0 {
        let pits: Vec<String> = (0..6)
            .filter_map(|a| {
                let i = them.base() + a;
                let had = before.pits[i] as usize + sown[i];
                (had > 0 && after.pits[i] == 0).then(|| format!("{} {had}", move_letter(them, a)))
            })
            .collect();
        parts.push(format!(
            "{me} captures {}: {}",
            info.captured,
            pits.join(", ")
        ));
        let taken = after.stores[me.index()] as i32
            - before.stores[me.index()] as i32
            - info.captured as i32;
        if taken > 0 {
            parts.push(format!("and takes the {taken} seeds left on the board"));
        }
    }
    if info.grand_slam_refused {
        parts.push(format!(
            "{me}'s move would take every seed of {them}'s row (a grand slam), so it captures nothing"
        ));
    }
    if info.moves_again {
        parts.push(format!("{them} has no seeds, so {me} moves again"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// How a game ended, in words: "North reached 25 seeds and wins, 26–5". `last` is the
/// final position (its side to move is the player who could not move, where that is the
/// reason).
pub fn ending_words(last: &Position, rules: RuleSet, outcome: &Outcome) -> String {
    let st = outcome.stores();
    let result = match outcome.winner() {
        Some(w) => format!(
            "{w} wins, {}–{}",
            seeds(st[w.index()]),
            seeds(st[w.opponent().index()])
        ),
        None => format!("a draw, {}–{}", seeds(st[0]), seeds(st[1])),
    };
    let mover = last.side;
    let leftover = |l: Leftover| match l {
        Leftover::OwnRow => "each player adds the seeds of his own row to his store",
        Leftover::SplitEvenly => "the seeds left on the board are split evenly",
    };
    match outcome.reason {
        EndReason::Threshold => {
            let t = rules.win_threshold.unwrap_or(TOTAL_SEEDS / 2 + 1);
            match outcome.winner() {
                Some(w) => format!(
                    "{w} reached {t} seeds and wins, {}–{}",
                    seeds(st[w.index()]),
                    seeds(st[w.opponent().index()])
                ),
                None => result,
            }
        }
        EndReason::EvenSplit => format!("both players have {} seeds: {result}", TOTAL_SEEDS / 2),
        EndReason::CannotFeed => format!(
            "{mover} cannot give {} any seeds: {}; {result}",
            mover.opponent(),
            leftover(Leftover::OwnRow)
        ),
        EndReason::NoSeeds => format!(
            "{mover} has no seeds to play: {} takes the seeds left on the board; {result}",
            mover.opponent()
        ),
        EndReason::OnlyGrandSlams => format!(
            "every move {mover} has would capture {}'s whole row: {}; {result}",
            mover.opponent(),
            leftover(Leftover::OwnRow)
        ),
        EndReason::Repetition => format!(
            "the position repeated: {}; {result}",
            leftover(rules.repetition)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trips() {
        let p: Position = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S".parse().unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(p.to_string(), "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S");
    }

    #[test]
    fn errors_name_the_token() {
        let e = "4-4-4-4-x-4-4-4-4-4-4-4-0-0-S"
            .parse::<Position>()
            .unwrap_err();
        assert!(e.to_string().contains("field 5 ('x')"), "{e}");
        let e = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-W"
            .parse::<Position>()
            .unwrap_err();
        assert!(e.to_string().contains("'W'"), "{e}");
        let e = "4-4-4-4-4-4-4-4-4-4-4-4-0-1-S"
            .parse::<Position>()
            .unwrap_err();
        assert!(e.to_string().contains("add up to 49"), "{e}");
        let e = "4-4-4".parse::<Position>().unwrap_err();
        assert!(e.to_string().contains("found 3"), "{e}");
        let e = "4--4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"
            .parse::<Position>()
            .unwrap_err();
        assert!(matches!(e, TextError::FieldCount { .. }), "{e}");
    }

    #[test]
    fn move_lists() {
        let m = parse_moves("FfBe").unwrap();
        assert_eq!(m, parse_moves("F f B e").unwrap());
        assert_eq!(
            m,
            vec![
                (Side::South, 5),
                (Side::North, 5),
                (Side::South, 1),
                (Side::North, 4)
            ]
        );
        let e = parse_moves("FfGe").unwrap_err();
        assert!(e.to_string().contains("move 3 ('G')"), "{e}");
    }

    #[test]
    fn captures_and_endings_in_words() {
        // docs/rules.md example 4: C captures a..e (2 2 2 2 3 = 11) and reaches 26.
        let before: Position = "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S".parse().unwrap();
        let mut after = before;
        let rules = RuleSet::abapa();
        let info = after.apply(rules, 2);
        assert_eq!(
            move_words(&before, &after, 2, &info).unwrap(),
            "South captures 11: a 2, b 2, c 2, d 2, e 3"
        );
        let o = after.status(rules).unwrap();
        assert_eq!(
            ending_words(&after, rules, &o),
            "South reached 25 seeds and wins, 26–15"
        );
        // Example 7: a grand slam under abapa captures nothing.
        let before: Position = "1-1-1-1-1-0-0-0-8-0-0-1-17-17-N".parse().unwrap();
        let mut after = before;
        let info = after.apply(rules, 2);
        assert!(
            move_words(&before, &after, 2, &info)
                .unwrap()
                .contains("captures nothing")
        );
        // A quiet move says nothing.
        let before = Position::start();
        let mut after = before;
        let info = after.apply(rules, 0);
        assert_eq!(move_words(&before, &after, 0, &info), None);
    }

    #[test]
    fn north_sees_the_board_from_his_side() {
        let p: Position = "1-2-3-4-5-6-7-0-0-0-0-14-6-0-N".parse().unwrap();
        let d = diagram_for(&p, Side::North);
        let lines: Vec<&str> = d.lines().collect();
        // South's row on top, F at the left; North's own row at the bottom, a..f.
        assert!(lines[0].trim_start().starts_with("F    E"), "{d}");
        assert!(
            lines[2].starts_with("S   6  |  6 |  5 |  4 |  3 |  2 |  1 |"),
            "{d}"
        );
        assert!(
            lines[4].starts_with("N   0  |  7 |  0 |  0 |  0 |  0 | 14 |"),
            "{d}"
        );
        assert!(lines[6].trim_start().starts_with("a    b"), "{d}");
        // South's view is the usual one.
        assert!(
            diagram(&p)
                .lines()
                .next()
                .unwrap()
                .trim_start()
                .starts_with("f    e")
        );
    }
}
