//! `oware replay`: validates game records, one JSON line per position.
//!
//! A line may be a study's (docs/notation.md, "Study files"): its main line is replayed,
//! its variations, comments, drawings and move marks are left out.
//!
//! Games are numbered from 1 in input order (blank and comment-only lines do not count);
//! `ply` is the number of moves played, so the start is ply 0 and the k-th move leads to
//! ply k. An error line names the game and the ply the bad move would have made (0 for a
//! bad position). Every game is replayed; the exit code is 1 if any had an error.

use std::io::{BufRead, BufWriter, Write};

use anyhow::Result;
use serde_json::{Value, json};

use oware_core::game::{Game, Outcome, Position, RuleSet, mask_letters};

/// Arguments of `oware replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
}

/// The JSON of a finished game's result.
pub fn result_json(o: &Outcome) -> Value {
    let s = o.stores();
    let num = |x: f32| {
        if x.fract() == 0.0 {
            json!(x as i64)
        } else {
            json!(x)
        }
    };
    json!({"winner": o.winner_text(), "stores": [num(s[0]), num(s[1])], "reason": o.reason.name()})
}

fn state_json(i: usize, g: &Game) -> Value {
    let p = g.position();
    json!({
        "game": i,
        "ply": g.moves().len(),
        "fen": p.to_string(),
        "legal": mask_letters(p.side, g.legal_moves()),
        "over": g.is_over(),
        "result": g.outcome().as_ref().map(result_json),
    })
}

/// A line without its comment: the text from a `#` on, unless the `#` is inside a
/// study's `{comment}` (where `\}` and `\\` are a brace and a backslash).
fn strip_comment(line: &str) -> &str {
    let mut in_comment = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if std::mem::take(&mut escaped) {
            continue;
        }
        match c {
            '\\' if in_comment => escaped = true,
            '{' => in_comment = true,
            '}' => in_comment = false,
            '#' if !in_comment => return &line[..i],
            _ => {}
        }
    }
    line
}

/// The main line of a line's moves: a study's variations `( … )`, comments `{ … }`,
/// drawings `[ … ]` and move marks (`!`, `?`, `!?`, …) left out. Plain moves come back
/// as they are.
fn main_line(moves: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut chars = moves.chars();
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or("a ')' that closes no variation")?
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                let mut closed = false;
                while let Some(x) = chars.next() {
                    if x == '\\' && c == '{' {
                        chars.next();
                    } else if x == close {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return Err(format!("a '{c}' without its '{close}'"));
                }
            }
            '!' | '?' => {}
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    if depth > 0 {
        return Err("a variation '(' without its ')'".into());
    }
    Ok(out)
}

/// Replays one line, writing a JSON line per position (or an error line). Returns
/// whether the game had an error.
fn replay_line(i: usize, line: &str, rules: RuleSet, w: &mut impl Write) -> std::io::Result<bool> {
    // The position ends at the first `;`, which comes before any comment.
    let head = &line[..line.find('{').unwrap_or(line.len())];
    let (fen, moves) = match head.find(';') {
        Some(k) => (Some(line[..k].trim()), &line[k + 1..]),
        None => (None, line),
    };
    let moves = match main_line(moves) {
        Ok(m) => m,
        Err(e) => {
            writeln!(w, "{}", json!({"game": i, "ply": 0, "error": e}))?;
            return Ok(true);
        }
    };
    let start = match fen {
        Some(f) => match f.parse::<Position>() {
            Ok(p) => p,
            Err(e) => {
                writeln!(
                    w,
                    "{}",
                    json!({"game": i, "ply": 0, "error": e.to_string()})
                )?;
                return Ok(true);
            }
        },
        None => Position::start(),
    };
    let mut g = Game::new(rules, start);
    writeln!(w, "{}", state_json(i, &g))?;
    for c in moves.chars().filter(|c| !c.is_whitespace() && *c != ',') {
        if let Err(e) = g.play_letter(c) {
            let ply = g.moves().len() + 1;
            writeln!(
                w,
                "{}",
                json!({"game": i, "ply": ply, "error": e.to_string()})
            )?;
            return Ok(true);
        }
        writeln!(w, "{}", state_json(i, &g))?;
    }
    Ok(false)
}

pub fn run(a: Args) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    let stdin = std::io::stdin().lock();
    let mut w = BufWriter::new(std::io::stdout().lock());
    let mut i = 0;
    let mut bad = Vec::new();
    for line in stdin.lines() {
        let line = line?;
        // Text from `#` on is a comment (game records carry their result there).
        let t = strip_comment(&line).trim();
        if t.is_empty() {
            continue;
        }
        i += 1;
        if replay_line(i, t, rules, &mut w)? {
            bad.push(i.to_string());
        }
    }
    w.flush()?;
    if !bad.is_empty() {
        anyhow::bail!(
            "{} of {i} games had an error (game {}); see their \"error\" lines",
            bad.len(),
            bad.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_comment_may_hold_an_escaped_brace() {
        let line = r"F {a \} and a \\ # here} f (e) B # the file's comment";
        assert_eq!(strip_comment(line), r"F {a \} and a \\ # here} f (e) B ");
        let main: String = main_line(strip_comment(line))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(main, "FfB");
        assert!(main_line(r"F {open \}").is_err());
    }
}
