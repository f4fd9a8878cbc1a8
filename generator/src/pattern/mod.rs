//! Pattern programs: correct by construction, composed only of the synchronization patterns the
//! specs call canonical, and their mutants — the same program with exactly one synchronization
//! step removed or weakened (DESIGN §4 `pattern-broken`, `sync-redundant`).
//!
//! The patterns ([`Pattern`]), each with the section that makes it correct:
//! - [`Pattern::MessagePassing`] — PTX ISA §8.8 release/acquire patterns: a payload, then a
//!   release (a `st.release`, a `red.release`, or `fence.acq_rel` before a relaxed store) that
//!   an acquire (or a relaxed load and `fence.acq_rel`) observes, at the narrowest scope that
//!   holds both threads (§8.5), or a wider one;
//! - [`Pattern::MbarrierHandoff`] — PTX ISA §9.7.13.15: `mbarrier.arrive.release` by one or two
//!   producers, an `acquire` `try_wait` loop in the consumer;
//! - [`Pattern::CtaBarrier`] / [`Pattern::ClusterBarrier`] — `bar.sync` (PTX ISA §9.7.13.1) and
//!   `barrier.cluster.arrive` (release) / `wait` (acquire) (§9.7.13.2) between every thread that
//!   writes and reads;
//! - [`Pattern::Tcgen05Pipeline`] — PTX ISA §9.7.16.6.4 patterns 1–5 composed: several
//!   pipelined `mma` on one accumulator (1), optionally fed by a `cp` in the same thread (1) or
//!   another (3), completed by `commit` and observed in the same thread (2) or another (4, or the
//!   composed example of 4), an anti-dependent `st` after `wait::ld` (5), and a generic store to
//!   an operand made visible with `fence.proxy.async` (§9.7.16.6.5);
//! - [`Pattern::TmaRing`] — the producer/consumer ring of bulk copies: a `full` and an `empty`
//!   mbarrier per stage, `arrive.expect_tx` + `cp.async.bulk ... complete_tx` (PTX ISA
//!   §9.7.9.25.4.1, §9.7.13.15), and phases reused when there are more iterations than stages
//!   (`try_wait.parity` alternates);
//! - [`Pattern::CtaPair`] — `cta_group::2` (§9.7.16.5): a CTA-pair `alloc`, an `mma` and a
//!   `commit` multicast to both CTAs' mbarriers, and the Table 47 cluster barrier before the
//!   pair's `dealloc`;
//! - [`Pattern::TileMessagePassing`] — Tile IR spec §7.12.3: payload stores token-ordered
//!   before a release, payload loads token-ordered after the acquire;
//! - [`Pattern::ProxyMessagePassing`] — PTX ISA §8.6 and §9.7.13.4: message passing where the
//!   payload is written and read through different proxies or virtual addresses (surface,
//!   texture, constant and generic aliases), with the `fence.proxy` each crossing needs.
//!
//! A pattern marks the steps it needs ([`SyncStep`]): removing one, or weakening it where a
//! weaker form exists (an ordering, a scope, a token dependency), must give a race, a hang, a
//! misuse or a condition that stops being Never. The tests check every pattern race-, hang- and
//! misuse-free (and Never where the spec decides the condition) under the checker, and every
//! mutant broken — a mutant the checker still accepts is a `sync-redundant` discrepancy.

mod barriers;
mod mp;
mod proxy;
mod sketch;
mod tcgen05;
mod tileir;
mod tma;

use std::fmt;
use std::str::FromStr;

use arbitrary::Unstructured;
use tcfuzz_litmus::Program;

use crate::choose;
pub(crate) use sketch::Sketch;
use sketch::{Edit, thread_name};

/// A canonical pattern the pattern family composes programs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    MessagePassing,
    MbarrierHandoff,
    CtaBarrier,
    ClusterBarrier,
    Tcgen05Pipeline,
    TmaRing,
    CtaPair,
    TileMessagePassing,
    ProxyMessagePassing,
}

impl Pattern {
    pub const ALL: [Pattern; 9] = [
        Pattern::MessagePassing,
        Pattern::MbarrierHandoff,
        Pattern::CtaBarrier,
        Pattern::ClusterBarrier,
        Pattern::Tcgen05Pipeline,
        Pattern::TmaRing,
        Pattern::CtaPair,
        Pattern::TileMessagePassing,
        Pattern::ProxyMessagePassing,
    ];

