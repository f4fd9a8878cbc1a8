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

/// The Tile IR model's states of `examples/tileir/MP+rel+acq-tokens.litmus` (`tcfuzz check
/// --model tileir`): a reader that sees the flag sees both payload elements.
fn tile_mp_model() -> Model {
    let mut states = Vec::new();
    for (rf, rx0, rx1) in [(0, 0, 0), (0, 0, 2), (0, 1, 0), (0, 1, 2), (1, 1, 2)] {
        let s = [("P1:rf[0]", rf), ("P1:rx[0]", rx0), ("P1:rx[1]", rx1), ("x[0]", 1), ("x[1]", 2), ("f[0]", 1)];
        states.push((s.iter().map(|(n, v)| (n.to_string(), *v)).collect(), 1));
    }
    Model { states, races: 0, hung_threads: Vec::new(), misuse: Vec::new() }
}

#[test]
fn tile_ir_message_passing_compiled_by_tileiras_shows_only_allowed_states() {
    let Some(device) = sm90_device() else { return };
    let tc = tcfuzz_gpu::Toolchain::discover();
    if tc.tileiras.is_none() || tc.ptxas.is_none() {
        println!("skipped: tileiras / ptxas not found (bash .ci/setup-nvidia installs them)");
        return;
    }
    let program = tcfuzz_litmus::parse(include_str!("../../examples/tileir/MP+rel+acq-tokens.litmus")).expect("MP parses");
    let prepared = session::prepare("MP", program, tile_mp_model()).expect("MP compiles");
    let session = Session::new(&device, &prepared).expect("MP loads");
    assert!(!session.full_stress());
    // Plain, then with stressing tile blocks and shuffled roles, then tuned.
    for mode in [StressMode::Off, StressMode::On, StressMode::Tune] {
        let observation = session.execute(mode, 100, &mut Rng::new(7)).expect("MP runs");
        let h = &observation.histogram;
        assert_eq!(h.launches, 100, "{mode:?}");
        assert_eq!(h.finished(), h.instances, "{mode:?}");
        match mode {
            StressMode::Off => assert_eq!(observation.params.stress_groups, 0),
            StressMode::On => assert!(observation.params.stress_groups > 0, "{:?}", observation.params),
            StressMode::Tune | StressMode::Fixed(_) => {}
        }
        println!("{mode:?}: {} instances: {:?}", h.instances, h.states);
        let judgement = session::judge(&prepared.model, h);
        assert_eq!(judgement.comparison.names, ["P1:rf[0]", "P1:rx[0]", "P1:rx[1]", "x[0]", "x[1]", "f[0]"]);
        assert!(judgement.forbidden().is_empty(), "{mode:?}: forbidden states {:?}", judgement.outside);
    }
}

/// `examples/mbarrier/cluster-barrier-split-phase-handshake.litmus`: P1 passes its cluster-barrier
/// wait on P0's arrive alone, then releases P0's mbarrier wait. Every instance finishes only where
/// the arrive and the wait are split on the GPU too: with one CTA per cluster, a kernel not
/// declared a cluster kernel left all 10,560 instances of a run at the loop cap on an H200.
#[test]
fn a_one_cta_cluster_barrier_is_split_phase_on_the_gpu() {
    let Some(device) = sm90_device() else { return };
    let program = tcfuzz_litmus::parse(include_str!("../../examples/mbarrier/cluster-barrier-split-phase-handshake.litmus"))
        .expect("the handshake parses");
    let model = Model { states: vec![(vec![("P0:p0".to_string(), 1)], 2)], races: 0, hung_threads: Vec::new(), misuse: Vec::new() };
    let prepared = session::prepare("handshake", program, model).expect("the handshake is emitted and assembled");
    let session = Session::new(&device, &prepared).expect("the handshake loads");
    let observation = session.execute(StressMode::Off, 20, &mut Rng::new(7)).expect("the handshake runs");
    let h = &observation.histogram;
    assert_eq!(h.unfinished, 0, "instances stalled: {:?}", h.states);
    assert_eq!(h.finished(), h.instances);
    let judgement = session::judge(&prepared.model, h);
    assert!(judgement.forbidden().is_empty(), "forbidden states {:?}", judgement.outside);
}
