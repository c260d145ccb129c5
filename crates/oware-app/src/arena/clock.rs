//! Players on a clock: the time each has left in one game, charged with what each move
//! took and credited with the increment; a clock that runs out loses the game on time.

use std::time::Duration;

use oware_core::game::Side;

/// A player's time control: (base, increment), ms.
pub(super) type TimeControl = (u64, u64);

/// The clocks of one game, by player ([player (A), opponent]; `None`: no clock).
#[derive(Clone, Copy, Debug)]
pub(super) struct GameClocks {
    /// Each player's time control.
    controls: [Option<TimeControl>; 2],
    /// Time left, ms; below 0 once a clock has run out.
    left: [Option<i64>; 2],
}

impl GameClocks {
    /// The clocks at the start of a game: each player's base time.
    pub(super) fn start(controls: [Option<TimeControl>; 2]) -> Self {
        GameClocks {
            controls,
            left: controls.map(|c| c.map(|(base, _)| base as i64)),
        }
    }

    /// The clocks by side (South's, North's, ms, never below 0) when the player (A) has
    /// `player_side`, if the game is on a clock; a player without one is shown the
    /// other's.
    pub(super) fn by_side(&self, player_side: Side) -> Option<[u64; 2]> {
        let [a, b] = self.left;
        let (a, b) = match (a, b) {
            (None, None) => return None,
            (a, b) => (a.or(b).unwrap_or(0), b.or(a).unwrap_or(0)),
        };
        let (a, b) = (a.max(0) as u64, b.max(0) as u64);
        Some(if player_side == Side::South {
            [a, b]
        } else {
            [b, a]
        })
    }

    /// Takes the time player `p` (0: A, 1: the opponent) `spent` on a move off its clock
    /// and adds its increment; a clock that ran out is a loss on time.
    pub(super) fn charge(&mut self, p: usize, spent: Option<Duration>) -> Result<(), String> {
        let (Some(left), Some((_, inc)), Some(spent)) =
            (self.left[p].as_mut(), self.controls[p], spent)
        else {
            return Ok(());
        };
        *left -= spent.as_millis() as i64;
        if *left < 0 {
            return Err(format!(
                "lost on time ({} ms over, move took {} ms)",
                -*left,
                spent.as_millis()
            ));
        }
        *left += inc as i64;
        Ok(())
    }
}
