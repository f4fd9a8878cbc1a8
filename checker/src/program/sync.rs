//! Barriers and mbarriers as *synchronization objects*: a hidden location per object whose value
//! encodes its state, an *arrive* as an atomic read-modify-write of that location and a *wait* as
//! a read of it. The explorer, the oracle and the memory models then need nothing new: the
//! arrival order is the location's coherence order (explored like any other), a wait reads some
//! arrival's write (explored like any other read), and the PTX model's release/acquire patterns,
//! observation order (through the chain of arrive RMWs) and scopes give the memory effect.
//!
//! # Objects and their states (PTX ISA §9.7.13.15 mbarrier, §9.7.13.1 bar/barrier,
//! §9.7.13.3 barrier.cluster)
//! - **mbarrier** (§9.7.13.15.1 "Contents of the mbarrier object"): current phase, expected
//!   arrival count, pending arrival count, tx-count. Declared with `count N` it starts initialised
//!   (phase 0, pending = expected = N, tx 0); declared without `count` it is *uninitialised* until
//!   an `mbarrier.init` (a strong write of the initial state, §9.7.13.15.9); an arrive on an
//!   uninitialised mbarrier is undefined in the ISA — here it changes nothing and no wait on it
//!   ever succeeds (so a program that relies on it hangs).
//!   - `arrive{.expect_tx}` (§9.7.13.15.13/.11): tx-count += txCount (expect-tx), then pending -=
//!     count (default 1); the *phase completes* (§9.7.13.15.4) when pending = 0 and tx-count = 0:
//!     phase + 1, pending = expected, tx-count = 0. The `state` result is the phase of the arrival.
//!   - `expect_tx` (§9.7.13.15.11): tx-count += txCount. `complete_tx` (§9.7.13.15.12, done by
//!     `cp.async.bulk ... .mbarrier::complete_tx::bytes`): tx-count -= txCount, then the same
//!     completion check.
//!   - `test_wait` / `try_wait` (§9.7.13.15.16): with `.parity`, true iff the phase of that parity
//!     has completed, i.e. the current phase's parity differs from the operand; with a `state`
//!     operand, true iff the phase recorded in `state` has completed (current phase parity differs
//!     from the state's: the ISA allows only the current or the immediately preceding phase).
//!     `await` is the blocking loop-until-success.
//! - **Which barriers are objects.** A program that uses `bar.arrive`, a thread count (`bar.sync a,
//!   b` with `b` a positive multiple of the warp size, as §9.7.13.1 requires of a count) or Dat3M's
//!   quorum form lowers every CTA barrier to an object. Otherwise `bar.sync a` and `bar.sync a, b`
//!   stay symmetric barrier events ([`crate::exec::graph`]) met by the litmus threads of the CTA that
//!   execute the same `(a, b)`: the reading of Dat3M's corpus, where threads on different ids
//!   do not wait for each other and a second operand that is not a thread count (`1, 1`, `1, 2`,
//!   a register holding 0) names a different barrier. (The ISA says a `bar.sync a` without count
//!   waits for "all threads in the CTA"; a litmus thread that never executes barrier `a` is read
//!   as a thread outside the barrier's participants.) A register operand is a constant of its
//!   thread (initialised, never written), or — the second operand only — set at run time: the
//!   thread then meets the threads whose barrier names the value it holds when it arrives, and
//!   until it arrives they wait to learn which barrier it chose (`Op::DynBarrier`; supported
//!   where the thread has no other barrier and no branch, so it arrives at most once, and no
//!   other thread has such a barrier with the same first operand). Anything else computed at run
//!   time is unsupported.
//! - **CTA barrier with a thread count** (`bar.sync a, b`, `bar.arrive a, b`; §9.7.13.1): phase and
//!   arrivals so far; an arrival completes the phase when the arrivals reach `b` (the barrier is
//!   then reset for its next use), `bar.sync` then waits until the phase of its own
//!   arrival has completed; `bar.arrive` does not wait. A litmus thread counts as one thread; a
//!   count that is a multiple of the warp size (32) counts warps, a litmus thread standing for its
//!   warp. Without `b` "all threads in the CTA participate": `b` is the number of the CTA's threads.
//! - **Cluster barrier** (`barrier.cluster.arrive` / `.wait`, §9.7.13.3): like a CTA barrier whose
//!   count is every thread of the cluster. "barrier.cluster.wait instruction causes the executing
//!   thread to wait for all non-exited threads of the cluster to perform barrier.cluster.arrive":
//!   a wait succeeds once the phase of the thread's pending arrive (its last, not yet waited on)
//!   has completed, and consumes it; a wait with no pending arrive waits for an arrive of its own
//!   thread, which never comes — it hangs (an H200 agrees: `arrive; wait; wait` never returned).
//!   The hidden register `%cluster.pending` holds the pending arrive's phase + 1, or 0. "Each
//!   thread must arrive at the barrier only once before the barrier completes": an arrive while
//!   the thread's earlier arrive's phase has not completed is misuse (`cluster-arrive-twice`).
//! - **Dat3M's quorum barrier** `bar.cta.sync a, b, c` (its `Barrier/quorum*` tests): a barrier
//!   named by `(a, b)`; a thread arrives, then waits until at least `c` threads have arrived at
//!   it; arrivals are never reset (a late arrival passes at once). This is what Dat3M's expected
//!   verdicts and liveness results for those tests require (quorum1-pass terminates with three
//!   arrivals and quorum 2; quorum2-hang hangs with three arrivals and quorum 4).
//!
//! # Memory effect (PTX ISA §8.8 "Release and acquire patterns", §9.7.13.15.4, §9.7.13.1)
//! - An arrive is an atomic RMW: its read is strong (relaxed), its write strong with release
//!   semantics unless `.relaxed` (mbarrier `.release` is the default; `bar`/`barrier.cluster.arrive`
//!   without `.relaxed` release: the ISA's `bar` text guarantees that when the barrier completes,
//!   the prior memory accesses of a participating thread are performed relative to all the
//!   participating threads).
//! - A wait is a strong read with acquire semantics unless `.relaxed` (mbarrier `.acquire` is the
//!   default; `bar.sync` and `barrier.cluster.wait` acquire).
//! - Scope: mbarrier operations `.cta` unless `.cluster`; CTA barriers `.cta`; cluster barriers
//!   `.cluster`. The scope of an mbarrier operation names "the set of threads that directly
//!   observe the memory synchronizing effect of this operation" (§9.7.13.15): it decides
//!   synchronizes-with, not the object's atomicity. The arrives and waits on one object are
//!   morally strong with each other whatever their scopes ([`crate::program::label::Label::object`]),
//!   so no arrival is lost and none races — a local `.cta` arrive and a remote `.cluster` one
//!   both count (`examples/mbarrier/mbarrier-remote-and-local-arrival-count2.litmus`) — while a
//!   remote `.release.cluster` arrive synchronizes only with a wait whose scope includes its
//!   thread (`mbarrier-remote-arrive-cta-wait-race.litmus`, `…-cluster-wait.litmus`).
//!   A successful acquire wait that reads the write of the arrive that completed the phase is, by
//!   observation order through the arrive RMWs (§8.9.2), synchronized with every release arrive
//!   of that phase; `.relaxed` ones order execution (the wait still cannot succeed early) but no
//!   memory. This is the ISA's release/acquire pattern for mbarriers (§9.7.13.15: the `.release`
//!   arrive-on operation is a release pattern and the `.acquire` test_wait/try_wait that observes
//!   the phase completion an acquire pattern, at the operation's scope).
//!
//! # Hangs
//! A blocking wait whose read fails stops its thread. At the end of an execution such a thread is
//! *hung* if it read the coherence-last write of the object (no later arrival exists, so retrying
//! forever cannot succeed); if it read an older write, the execution is not a real one (the loop
//! would retry and see the newer state) and is dropped — counted neither as complete nor as
//! blocked ([`crate::verdict`]). The explorer reaches the successful version through its ordinary
//! choice of `rf`.
//!
//! # Approximations
//! - `cp.async.bulk` is modelled as a weak read of the source and a weak write of the destination
//!   in the async proxy, the implicit generic-async proxy fence that follows its completion, then
//!   the complete-tx on the mbarrier (a release RMW at cluster scope), in that order. The copy is
//!   asynchronous: program order puts the thread's earlier events before these (it starts at
//!   issue) but none of its later events after them ([`bulk_copy_unordered`]), so a later access
//!   of the copy's source or destination that does not wait on the mbarrier races with it
//!   (`examples/mbarrier/bulk-copy-destination-read-without-wait.litmus`). What is approximated
//!   is the copy as one read and one write of whole locations.
//! - Thread counts are static (the ISA waits for "non-exited" threads; a litmus thread that exits
//!   without arriving is still counted).
//! - Symmetric barriers (above) never hang on a thread that does not execute them.

