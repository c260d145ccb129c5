//! The position: 12 pits, 2 stores, the side to move; sowing, capturing, legal moves.
//!
//! Pit indices run in sowing order: 0..5 are South's pits `A`..`F`, 6..11 North's
//! `a`..`f`. A move relative to the mover is an *action* 0..5 (his `A`/`a` = 0).

use std::fmt;

use super::rules::{GrandSlam, Leftover, RuleSet, TOTAL_SEEDS};

/// A player. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Side {
    /// Player 0, owns pits 0..5 (`A`..`F`), moves first.
    South = 0,
    /// Player 1, owns pits 6..11 (`a`..`f`).
    North = 1,
}

impl Side {
    /// The other player.
    #[inline]
    pub fn opponent(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The index of this side's first pit (0 or 6).
    #[inline]
    pub fn base(self) -> usize {
        self as usize * 6
    }

    /// `S` or `N`, as in the position text.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// The side from its index (0 South, anything else North).
    #[inline]
    pub fn from_index(i: usize) -> Side {
        if i == 0 { Side::South } else { Side::North }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::South => "South",
            Side::North => "North",
        })
    }
}

/// The letter naming `action` (0..5) of `side`: `A`..`F` for South, `a`..`f` for North.
#[inline]
pub fn move_letter(side: Side, action: usize) -> char {
    debug_assert!(action < 6);
    let base = if side == Side::South { b'A' } else { b'a' };
    (base + action as u8) as char
}

/// The side and action a move letter names, or `None` if it is no move letter.
pub fn parse_move_letter(c: char) -> Option<(Side, usize)> {
    match c {
        'A'..='F' => Some((Side::South, c as usize - 'A' as usize)),
        'a'..='f' => Some((Side::North, c as usize - 'a' as usize)),
        _ => None,
    }
}

/// What one move did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveInfo {
    /// Seeds taken into the mover's store by the capture.
    pub captured: u8,
    /// The move's capture would have taken every seed of the opponent's row.
    pub grand_slam: bool,
    /// A grand slam that captured nothing because of the rules (`abapa`).
    pub grand_slam_refused: bool,
    /// The pit the last seed landed in.
    pub last_pit: u8,
    /// The opponent could not move, so the mover moves again (`ouril`).
    pub moves_again: bool,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// A store reached the rule set's threshold (25 with 48 seeds).
    Threshold,
    /// Both stores hold half the seeds (24–24).
    EvenSplit,
    /// The opponent's row is empty and no move of the mover reaches it.
    CannotFeed,
    /// The mover has no seeds (or the board is empty).
    NoSeeds,
    /// Every legal move would be a grand slam (`awari`).
    OnlyGrandSlams,
    /// A position recurred since the last capture.
    Repetition,
}

impl EndReason {
    /// A short name for JSON and logs.
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Threshold => "store-threshold",
            EndReason::EvenSplit => "even-split",
            EndReason::CannotFeed => "cannot-feed",
            EndReason::NoSeeds => "no-seeds",
            EndReason::OnlyGrandSlams => "only-grand-slams",
            EndReason::Repetition => "repetition",
        }
    }
}

/// How a finished game ended: the reason and the final score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Why the game ended.
    pub reason: EndReason,
    /// Final stores in half seeds (South, North), after any seeds left were shared out.
    pub halves: [u16; 2],
}

impl Outcome {
    /// Final stores in seeds (South, North); halves appear only with "split evenly".
    pub fn stores(&self) -> [f32; 2] {
        [self.halves[0] as f32 / 2.0, self.halves[1] as f32 / 2.0]
    }

    /// The player with more seeds, or `None` for a draw.
    pub fn winner(&self) -> Option<Side> {
        use std::cmp::Ordering::*;
        match self.halves[0].cmp(&self.halves[1]) {
            Greater => Some(Side::South),
            Less => Some(Side::North),
            Equal => None,
        }
    }

