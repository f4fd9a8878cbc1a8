//! The minimizer (DESIGN §7): a program and a yes/no predicate in, the smallest program found
//! that still satisfies the predicate out — syzkaller's `prog.Minimize` shape. The predicate is
//! what "keeps the discrepancy" means to the caller (same signature, same race, same verdict);
//! the minimizer knows nothing about checking.
//!
//! Passes, repeated until a whole round changes nothing:
//! 1. delta debugging (ddmin, Zeller & Hildebrandt 2002) over threads, then locations (a location
//!    goes with every instruction that names it), then instructions ([`remove`]);
//! 2. one-step simplifications, each accepted when the predicate still holds ([`simplify`]):
//!    fewer CTAs and clusters, narrower scopes, weaker orderings, smaller constants, registers
//!    replaced by constants, fewer condition terms, fewer register initializations.
//!
//! Every candidate is validated ([`tcfuzz_litmus::validate`]) and must print to text that parses
//! back before the predicate sees it; answers are memoized by a hash of the printed text, and a
//! [`Budget`] of time or predicate calls bounds the search, returning the best program so far.
//!
//! **1-minimal:** when the budget is not exhausted, the last round tried removing each remaining
//! instruction alone and every such program was invalid or failed the predicate.

mod remove;
mod simplify;

use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use tcfuzz_litmus::{Program, StmtKind, Term};

/// How much search the minimizer may spend. Both limits apply when both are set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock time from the start of [`minimize`].
    pub time: Option<Duration>,
    /// Predicate calls (memoized answers and invalid candidates are free).
    pub calls: Option<u64>,
}

impl Budget {
    pub fn time(t: Duration) -> Budget {
        Budget { time: Some(t), calls: None }
    }
    pub fn calls(n: u64) -> Budget {
        Budget { time: None, calls: Some(n) }
    }
}

/// What the size of a program is, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    pub threads: usize,
    pub instructions: usize,
    pub locations: usize,
}

impl Size {
    pub fn of(p: &Program) -> Size {
        Size {
            threads: p.threads.len(),
            instructions: p.threads.iter().flat_map(|t| &t.body).filter(|s| matches!(s.kind, StmtKind::Instr(_))).count(),
            locations: p.locations.len(),
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = |n: usize, one: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {one}s") };
        write!(
            f,
            "{}, {}, {}",
            plural(self.threads, "thread"),
            plural(self.instructions, "instruction"),
            plural(self.locations, "location")
        )
    }
}

/// The result of [`minimize`].
#[derive(Clone, Debug)]
pub struct Minimized {
    /// The smallest program found that satisfies the predicate.
    pub program: Program,
    /// Predicate calls made.
    pub calls: u64,
    /// Candidates answered from the memo.
    pub memo_hits: u64,
    /// Candidates that did not validate (never shown to the predicate).
    pub invalid: u64,
    /// Rounds of all passes.
    pub rounds: u32,
    /// The budget ran out: the program is the best so far, not necessarily 1-minimal.
    pub exhausted: bool,
}

/// Why nothing was minimized.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MinimizeError {
    #[error("the program does not have the property to keep (the predicate is false on it)")]
    PredicateFalse,
    #[error("the program is not valid: {0}")]
    Invalid(String),
}

/// The search state shared by the passes: predicate, memo, budget.
pub(crate) struct Search<'p> {
    pred: &'p mut dyn FnMut(&Program) -> bool,
    memo: HashMap<u64, bool>,
    deadline: Option<Instant>,
    max_calls: Option<u64>,
    calls: u64,
    memo_hits: u64,
    invalid: u64,
    exhausted: bool,
}

impl Search<'_> {
    pub(crate) fn exhausted(&mut self) -> bool {
        if !self.exhausted {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.max_calls.is_some_and(|m| self.calls >= m);
            self.exhausted = late || spent;
        }
        self.exhausted
    }

    /// Whether `candidate` is valid and satisfies the predicate (false once the budget is out).
    pub(crate) fn test(&mut self, candidate: &Program) -> bool {
        let text = tcfuzz_litmus::print(candidate);
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        let key = h.finish();
        if let Some(&answer) = self.memo.get(&key) {
            self.memo_hits += 1;
            return answer;
        }
        if self.exhausted() {
            return false;
        }
        let valid = tcfuzz_litmus::validate(candidate).is_ok() && tcfuzz_litmus::parse(&text).is_ok();
        let answer = if valid {
            self.calls += 1;
            (self.pred)(candidate)
        } else {
            self.invalid += 1;
            false
        };
        self.memo.insert(key, answer);
        answer
    }
}

/// Shrinks `program` while `pred` holds. `pred(program)` must hold to begin with. The result has
/// no header comments or doc strings: they describe the original (`// expect ...` lines).
pub fn minimize(program: &Program, budget: Budget, mut pred: impl FnMut(&Program) -> bool) -> Result<Minimized, MinimizeError> {
    let start = Instant::now();
    if let Err(d) = tcfuzz_litmus::validate(program) {
        return Err(MinimizeError::Invalid(d.0.first().map_or_else(String::new, |d| d.to_string())));
    }
    let mut search = Search {
        pred: &mut pred,
        memo: HashMap::new(),
        deadline: budget.time.map(|t| start + t),
        max_calls: budget.calls,
        calls: 0,
        memo_hits: 0,
        invalid: 0,
        exhausted: false,
    };
    let mut best = canonical_threads(program);
    best.comments.clear();
    best.docs.clear();
    if !search.test(&best) {
        return Err(MinimizeError::PredicateFalse);
    }
    let mut rounds = 0;
    loop {
        rounds += 1;
        let before = tcfuzz_litmus::print(&best);
        best = remove::threads(&mut search, best);
        best = remove::locations(&mut search, best);
        best = remove::instructions(&mut search, best);
        best = simplify::all(&mut search, best);
        if search.exhausted() || tcfuzz_litmus::print(&best) == before {
            break;
        }
    }
    Ok(Minimized {
        program: best,
        calls: search.calls,
        memo_hits: search.memo_hits,
        invalid: search.invalid,
        rounds,
        exhausted: search.exhausted,
    })
}

/// The program with every condition term naming its thread by its name (`1:r0` → `P1:r0`), so
/// that removing a thread cannot make a number point at another one (`1` falls back to the
/// second thread when there is no `P1`). Same meaning, the litmus validator's resolution.
fn canonical_threads(p: &Program) -> Program {
    let mut out = p.clone();
    let names: Vec<String> = p.threads.iter().map(|t| t.name.clone()).collect();
    let resolve = |thread: &str| -> Option<String> {
        if names.iter().any(|n| n == thread) {
            return None;
        }
        let k: usize = thread.parse().ok()?;
        let by_name = format!("P{k}");
        if names.contains(&by_name) { Some(by_name) } else { names.get(k).cloned() }
    };
    remove::map_terms(&mut out.condition.prop, &mut |t| {
        if let Term::Reg { thread, .. } = t
            && let Some(name) = resolve(thread)
        {
            *thread = name;
        }
    });
    out
}
