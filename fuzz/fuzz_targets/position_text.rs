//! Position text (FEN): any string parses to a position or to an error; a parsed
//! position prints to text that parses back to the same position.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::game::Position;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = text.parse::<Position>() {
        let again: Position = p.to_string().parse().expect("printed text parses");
        assert_eq!(again, p);
    }
});
