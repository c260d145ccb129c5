//! Game records: opening lists and accuracy suites (`FEN;moves` lines) and rating-pool
//! lines (one JSON game record each).
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::game::RuleSet;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let rules = RuleSet::abapa();
    let _ = oware_zero::arena::parse_openings(text, rules);
    let _ = oware_zero::arena::accuracy::parse_suite(text, rules);
    for line in text.lines() {
        let _ = oware_zero::arena::pool::parse_line(line);
    }
});
