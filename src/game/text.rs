//! Position text ("FEN") and move letters, exactly as `shared/RULES.md` writes them.
//!
//! FEN: `p0-p1-…-p11-storeSouth-storeNorth-S|N`, 14 non-negative integers then the side
//! to move; the 14 numbers add up to the game's seed total.

use std::fmt;
use std::str::FromStr;

use super::position::{Position, Side, parse_move_letter};
use super::rules::TOTAL_SEEDS;

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
    let mut s = String::new();
    s.push_str("          f    e    d    c    b    a\n");
    s.push_str("       +----+----+----+----+----+----+\n");
    s.push_str(&format!("N {:>3}  |", pos.stores[1]));
    for i in (6..12).rev() {
        s.push_str(&format!(" {:>2} |", pos.pits[i]));
    }
    s.push('\n');
    s.push_str("       +----+----+----+----+----+----+\n");
    s.push_str(&format!("S {:>3}  |", pos.stores[0]));
    for i in 0..6 {
        s.push_str(&format!(" {:>2} |", pos.pits[i]));
    }
    s.push('\n');
    s.push_str("       +----+----+----+----+----+----+\n");
    s.push_str("          A    B    C    D    E    F\n");
    s.push_str(&format!("{} to move\n", pos.side));
    s
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
}
