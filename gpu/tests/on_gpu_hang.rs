//! A hung kernel on this machine's GPU, where it has one (an sm_90 device); skipped, with the
//! reason printed, everywhere else. A test binary of its own: the hung kernel keeps the
//! process's (primary) context busy until the process exits, so no other GPU test can share it.

mod common;

use common::{MP_REL_ACQ, sm90_device};
use tcfuzz_gpu::run::{Rng, RunError, StressParams};
use tcfuzz_gpu::{Target, emit_ptx};

/// A kernel that never ends: the launch is reported as hung after its deadline, and giving up
/// the kernel, its module and the device returns at once (the context is left to the process's
/// exit; waiting for it would hang a fuzzing worker for good).
#[test]
fn a_hung_kernel_is_reported_and_given_up_without_waiting_for_it() {
    let Some(device) = sm90_device() else { return };
    let program = tcfuzz_litmus::parse(MP_REL_ACQ).expect("MP parses");
    let mut kernel = emit_ptx(&program, Target::Sm90a).expect("MP is emitted");
    // Spin on a volatile load of the control block's first word (the instance count, never all
    // ones) before the final barrier.
    kernel.ptx = kernel.ptx.replacen(
        "$FINISH:\n",
        "$FINISH:\n$HANG:\n    ld.volatile.global.u32 %w1, [%ctl];\n    setp.ne.u32 %p1, %w1, 4294967295;\n    @%p1 bra.uni $HANG;\n",
        1,
    );
    assert!(kernel.ptx.contains("$HANG:"), "the kernel has no $FINISH label:\n{}", kernel.ptx);
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let loaded = device.load(&kernel, None).expect("the spinning kernel loads");
        let result = loaded.run(&StressParams::plain(1), 1, &mut Rng::new(1), None);
        drop(loaded);
        drop(device);
        let _ = done_tx.send(matches!(result, Err(RunError::Hang(_))));
    });
    let deadline = tcfuzz_gpu::run::LAUNCH_DEADLINE + std::time::Duration::from_secs(20);
    match done_rx.recv_timeout(deadline) {
        Ok(hung) => assert!(hung, "the spinning kernel was not reported as hung"),
        Err(_) => panic!("the hung kernel was not given up within {deadline:?}"),
    }
}