use std::collections::HashMap;

use tcfuzz_litmus::{Barrier, ClusterId, CtaGroup, Instr, LocationKind, Operand, Program, StmtKind, Tcgen05, Value};

use crate::program::{LocInfo, Opnd};

/// An mbarrier that is declared but not initialised.
pub const MBAR_UNINIT: i64 = -1;

const F: i64 = 0xffff;
const TX_BIAS: i64 = 0x8000;

/// The state of an initialised mbarrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mbar {
    pub phase: i64,
    pub expected: i64,
    pub pending: i64,
    pub tx: i64,
}

impl Mbar {
    pub fn fresh(count: i64) -> Self {
        Mbar { phase: 0, expected: count, pending: count, tx: 0 }
    }
    pub fn pack(self) -> i64 {
        ((self.phase & F) << 48) | ((self.expected & F) << 32) | ((self.pending & F) << 16) | ((self.tx + TX_BIAS) & F)
    }
    pub fn unpack(v: i64) -> Option<Self> {
        (v != MBAR_UNINIT).then(|| Mbar {
            phase: (v >> 48) & F,
            expected: (v >> 32) & F,
            pending: ((v >> 16) & F) as i16 as i64,
            tx: (v & F) - TX_BIAS,
        })
    }
    /// A packed state in words, for final states and witnesses: `phase 1, pending 2 of 2`, with
    /// `, tx N` while transactions are outstanding; `uninitialised` before `mbarrier.init`.
    pub fn describe(v: i64) -> String {
        match Mbar::unpack(v) {
            None => "uninitialised".to_string(),
            Some(m) if m.tx != 0 => format!("phase {}, pending {} of {}, tx {}", m.phase, m.pending, m.expected, m.tx),
            Some(m) => format!("phase {}, pending {} of {}", m.phase, m.pending, m.expected),
        }
    }

