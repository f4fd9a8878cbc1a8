//! Runs on this machine's GPU, where it has one (an sm_90 device: an H100 or H200); skipped, with
//! the reason printed, everywhere else (CI has none). `gpu/hardware-check.sh` runs the CLI's GPU
//! commands on such a machine.

mod common;

use common::{MP_REL_ACQ, sm90_device};

use tcfuzz_gpu::run::Rng;
use tcfuzz_gpu::session::{self, Model, Session, StressMode};

/// The PTX model's states of [`MP_REL_ACQ`] (`tcfuzz check --model ptx`): the reader never sees
/// the flag without the data.
fn mp_model() -> Model {
    let s = |a: i64, b: i64| (vec![("P1:r0".to_string(), a), ("P1:r1".to_string(), b), ("x".to_string(), 1), ("flag".to_string(), 1)], 1);
    Model { states: vec![s(0, 0), s(0, 1), s(1, 1)], races: 0, hung_threads: Vec::new(), misuse: Vec::new() }
}

#[test]
fn release_acquire_message_passing_shows_only_allowed_states_under_stress() {
    let Some(device) = sm90_device() else { return };
    let program = tcfuzz_litmus::parse(MP_REL_ACQ).expect("MP parses");
    let prepared = session::prepare("MP", program, mp_model()).expect("MP is emitted and assembled");
    let session = Session::new(&device, &prepared).expect("MP loads");
    for mode in [StressMode::Off, StressMode::On] {
        let observation = session.execute(mode, 200, &mut Rng::new(7)).expect("MP runs");
        let h = &observation.histogram;
        assert_eq!(h.launches, 200);
        assert_eq!(h.finished() + h.unfinished, h.instances, "{mode:?}");
        assert!(h.finished() > 0, "{mode:?}: no instance finished");
        let judgement = session::judge(&prepared.model, h);
        assert!(judgement.forbidden().is_empty(), "{mode:?}: forbidden states {:?}", judgement.outside);
    }
}
