//! What the GPU-only tests share.

use tcfuzz_gpu::Target;
use tcfuzz_gpu::run::Device;

/// This machine's GPU where it is an sm_90 device (an H100 or H200), else `None` with the reason
/// printed: the test is then skipped.
pub fn sm90_device() -> Option<Device> {
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

/// Message passing with release/acquire at gpu scope across two CTAs.
pub const MP_REL_ACQ: &str = "PTX MP\n{ x = 0; flag = 0; P1:r0 = 0; P1:r1 = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, flag ;\n st.release.gpu flag, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
