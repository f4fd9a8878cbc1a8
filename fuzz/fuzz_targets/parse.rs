//! No input makes the litmus parser panic, and whatever parses prints to text that parses back to
//! the same program.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(program) = tcfuzz_litmus::parse(&text) {
        let printed = tcfuzz_litmus::print(&program);
        let again = tcfuzz_litmus::parse(&printed).expect("printed program parses");
        assert!(again.same_as(&program), "round trip changed the program");
    }
});
