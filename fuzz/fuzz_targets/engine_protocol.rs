//! The engine protocol: any bytes fed to the server loop. `go` lines are parsed as they
//! are, then searched at depth 1 (a fuzzed `go depth 40` would only measure patience).
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::engine::{AlphaBetaSearcher, parse_go, parse_position, serve};
use oware_zero::game::RuleSet;

fuzz_target!(|data: &[u8]| {
    let rules = RuleSet::abapa();
    let mut input = Vec::with_capacity(data.len());
    for line in data.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.first() {
            Some(&"go") => {
                let _ = parse_go(&words[1..]);
                input.extend_from_slice(b"go depth 1\n");
                continue;
            }
            Some(&"position") => {
                let _ = parse_position(rules, &words[1..]);
            }
            _ => {}
        }
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    let searcher = AlphaBetaSearcher::new(rules, 1);
    serve(searcher, rules, &input[..], std::io::sink()).expect("reading from memory");
});