    /// §9.7.13.15.4 phase completion.
    fn settle(mut self) -> Self {
        if self.pending <= 0 && self.tx == 0 {
            self.phase = (self.phase + 1) & F;
            self.pending = self.expected;
        }
        self
    }
}

/// What an arrive does to its object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncOp {
    /// mbarrier: tx-count += `tx`, pending -= `count`, then completion (arrive, arrive.expect_tx,
    /// expect_tx with `count` 0).
    MbarArrive { count: Opnd, tx: Opnd },
    /// mbarrier complete-tx of `tx` bytes.
    MbarCompleteTx { tx: Opnd },
    /// A counted barrier (CTA or cluster): the phase completes at `expected` arrivals.
    BarArrive { expected: i64 },
    /// A cluster barrier's arrive: [`SyncOp::BarArrive`] whose result is the phase + 1 (the
    /// thread's `%cluster.pending`).
    ClusterArrive { expected: i64 },
    /// Dat3M's quorum barrier: one more arrival, never reset.
    QuorumArrive,
}

/// When a wait succeeds, given the object's value and the wait's operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitMode {
    /// mbarrier `.parity`: the phase of parity `operand` has completed.
    MbarParity,
    /// mbarrier `state`: the phase recorded by an arrive has completed.
    MbarState,
    /// Counted barrier: the phase `operand` (the thread's arrival phase) has completed.
    BarPhase,
    /// Cluster barrier: `operand` is the thread's `%cluster.pending` (its pending arrive's phase
    /// + 1), that phase has completed; with none pending (0) never.
    ClusterPhase,
    /// Dat3M quorum: at least `q` arrivals.
    Quorum(i64),
}