    /// The pattern's name in configurations and signatures.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::MessagePassing => "message-passing",
            Pattern::MbarrierHandoff => "mbarrier-handoff",
            Pattern::CtaBarrier => "cta-barrier",
            Pattern::ClusterBarrier => "cluster-barrier",
            Pattern::Tcgen05Pipeline => "tcgen05-pipeline",
            Pattern::TmaRing => "tma-ring",
            Pattern::CtaPair => "cta-pair",
            Pattern::TileMessagePassing => "tile-message-passing",
            Pattern::ProxyMessagePassing => "proxy-message-passing",
        }
    }

    /// Whether its programs are Tile IR programs (checked under `tileir`; the others under `ptx`).
    pub fn is_tile_ir(self) -> bool {
        self == Pattern::TileMessagePassing
    }

    fn sketch(self, u: &mut Unstructured<'_>) -> arbitrary::Result<(Sketch, Expect)> {
        match self {
            Pattern::MessagePassing => mp::message_passing(u),
            Pattern::MbarrierHandoff => mp::mbarrier_handoff(u),
            Pattern::CtaBarrier => barriers::cta_barrier(u),
            Pattern::ClusterBarrier => barriers::cluster_barrier(u),
            Pattern::Tcgen05Pipeline => tcgen05::pipeline(u),
            Pattern::TmaRing => tma::ring(u),
            Pattern::CtaPair => tcgen05::cta_pair(u),
            Pattern::TileMessagePassing => tileir::message_passing(u),
            Pattern::ProxyMessagePassing => proxy::message_passing(u),
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of [`Pattern::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown pattern `{0}`; known: message-passing, mbarrier-handoff, cta-barrier, cluster-barrier, tcgen05-pipeline, tma-ring, cta-pair, tile-message-passing, proxy-message-passing"
)]
pub struct UnknownPattern(pub String);

impl FromStr for Pattern {
    type Err = UnknownPattern;
    fn from_str(s: &str) -> Result<Pattern, UnknownPattern> {
        Pattern::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownPattern(s.to_string()))
    }
}

/// What the spec says about a pattern program beyond "no race, no hang, no misuse".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The condition (a stale or torn read) is never satisfied. False where the spec gives no
    /// value to compare with (the result of an `mma`).
    pub never: bool,
}

/// A synchronization step of a pattern program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncStep {
    pub thread: String,
    pub role: &'static str,
    pub text: String,
    /// What weakening changes, and the weaker text, where the step can be weakened.
    pub weaker: Option<(&'static str, String)>,
    /// Whether removing the step is a mutation (else it can only be weakened).
    pub removable: bool,
}

/// How a mutant differs from its pattern program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Removed,
    /// `how` says what changed (`acquire→relaxed`, `token dependency dropped`).
    Weakened {
        how: &'static str,
        to: String,
    },
}

/// The one change that made a mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    pub pattern: Pattern,
    pub role: &'static str,
    pub thread: String,
    /// The step as the pattern has it.
    pub text: String,
    pub change: Change,
}

impl Mutation {
    /// `removed` or `weakened (acquire→relaxed)`: the change without positions or names, for
    /// signatures.
    pub fn kind(&self) -> String {
        match &self.change {
            Change::Removed => "removed".to_string(),
            Change::Weakened { how, .. } => format!("weakened ({how})"),
        }
    }
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.change {
            Change::Removed => write!(f, "{}: removed `{}` ({}) from {}", self.pattern, self.text, self.role, self.thread),
            Change::Weakened { how, to } => {
                write!(f, "{}: weakened `{}` ({}) in {} to `{to}` ({how})", self.pattern, self.text, self.role, self.thread)
            }
        }
    }
}

/// A pattern program with what the spec says about it and the steps a mutant may change.
#[derive(Clone, Debug)]
pub struct PatternProgram {
    pub pattern: Pattern,
    pub program: Program,
    pub expect: Expect,
    sketch: Sketch,
}

impl PatternProgram {
    /// The synchronization steps, in thread then line order.
    pub fn steps(&self) -> Vec<SyncStep> {
        self.sketch
            .steps()
            .into_iter()
            .map(|(t, i)| {
                let line = &self.sketch.threads[t].lines[i];
                let spec = line.step.as_ref().expect("[tcfuzz internal bug] steps() lists step lines only");
                SyncStep {
                    thread: thread_name(t),
                    role: spec.role,
                    text: line.text.clone(),
                    weaker: spec.weaken.clone(),
                    removable: spec.removable,
                }
            })
            .collect()
    }

    /// The mutant with step `index` (of [`PatternProgram::steps`]) removed, or weakened if
    /// `weaken` (or the step cannot be removed) and the step has a weaker form. `None` if there
    /// is no such step.
    pub fn mutant(&self, index: usize, weaken: bool) -> Option<(Program, Mutation)> {
        let &(t, i) = self.sketch.steps().get(index)?;
        let line = &self.sketch.threads[t].lines[i];
        let spec = line.step.as_ref()?;
        let (edit, change) = match (&spec.weaken, weaken || !spec.removable) {
            (Some((how, to)), true) => (Edit::Weaken, Change::Weakened { how, to: to.clone() }),
            _ => (Edit::Remove, Change::Removed),
        };
        let text = self.sketch.render(Some(((t, i), edit)));
        let program = parse_pattern(&text, self.pattern);
        let mutation = Mutation { pattern: self.pattern, role: spec.role, thread: thread_name(t), text: line.text.clone(), change };
        Some((program, mutation))
    }

    /// The program as litmus text.
    pub fn text(&self) -> String {
        self.sketch.render(None)
    }
}

/// A program of `pattern` built from the choices in `u`.
pub fn pattern_program(pattern: Pattern, u: &mut Unstructured<'_>) -> arbitrary::Result<PatternProgram> {
    let (sketch, expect) = pattern.sketch(u)?;
    let program = parse_pattern(&sketch.render(None), pattern);
    Ok(PatternProgram { pattern, program, expect, sketch })
}

/// A mutant of a program of `pattern`: one of its steps, removed or (half of the time, where it
/// can be) weakened.
pub fn mutant_program(pattern: Pattern, u: &mut Unstructured<'_>) -> arbitrary::Result<(PatternProgram, Program, Mutation)> {
    let original = pattern_program(pattern, u)?;
    let steps = original.steps();
    let index = choose::index(u, steps.len())?;
    let weaken = steps.get(index).is_some_and(|s| s.weaker.is_some()) && (!steps[index].removable || choose::chance(u, 50)?);
    let (program, mutation) = original.mutant(index, weaken).ok_or(arbitrary::Error::EmptyChoose)?;
    Ok((original, program, mutation))
}

/// Patterns are written by this module: text that does not parse is a bug here, never input.
fn parse_pattern(text: &str, pattern: Pattern) -> Program {
    match tcfuzz_litmus::parse(text) {
        Ok(p) => p,
        Err(d) => {
            panic!("[tcfuzz internal bug] the {pattern} pattern wrote a program that does not parse:\n{}\n{text}", d.render("pattern"))
        }
    }
}
