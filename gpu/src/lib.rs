//! The GPU side of tcfuzz (DESIGN §8): litmus programs as real kernels, NVIDIA's tools to
//! assemble and compile them, and runs on a GPU when there is one.
//!
//! - [`emit_ptx`]: a PTX kernel for `sm_90a` (generic proxy, fences, barriers, mbarriers, bulk
//!   copies) or `sm_100a` (plus `tcgen05`), with its [`Layout`] — how many CTAs an instance takes,
//!   where each result lands.
//! - [`Toolchain`]: `ptxas` and `tileiras`, found on `PATH` or in the pip packages.
//! - [`run`]: the kernel on a GPU under the stress harness, final states as a histogram.
//! - [`session`]: one program end to end — prepare, execute, judge against the model, confirm.
//!
//! Depends on `litmus` only: the model's verdict comes in as plain data ([`session::Model`]; the CLI
//! and the worker link the checker and convert).

mod emit;
pub mod layout;
pub mod run;
pub mod session;
pub mod tileir;
mod toolchain;

pub use emit::{ENTRY, EmitError, Kernel, Layout, Output, TX_SCALE, Target, emit_ptx, locations_of};
pub use toolchain::{ToolError, Toolchain};