/// The new value of the object after an arrive that read `old` (`args` are the values of the
/// operands), and the `state` result (the phase of the arrival).
pub fn arrive(op: SyncOp, old: i64, arg: &mut dyn FnMut(Opnd) -> i64) -> (i64, i64) {
    match op {
        SyncOp::MbarArrive { count, tx } => match Mbar::unpack(old) {
            None => (old, 0),
            Some(mut m) => {
                let phase = m.phase;
                m.tx += arg(tx);
                m.pending -= arg(count);
                (m.settle().pack(), phase)
            }
        },
        SyncOp::MbarCompleteTx { tx } => match Mbar::unpack(old) {
            None => (old, 0),
            Some(mut m) => {
                let phase = m.phase;
                m.tx -= arg(tx);
                (m.settle().pack(), phase)
            }
        },
        SyncOp::BarArrive { expected } => {
            let (phase, arrived) = (old >> 32, (old & 0xffff_ffff) + 1);
            if arrived >= expected { ((phase + 1) << 32, phase) } else { ((phase << 32) | arrived, phase) }
        }
        SyncOp::ClusterArrive { expected } => {
            let (new, phase) = arrive(SyncOp::BarArrive { expected }, old, arg);
            (new, phase + 1)
        }
        SyncOp::QuorumArrive => (old + 1, 0),
    }
}

/// What a successful wait writes to its destination register: 1 (a `try_wait`'s predicate), or,
/// for a cluster barrier, 0 — the pending arrive is consumed.
pub fn wait_result(mode: WaitMode, ok: bool) -> i64 {
    match mode {
        WaitMode::ClusterPhase if ok => 0,
        _ => i64::from(ok),
    }
}

/// Whether a cluster-barrier arrive that read `old` comes while the thread's earlier arrive
/// (`pending`, its `%cluster.pending`) is of a phase that has not completed: "each thread must
/// arrive at the barrier only once before the barrier completes" (§9.7.13.3).
pub fn cluster_arrives_twice(old: i64, pending: i64) -> bool {
    pending > 0 && (old >> 32) < pending
}

/// Whether a wait with `operand` succeeds on value `v`.
pub fn wait_succeeds(mode: WaitMode, v: i64, operand: i64) -> bool {
    match mode {
        WaitMode::MbarParity => Mbar::unpack(v).is_some_and(|m| (m.phase & 1) != (operand & 1)),
        WaitMode::MbarState => Mbar::unpack(v).is_some_and(|m| (m.phase ^ operand) & 1 == 1),
        WaitMode::BarPhase => (v >> 32) > operand,
        WaitMode::ClusterPhase => operand > 0 && (v >> 32) >= operand,
        WaitMode::Quorum(q) => v >= q,
    }
}

/// Which object a barrier instruction of some thread uses.
/// What a symmetric barrier id stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum SymKey {
    /// `bar.sync a{, b}` of a CTA group.
    Bar(u32, i64, Option<i64>),
    /// The `cta_group::2` alloc, dealloc or relinquish rendezvous of a CTA pair (PTX ISA
    /// §9.7.16.5, Table 46: each of the three is issued by a warp of each CTA of the pair, "in
    /// order to collectively perform the operation").
    Rendezvous { gpu: u32, pair: u32, op: crate::program::label::TcOp },
    /// The barrier of thread `t`'s `bar.sync a, r` (a register set at run time) when `r` names
    /// no other thread's barrier: `t` alone.
    Solo(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// CTA barrier `id` of a CTA (the thread's group).
    Cta(u32, i64),
    /// Dat3M quorum barrier `(a, b)` of a CTA.
    Quorum(u32, i64, i64),
    Cluster(ClusterId),
}

/// A barrier chosen at run time ([`SyncPlan::dyn_barrier`]): the values that name another
/// thread's barrier with its id, and the thread's own id for every other value.
pub struct DynBarrier {
    pub ids: Vec<(i64, u32)>,
    pub solo: u32,
}

