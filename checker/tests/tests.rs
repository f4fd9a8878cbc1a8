//! The checker's integration tests: one binary, a module per area.

#[path = "checker/assume.rs"]
mod assume;
#[path = "checker/bound.rs"]
mod bound;
#[path = "checker/build.rs"]
mod build;
#[path = "checker/conformance.rs"]
mod conformance;
#[path = "checker/examples.rs"]
mod examples;
#[path = "checker/fenced.rs"]
mod fenced;
#[path = "checker/genmc.rs"]
mod genmc;
#[path = "checker/known_gaps.rs"]
mod known_gaps;
#[path = "checker/layers.rs"]
mod layers;
#[path = "checker/property.rs"]
mod property;
#[path = "checker/ptx.rs"]
mod ptx;
#[path = "checker/split.rs"]
mod split;
#[path = "checker/states.rs"]
mod states;
#[path = "checker/sync.rs"]
mod sync;
#[path = "checker/tcgen05.rs"]
mod tcgen05;
#[path = "checker/tileir.rs"]
mod tileir;
#[path = "checker/trace.rs"]
mod trace;
