//! Training configs: the first line holds `--set` overrides separated by `|`, the rest
//! is the TOML file. A config that loads prints to TOML that loads to the same config.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::train::config::Config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (first, toml) = text.split_once('\n').unwrap_or(("", text));
    let sets: Vec<String> = first
        .split('|')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if let Ok(c) = Config::from_toml(toml, &sets) {
        let again = Config::from_toml(&c.to_toml(), &[]).expect("a printed config loads");
        assert_eq!(again.to_toml(), c.to_toml());
    }
});
