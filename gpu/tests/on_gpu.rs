//! Runs on this machine's GPU, where it has one (an sm_90 device: an H100 or H200); skipped, with
//! the reason printed, everywhere else (CI has none). `gpu/hardware-check.sh` runs the CLI's GPU
//! commands on such a machine.

use tcfuzz_gpu::Target;
use tcfuzz_gpu::run::{Device, Rng};
use tcfuzz_gpu::session::{self, Model, Session, StressMode};

fn device() -> Option<Device> {
    match Device::open() {
        Ok(d) if d.info.runs(Target::Sm90a) => Some(d),
        Ok(d) => {
            println!("skipped: the {} ({}) is not an sm_90 device", d.info.name, d.info.arch);
            None
        }
        Err(e) => {
            println!("skipped: {e}");
            None
        }
    }
}

const MP_REL_ACQ: &str = "PTX MP\n{ x = 0; flag = 0; P1:r0 = 0; P1:r1 = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, flag ;\n st.release.gpu flag, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

/// The PTX model's states of [`MP_REL_ACQ`] (`tcfuzz check --model ptx`): the reader never sees
/// the flag without the data.
fn mp_model() -> Model {
    let s = |a: i64, b: i64| (vec![("P1:r0".to_string(), a), ("P1:r1".to_string(), b), ("x".to_string(), 1), ("flag".to_string(), 1)], 1);
    Model { states: vec![s(0, 0), s(0, 1), s(1, 1)], races: 0, hung_threads: Vec::new() }
}

#[test]
fn release_acquire_message_passing_shows_only_allowed_states_under_stress() {
    let Some(device) = device() else { return };
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