/// The synchronization objects of a program: mbarriers (by name) and barriers (allocated here as
/// hidden locations), with the thread counts barriers need.
#[derive(Clone, Debug, Default)]
pub struct SyncPlan {
    /// Lower every CTA barrier as an object (the program uses a thread count or `bar.arrive`).
    pub counted: bool,
    /// Hidden locations to append, with their keys.
    objects: HashMap<Key, u32>,
    /// Barriers that stay symmetric barrier events ([`crate::exec::graph`]): a dense id per
    /// `(CTA group, id, second operand)`, and per id the threads whose code arrives there.
    symmetric: HashMap<SymKey, u32>,
    members: Vec<u64>,
    /// Per id, the threads that may arrive there through a `bar.sync a, r` with `r` set at run
    /// time ([`SyncPlan::dyn_barrier`]); per such thread, its CTA group and `a`.
    dyn_members: Vec<u64>,
    dyn_threads: HashMap<usize, (u32, i64)>,
    /// The symmetric barrier ids that are `cta_group::2` allocator rendezvous (in id order).
    rendezvous_ids: Vec<u32>,
    /// Per CTA group, the hidden location of its Tensor Memory allocator ([`crate::program::tmem`]).
    tmem_allocators: HashMap<u32, u32>,
    /// Per thread, the registers it never writes that have an initial value: constants, so a
    /// barrier operand naming one is known statically.
    constants: Vec<HashMap<String, i64>>,
    /// Per thread: its CTA group, its CTA's and its cluster's number of threads, its cluster.
    cta_group: Vec<u32>,
    cta_size: Vec<i64>,
    cluster: Vec<Option<ClusterId>>,
    cluster_size: Vec<i64>,
}

impl SyncPlan {
    /// Scans `p`: the barrier objects it needs (appended to `locations`, numbered from there).
    pub fn new(p: &Program, locations: &mut Vec<LocInfo>) -> Self {
        let cta_of = |t: &tcfuzz_litmus::Thread| match t.placement {
            tcfuzz_litmus::Placement::Ptx { gpu, cta, .. } => Some((gpu, cta)),
            _ => None,
        };
        let mut plan = SyncPlan::default();
        let mut ctas: Vec<Option<(u32, u32)>> = Vec::new();
        for t in &p.threads {
            let c = cta_of(t);
            let g = ctas.iter().position(|x| *x == c).unwrap_or_else(|| {
                ctas.push(c);
                ctas.len() - 1
            });
            plan.cta_group.push(g as u32);
            plan.cluster.push(t.placement.effective_cluster());
        }
        for t in 0..p.threads.len() {
            plan.cta_size.push(plan.cta_group.iter().filter(|&&g| g == plan.cta_group[t]).count() as i64);
            plan.cluster_size.push(plan.cluster.iter().filter(|&&c| c == plan.cluster[t]).count() as i64);
        }
        for t in &p.threads {
            let written: Vec<&str> = t
                .body
                .iter()
                .filter_map(|s| if let StmtKind::Instr(i) = &s.kind { Some(i) } else { None })
                .flat_map(tcfuzz_litmus::registers_written)
                .collect();
            let consts = p
                .reg_inits
                .iter()
                .filter(|r| r.thread == t.name && !written.contains(&r.reg.as_str()))
                .filter_map(|r| if let Value::Int(v) = r.value { Some((r.reg.clone(), v)) } else { None })
                .collect();
            plan.constants.push(consts);
        }
        plan.counted = p.threads.iter().flat_map(|t| &t.body).any(|s| {
            matches!(&s.kind, StmtKind::Instr(Instr::Barrier(Barrier::Arrive { .. })))
                || matches!(&s.kind, StmtKind::Instr(Instr::Barrier(Barrier::Sync { operands, .. }))
                    if operands.len() >= 3 || matches!(operands.get(1), Some(Operand::Imm(b)) if *b > 0 && b % 32 == 0))
        });
        for (ti, t) in p.threads.iter().enumerate() {
            for s in &t.body {
                if let StmtKind::Instr(Instr::Tcgen05(op)) = &s.kind {
                    plan.add_allocator_use(p, ti, op, locations);
                }
                let StmtKind::Instr(Instr::Barrier(b)) = &s.kind else { continue };
                if let Some(a) = plan.dyn_key(ti, b) {
                    plan.dyn_threads.insert(ti, (plan.cta_group[ti], a));
                } else if let Some(key) = plan.symmetric_key(ti, b) {
                    plan.add_member(SymKey::Bar(key.0, key.1, key.2), ti);
                } else if let Some(key) = plan.key(ti, b) {
                    let name = match &key {
                        Key::Cta(g, id) => format!("%bar{id}@cta{g}"),
                        Key::Quorum(g, a, b) => format!("%bar{a}.{b}@cta{g}"),
                        Key::Cluster(ClusterId::Declared { gpu, cluster }) => format!("%barrier.cluster@gpu{gpu}.cluster{cluster}"),
                        Key::Cluster(ClusterId::OwnCta { gpu, cta }) => format!("%barrier.cluster@gpu{gpu}.cta{cta}"),
                    };
                    plan.objects.entry(key).or_insert_with(|| {
                        locations.push(LocInfo { name, init: 0, tmem: false });
                        locations.len() as u32 - 1
                    });
                }
            }
        }
        // A `bar.sync a, r` of a thread: the barriers `(a, v)` of the other threads it may meet,
        // and its own for every other value.
        let mut dyn_threads: Vec<(usize, (u32, i64))> = plan.dyn_threads.iter().map(|(&t, &k)| (t, k)).collect();
        dyn_threads.sort_unstable();
        for (t, (g, a)) in dyn_threads {
            plan.add_member(SymKey::Solo(t), t);
            let shared: Vec<u32> = plan
                .symmetric
                .iter()
                .filter(|(k, _)| matches!(k, SymKey::Bar(g2, a2, Some(_)) if *g2 == g && *a2 == a))
                .map(|(_, &id)| id)
                .collect();
            plan.dyn_members.resize(plan.members.len(), 0);
            for id in shared {
                plan.dyn_members[id as usize] |= 1 << t;
            }
        }
        plan.dyn_members.resize(plan.members.len(), 0);
        for &id in &plan.rendezvous_ids {
            let m = &mut plan.members[id as usize];
            if m.count_ones() < 2 {
                *m |= crate::program::ABSENT_MEMBER;
            }
        }
        plan
    }

