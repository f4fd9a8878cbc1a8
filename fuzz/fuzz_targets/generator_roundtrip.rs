//! Whatever bytes the fuzzer gives, the random-program generator builds a valid program of some
//! family, and that program prints to text that parses back to it.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use tcfuzz_generator::random::{Family, from_unstructured};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(family) = u.arbitrary::<Family>() else { return };
    let program = from_unstructured(family, &mut u).expect("the generators accept any bytes");
    if let Err(e) = tcfuzz_litmus::validate(&program) {
        panic!("the {family} generator made an invalid program:\n{}", e.render("generated"));
    }
    let printed = tcfuzz_litmus::print(&program);
    let again =
        tcfuzz_litmus::parse(&printed).unwrap_or_else(|e| panic!("printed program does not parse:\n{}\n{printed}", e.render("printed")));
    assert!(again.same_as(&program), "round trip changed the program:\n{printed}");
});
