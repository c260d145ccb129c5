//! Sample chunks: any bytes decode to samples or to an error; decoded samples encode to
//! bytes that decode to the same samples.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::dataio::chunk::{decode_chunk, encode_chunk};

fuzz_target!(|data: &[u8]| {
    if let Ok((rules, samples)) = decode_chunk(data, "fuzz") {
        let again = decode_chunk(&encode_chunk(rules, &samples), "again").expect("round trip");
        assert_eq!(again.1.len(), samples.len());
    }
});