    /// The key of a barrier kept as symmetric barrier events: `bar.sync a` / `bar.sync a, b` with
    /// immediate operands in a program without `bar.arrive` or quorum barriers.
    fn symmetric_key(&self, t: usize, b: &Barrier) -> Option<(u32, i64, Option<i64>)> {
        let Barrier::Sync { operands, .. } = b else { return None };
        if self.counted || operands.len() > 2 {
            return None;
        }
        let imm = |o: &Operand| match o {
            Operand::Imm(v) => Some(*v),
            Operand::Reg(r) => self.constants[t].get(r).copied(),
        };
        let second = match operands.get(1) {
            Some(o) => Some(imm(o)?),
            None => None,
        };
        Some((self.cta_group[t], imm(operands.first()?)?, second))
    }

    /// For `bar.sync a, r` of thread `t` with `a` known statically and `r` a register set at run
    /// time, in a program without counted barriers: `a`. Supported where the thread executes no
    /// other barrier and no loop (it arrives there at most once, so whether it has arrived says
    /// which barrier it chose) and no other thread has such a barrier with the same `a` (two of
    /// them naming the same value would meet at a barrier no thread declares).
    fn dyn_key(&self, t: usize, b: &Barrier) -> Option<i64> {
        let Barrier::Sync { operands, .. } = b else { return None };
        if self.counted || operands.len() != 2 || self.symmetric_key(t, b).is_some() {
            return None;
        }
        let a = match &operands[0] {
            Operand::Imm(v) => *v,
            Operand::Reg(r) => *self.constants[t].get(r)?,
        };
        matches!(operands[1], Operand::Reg(_)).then_some(a)
    }

