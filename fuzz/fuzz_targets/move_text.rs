//! Move text: parsed and played from the start under every rule set; a game that
//! accepts the text replays to the same moves from its own move text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::game::{Game, Position, RuleSet};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = oware_zero::game::parse_moves(text);
    for rules in RuleSet::all() {
        let mut g = Game::new(rules, Position::start());
        if g.play_text(text).is_ok() {
            let mut h = Game::new(rules, Position::start());
            h.play_text(&g.move_text()).expect("a game's own move text replays");
            assert_eq!(h.position(), g.position());
        }
    }
});