    /// +1 if `side` won, 0 for a draw, −1 if it lost.
    pub fn score_for(&self, side: Side) -> i8 {
        match self.winner() {
            None => 0,
            Some(w) if w == side => 1,
            Some(_) => -1,
        }
    }

    /// Final store difference (own − opponent) from `side`'s view, in seeds.
    pub fn store_diff_for(&self, side: Side) -> f32 {
        let s = self.stores();
        s[side.index()] - s[side.opponent().index()]
    }

    /// `S`, `N` or `draw`.
    pub fn winner_text(&self) -> &'static str {
        match self.winner() {
            Some(Side::South) => "S",
            Some(Side::North) => "N",
            None => "draw",
        }
    }
}

/// A position: pits, stores and the side to move. 16 bytes, `Copy`.
///
/// `repr(C)` puts the pits at offset 0, so that reading them as one word after the
/// position was copied (two 8-byte stores) is forwarded from those stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Position {
    /// Seeds in pits 0..11 (sowing order; 0..5 South's, 6..11 North's).
    pub pits: [u8; 12],
    /// Captured seeds (South, North).
    pub stores: [u8; 2],
    /// The player to move.
    pub side: Side,
}

/// `SOW[p][k]`: one seed in each of the `k` pits after pit `p` (k < 11, pit `p` skipped),
/// as 12 little-endian bytes (byte `i` = pit `i`) of a `u128`, so that sowing is one
/// integer addition: no pit ever exceeds 48 seeds, so no byte carries into the next.
static SOW: [[u128; 11]; 12] = build_sow_table();
/// `LAP[p]`: one seed in every pit but `p`, packed as `SOW`.
static LAP: [u128; 12] = build_lap_table();

const fn build_sow_table() -> [[u128; 11]; 12] {
    let mut t = [[0u128; 11]; 12];
    let mut p = 0;
    while p < 12 {
        let mut k = 0;
        while k < 11 {
            let mut j = 1;
            while j <= k {
                t[p][k] |= 1u128 << (8 * ((p + j) % 12));
                j += 1;
            }
            k += 1;
        }
        p += 1;
    }
    t
}

const fn build_lap_table() -> [u128; 12] {
    let mut t = [0u128; 12];
    let mut p = 0;
    while p < 12 {
        let mut i = 0;
        while i < 12 {
            if i != p {
                t[p] |= 1u128 << (8 * i);
            }
            i += 1;
        }
        p += 1;
    }
    t
}