    /// What [`Op::DynBarrier`](crate::program::Op::DynBarrier) of thread `t` needs: the values of
    /// `r` that name another thread's barrier with their ids, and the thread's own id; `Err` with
    /// the reason where that reading is not supported (see [`SyncPlan::dyn_key`]).
    pub fn dyn_barrier(&self, p: &Program, t: usize) -> Result<DynBarrier, &'static str> {
        let Some(&(g, a)) = self.dyn_threads.get(&t) else { return Err("barrier id or second operand in a register") };
        let body = &p.threads[t].body;
        let barriers = body.iter().filter(|s| matches!(s.kind, StmtKind::Instr(Instr::Barrier(_)))).count();
        let loops = body.iter().any(|s| matches!(s.kind, StmtKind::Instr(Instr::Goto { .. } | Instr::Branch { .. }) | StmtKind::Label(_)));
        if barriers > 1 || loops {
            return Err("a barrier whose second operand is set at run time in a thread with another barrier or a branch");
        }
        if self.dyn_threads.iter().any(|(&u, &k)| u != t && k == (g, a)) {
            return Err("two barriers with the same id whose second operands are set at run time");
        }
        let ids = self
            .symmetric
            .iter()
            .filter_map(|(k, &id)| match k {
                SymKey::Bar(g2, a2, Some(v)) if *g2 == g && *a2 == a => Some((*v, id)),
                _ => None,
            })
            .collect();
        let solo = self.symmetric.get(&SymKey::Solo(t)).copied().ok_or("barrier id or second operand in a register")?;
        Ok(DynBarrier { ids, solo })
    }

    /// Per symmetric barrier id, the threads that may arrive there through a barrier whose second
    /// operand is set at run time ([`SyncPlan::dyn_barrier`]).
    pub fn barrier_dyn_members(&self) -> Vec<u64> {
        self.dyn_members.clone()
    }

    /// The id of the symmetric barrier `b` of thread `t` stands for, if it is one.
    pub fn symmetric(&self, t: usize, b: &Barrier) -> Option<u32> {
        let (g, id, second) = self.symmetric_key(t, b)?;
        self.symmetric.get(&SymKey::Bar(g, id, second)).copied()
    }

    fn add_member(&mut self, key: SymKey, t: usize) -> u32 {
        let next = self.symmetric.len() as u32;
        let id = *self.symmetric.entry(key).or_insert(next);
        if id as usize == self.members.len() {
            self.members.push(0);
        }
        self.members[id as usize] |= 1 << t;
        id
    }

    /// A `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit` of thread `t`: its CTA gets an
    /// allocator; a `cta_group::2` alloc or dealloc joins the CTA pair's rendezvous.
    fn add_allocator_use(&mut self, p: &Program, t: usize, op: &Tcgen05, locations: &mut Vec<LocInfo>) {
        use crate::program::label::TcOp;
        let (group, kind) = match op {
            Tcgen05::Alloc { group, .. } => (*group, TcOp::Alloc),
            Tcgen05::Dealloc { group, .. } => (*group, TcOp::Dealloc),
            Tcgen05::RelinquishAllocPermit { group } => (*group, TcOp::Relinquish),
            _ => return,
        };
        let g = self.cta_group[t];
        self.tmem_allocators.entry(g).or_insert_with(|| {
            locations.push(LocInfo { name: format!("%tmem.alloc@cta{g}"), init: 0, tmem: false });
            locations.len() as u32 - 1
        });
        if group == CtaGroup::Two
            && let tcfuzz_litmus::Placement::Ptx { gpu, cta, .. } = p.threads[t].placement
        {
            let before = self.symmetric.len();
            let id = self.add_member(SymKey::Rendezvous { gpu, pair: cta >> 1, op: kind }, t);
            if self.symmetric.len() > before {
                self.rendezvous_ids.push(id);
            }
        }
    }

    /// The hidden location of thread `t`'s CTA's Tensor Memory allocator, if the CTA uses one.
    pub fn tmem_allocator(&self, t: usize) -> Option<u32> {
        self.tmem_allocators.get(&self.cta_group[t]).copied()
    }

    /// The symmetric barrier id of the `cta_group::2` rendezvous of thread `t`'s CTA pair for
    /// `op` (alloc, dealloc or relinquish, each its own). Where no warp of the peer CTA takes part, the rendezvous waits for an
    /// [`crate::program::ABSENT_MEMBER`].
    pub fn rendezvous(&self, t: usize, op: crate::program::label::TcOp) -> Option<u32> {
        self.symmetric.iter().find_map(|(k, &id)| match *k {
            SymKey::Rendezvous { op: o, .. } if o == op && self.members[id as usize] & (1 << t) != 0 => Some(id),
            _ => None,
        })
    }

    /// The hidden locations of the Tensor Memory allocators, in order.
    pub fn tmem_allocators(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.tmem_allocators.values().copied().collect();
        v.sort_unstable();
        v
    }

    /// Per symmetric barrier id, the threads (bit `t`) that arrive there.
    pub fn barrier_members(&self) -> Vec<u64> {
        self.members.clone()
    }

    /// Whether `b` of thread `t` would be a symmetric barrier but an operand is a register whose
    /// value is not known statically (not a constant of the thread).
    pub fn is_register_barrier(&self, t: usize, b: &Barrier) -> bool {
        matches!(b, Barrier::Sync { operands, .. } if operands.len() <= 2) && self.symmetric(t, b).is_none() && self.key(t, b).is_none()
    }

    fn key(&self, t: usize, b: &Barrier) -> Option<Key> {
        let g = self.cta_group[t];
        let imm = |o: &Operand| match o {
            Operand::Imm(v) => Some(*v),
            Operand::Reg(_) => None,
        };
        match b {
            Barrier::Sync { operands, .. } if operands.len() == 3 => Some(Key::Quorum(g, imm(&operands[0])?, imm(&operands[1])?)),
            Barrier::Sync { operands, .. } if operands.len() <= 2 && !self.counted => None,
            Barrier::Sync { operands, .. } | Barrier::Arrive { operands, .. } => Some(Key::Cta(g, imm(operands.first()?)?)),
            Barrier::ClusterArrive { .. } | Barrier::ClusterWait { .. } => Some(Key::Cluster(self.cluster[t]?)),
        }
    }

    /// The hidden location of the object barrier `b` of thread `t` uses, if it is one.
    pub fn object(&self, t: usize, b: &Barrier) -> Option<u32> {
        self.objects.get(&self.key(t, b)?).copied()
    }

    pub fn cta_size(&self, t: usize) -> i64 {
        self.cta_size[t]
    }

    pub fn cluster_size(&self, t: usize) -> i64 {
        self.cluster_size[t]
    }
}