/// Bit 7 of byte `a` (a < 8) of `x`, every other bit 0, to bit `a` of the result.
/// The multiplier's bits 7j put bit 8a at 8a + 7j; only j = 8 − a reaches 56 + a, and all
/// the products fall on distinct bits, so nothing carries.
#[inline(always)]
fn gather_high_bits(x: u64) -> u8 {
    (((x >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56) as u8
}

/// `BYTE_MASK[m]`: byte `a` is `0xFF` iff bit `a` of the 6-bit `m` is set.
static BYTE_MASK: [u64; 64] = build_byte_mask();

const fn build_byte_mask() -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut m = 0;
    while m < 64 {
        let mut a = 0;
        while a < 6 {
            if m & (1 << a) != 0 {
                t[m] |= 0xFF << (8 * a);
            }
            a += 1;
        }
        m += 1;
    }
    t
}

/// The 12 pits as the low 12 bytes of a `u128` (byte `i` = pit `i`).
#[inline(always)]
fn pack_pits(pits: &[u8; 12]) -> u128 {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(pits);
    u128::from_le_bytes(b)
}

/// The inverse of [`pack_pits`].
#[inline(always)]
fn unpack_pits(w: u128) -> [u8; 12] {
    let b = w.to_le_bytes();
    let mut pits = [0u8; 12];
    pits.copy_from_slice(&b[..12]);
    pits
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The start: 4 seeds in every pit, South to move.
    pub const fn start() -> Position {
        Position {
            pits: [super::rules::SEEDS_PER_PIT; 12],
            stores: [0, 0],
            side: Side::South,
        }
    }

    /// The exact identity of the position (pits, stores, side) as one integer,
    /// used for repetition: two positions are equal iff their keys are.
    #[inline]
    pub fn key(&self) -> u128 {
        let mut b = [0u8; 16];
        b[..12].copy_from_slice(&self.pits);
        b[12] = self.stores[0];
        b[13] = self.stores[1];
        b[14] = self.side as u8;
        u128::from_le_bytes(b)
    }

    /// Seeds in `side`'s row.
    #[inline]
    pub fn row_seeds(&self, side: Side) -> u8 {
        let b = side.base();
        self.pits[b..b + 6].iter().sum()
    }

    /// Seeds on the board.
    #[inline]
    pub fn board_seeds(&self) -> u8 {
        self.pits.iter().sum()
    }

    /// The seeds of the mover's pit for `action` (0..5).
    #[inline]
    pub fn seeds_at(&self, action: usize) -> u8 {
        self.pits[self.side.base() + action]
    }

    /// Moves the mover may play as a 6-bit mask (bit `a` = action `a`), before the
    /// rule set's endings are considered: 0 means the game is over.
    ///
    /// Order of the filters: own non-empty pits; then, with `must_feed` and an empty
    /// opponent row, only moves that reach it; then (`awari`) no grand slams; then
    /// (`ouril`) no single-seed pit while a remaining candidate holds more.
    #[inline]
    pub fn legal_moves(&self, rules: RuleSet) -> u8 {
        let mask = self.feeding_moves(rules);
        if mask == 0 {
            return 0;
        }
        let mut mask = mask;
        if rules.grand_slam == GrandSlam::Illegal {
            mask &= !self.grand_slam_moves(rules, mask);
        }
        if rules.single_seed_restriction {
            let b = self.side.base();
            let mut singles = 0u8;
            let mut more = false;
            for a in 0..6 {
                if mask & (1 << a) != 0 {
                    if self.pits[b + a] == 1 {
                        singles |= 1 << a;
                    } else {
                        more = true;
                    }
                }
            }
            if more {
                mask &= !singles;
            }
        }
        mask
    }

    /// Own non-empty pits, restricted to feeding moves when the rules oblige it.
    ///
    /// Branch-free on the six pits at once (SWAR): each row is six bytes of a `u64`, and
    /// adding `0x80 − t` to a byte sets its high bit iff it holds at least `t` seeds
    /// (no byte carries: at most 48 + 0x7F).
    #[inline]
    fn feeding_moves(&self, rules: RuleSet) -> u8 {
        const ROW: u64 = 0xFFFF_FFFF_FFFF;
        const HIGH: u64 = 0x8080_8080_8080;
        /// Byte `a` is `0x80 − 1`: non-empty.
        const NONEMPTY: u64 = 0x7F7F_7F7F_7F7F;
        /// Byte `a` is `0x80 − (6 − a)`: at least 6 − a seeds, so the sowing from action
        /// `a` passes the mover's 5 − a later pits and reaches the opponent's row.
        const FEEDS: u64 = 0x7F7E_7D7C_7B7A;
        let w = pack_pits(&self.pits);
        let s = self.side as u32;
        let own = (w >> (48 * s)) as u64 & ROW;
        let opp = (w >> (48 * (1 - s))) as u64 & ROW;
        let add = if rules.must_feed && opp == 0 {
            FEEDS
        } else {
            NONEMPTY
        };
        gather_high_bits((own + add) & HIGH)
    }

    /// Which of the moves in `mask` would capture the opponent's whole row.
    pub fn grand_slam_moves(&self, rules: RuleSet, mask: u8) -> u8 {
        let mut out = 0u8;
        for a in 0..6 {
            if mask & (1 << a) != 0 {
                let mut p = *self;
                if p.apply_raw(rules, a).grand_slam {
                    out |= 1 << a;
                }
            }
        }
        out
    }

    /// Plays `action` (0..5), which must be legal (checked in debug builds only), and
    /// returns what happened. Game endings are not checked here: see [`Position::status`].
    #[inline]
    pub fn apply(&mut self, rules: RuleSet, action: usize) -> MoveInfo {
        debug_assert!(
            self.legal_moves(rules) & (1 << action) != 0,
            "illegal action {action} in {self}"
        );
        self.apply_raw(rules, action)
    }

    /// Sowing and capturing without any legality check.
    ///
    /// The capture works on the opponent's row as six bytes of a `u64` (SWAR): which
    /// pits hold 2 or 3, the run of them ending at the last pit, their sum and their
    /// removal are a few integer operations instead of a data-dependent loop, whose
    /// branches random play mispredicts.
    #[inline(always)]
    fn apply_raw(&mut self, rules: RuleSet, action: usize) -> MoveInfo {
        const ROW: u64 = 0xFFFF_FFFF_FFFF;
        let me = self.side;
        let from = me.base() + action;
        // In registers: clearing the pit in memory and then reading all pits back as
        // one word would stall on store forwarding.
        let w = pack_pits(&self.pits);
        let seeds = (w >> (8 * from)) as u8;
        let laps = seeds / 11;
        let rem = (seeds % 11) as usize;
        // One addition sows every seed: bytes never carry (at most 48 seeds per pit).
        let add = SOW[from][rem] + laps as u128 * LAP[from];
        let mut w = (w & !(0xFFu128 << (8 * from))) + add;
        let last = if rem == 0 {
            (from + 11) % 12
        } else {
            (from + rem) % 12
        };
        let mut info = MoveInfo {
            last_pit: last as u8,
            ..MoveInfo::default()
        };

        let opp = me.opponent();
        let ob = opp.base();
        let opp_shift = 8 * ob as u32;
        // Branch-free: whether the last seed lands in the opponent's row and whether it
        // captures are coin flips in random play, so branches on them mispredict. With
        // no capture every mask below is 0 and the updates change nothing.
        let j = last.wrapping_sub(ob);
        let row = (w >> opp_shift) as u64 & ROW;
        // Bytes holding 2 or 3 become 0; a byte's high bit is then set iff it is not 0.
        let x = (row & 0xFEFE_FEFE_FEFE) ^ 0x0202_0202_0202;
        let other = gather_high_bits((x + 0x7F7F_7F7F_7F7F) & 0x8080_8080_8080);
        // Pits 0..=j of the row; the run of 2s and 3s ending at j starts just above the
        // highest pit among them holding another count.
        let upto = if j < 6 { (2u32 << j) - 1 } else { 0 };
        let stop = other as u32 & upto;
        let begin = 32 - stop.leading_zeros();
        let chain = upto & !((1u32 << begin) - 1);
        let cmask = BYTE_MASK[chain as usize & 63];
        let taken_row = row & cmask;
        let taken = (taken_row.wrapping_mul(0x0101_0101_0101) >> 40) as u8;
        let whole_row = chain != 0 && taken_row == row;
        let capture = !whole_row
            || !matches!(
                rules.grand_slam,
                GrandSlam::CapturesNothing | GrandSlam::Illegal
            );
        info.grand_slam = whole_row;
        info.grand_slam_refused = !capture;
        let kept = if capture { !cmask } else { u64::MAX };
        w &= !((!kept as u128) << opp_shift);
        info.captured = if capture { taken } else { 0 };
        let mut gain = info.captured;
        if whole_row && capture && rules.grand_slam == GrandSlam::CapturesAllAndEnds {
            // The capturer also takes every seed left (all in his row).
            let mine_shift = 8 * me.base() as u32;
            let mine = (w >> mine_shift) as u64 & ROW;
            gain += (mine.wrapping_mul(0x0101_0101_0101) >> 40) as u8;
            w &= !((ROW as u128) << mine_shift);
        }
        // Both stores as one word: a single-byte store followed by the caller's copy of
        // the whole position would stall on store forwarding. No carry: a store ≤ 48.
        let stores = u16::from_le_bytes(self.stores) + ((gain as u16) << (8 * me.index()));
        self.stores = stores.to_le_bytes();
        self.pits = unpack_pits(w);
        self.side = opp;
        if rules.grand_slam == GrandSlam::CapturesAllMoveAgain
            && self.row_seeds(opp) == 0
            && self.row_seeds(me) != 0
        {
            // The opponent, left without seeds, cannot move: the mover moves again.
            self.side = me;
            info.moves_again = true;
        }
        info
    }

    /// The game's end in this position, if it has ended, for reasons the position alone
    /// decides (everything but repetition, which needs the history: see `Game`).
    pub fn status(&self, rules: RuleSet) -> Option<Outcome> {
        if let Some(t) = rules.win_threshold {
            let [s, n] = self.stores;
            if s >= t || n >= t {
                return Some(Outcome {
                    reason: EndReason::Threshold,
                    halves: [2 * s as u16, 2 * n as u16],
                });
            }
            if 2 * s as u16 == TOTAL_SEEDS as u16 && s == n {
                return Some(Outcome {
                    reason: EndReason::EvenSplit,
                    halves: [2 * s as u16, 2 * n as u16],
                });
            }
        }
        if self.legal_moves(rules) != 0 {
            return None;
        }
        let reason = if self.row_seeds(self.side) == 0 {
            EndReason::NoSeeds
        } else if self.feeding_moves(rules) == 0 {
            EndReason::CannotFeed
        } else {
            EndReason::OnlyGrandSlams
        };
        Some(self.share_out(reason, Leftover::OwnRow))
    }

    /// The outcome when the game ends here for `reason`, the seeds left on the board
    /// going as `leftover` says.
    pub fn share_out(&self, reason: EndReason, leftover: Leftover) -> Outcome {
        let mut halves = [2 * self.stores[0] as u16, 2 * self.stores[1] as u16];
        match leftover {
            Leftover::OwnRow => {
                halves[0] += 2 * self.row_seeds(Side::South) as u16;
                halves[1] += 2 * self.row_seeds(Side::North) as u16;
            }
            Leftover::SplitEvenly => {
                let b = self.board_seeds() as u16;
                halves[0] += b;
                halves[1] += b;
            }
        }
        Outcome { reason, halves }
    }

    /// The position from the mover's point of view: his pits first (0..5), then the
    /// opponent's (6..11), then his store and the opponent's.
    #[inline]
    pub fn relative(&self) -> ([u8; 12], [u8; 2]) {
        match self.side {
            Side::South => (self.pits, self.stores),
            Side::North => {
                let mut p = [0u8; 12];
                p[..6].copy_from_slice(&self.pits[6..]);
                p[6..].copy_from_slice(&self.pits[..6]);
                (p, [self.stores[1], self.stores[0]])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sow_table_skips_origin() {
        let mut p = Position::start();
        p.pits = [0; 12];
        p.pits[0] = 12;
        p.stores = [18, 18];
        let rules = RuleSet::abapa();
        let info = p.apply(rules, 0);
        // 12 seeds: one lap of 11 pits (origin skipped), the 12th lands in pit 1.
        assert_eq!(p.pits[0], 0);
        assert_eq!(p.pits[1], 2);
        assert_eq!(&p.pits[2..], &[1; 10]);
        assert_eq!(info.last_pit, 1);
    }

    #[test]
    fn relative_view_of_north() {
        let mut p = Position::start();
        p.pits = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 3];
        p.stores = [0, 0];
        p.side = Side::North;
        let (r, s) = p.relative();
        assert_eq!(r, [6, 7, 8, 9, 0, 3, 0, 1, 2, 3, 4, 5]);
        assert_eq!(s, [0, 0]);
    }
}