/// The initial value of an mbarrier declared in the initial state.
pub fn mbarrier_init(kind: &LocationKind) -> Option<i64> {
    match kind {
        LocationKind::Mbarrier { count, .. } => Some(count.map_or(MBAR_UNINIT, |c| Mbar::fresh(c as i64).pack())),
        _ => None,
    }
}

/// A thread count `b` of `bar.sync a, b` / `bar.arrive a, b` as a number of arrivals: litmus
/// threads, or warps when `b` is a multiple of the warp size.
pub fn arrivals_for_count(b: i64) -> i64 {
    if b >= 32 && b % 32 == 0 { b / 32 } else { b }
}

/// The bulk copies among a thread's events (`len` of them, `label(i)` the `i`-th's label), as
/// index ranges `[lo, hi)`: each copy's events — its read, its write, the completion fence, the
/// complete-tx read and write ([`crate::exec::interp`]), those of them present — are consecutive and
/// share their [`crate::program::label::Label::bulk_copy`] number.
pub(crate) fn bulk_copy_spans(len: usize, label: impl Fn(usize) -> crate::program::label::Label) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut last = 0;
    for i in 0..len {
        let copy = label(i).bulk_copy;
        match spans.last_mut() {
            Some(span) if copy != 0 && copy == last && span.1 == i => span.1 = i + 1,
            _ if copy != 0 => spans.push((i, i + 1)),
            _ => {}
        }
        last = copy;
    }
    spans
}

/// Whether program order leaves events `i` and `j` of one thread unordered because of a bulk
/// copy (`spans` from [`bulk_copy_spans`]): the copy performs asynchronously, so no later event of
/// its thread comes after its events in program order (PTX ISA `cp.async.bulk`: an asynchronous
/// operation; the thread learns of its completion through the mbarrier). Earlier events stay
/// before it: the copy starts after it is issued.
pub(crate) fn bulk_copy_unordered(spans: &[(usize, usize)], i: usize, j: usize) -> bool {
    let (lo, hi) = (i.min(j), i.max(j));
    spans.iter().any(|&(start, end)| (start..end).contains(&lo) && hi >= end)
}
