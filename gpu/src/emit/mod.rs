//! PTX emission: a litmus program becomes one kernel whose every group of CTAs runs one test
//! instance (DESIGN §8). The placement of threads and locations is [`plan`]'s; the spelling of
//! each instruction is [`body`]'s (generic proxy, barriers, mbarriers, bulk copies) and
//! [`tcgen05`]'s; this file writes the kernel around them:
//!
//! ```text
//! prologue   role of the CTA (its group's instance, or memory stress), addresses of the
//!            instance's global locations, shared locations and mbarriers initialised, declared
//!            TMEM regions allocated and initialised; CTA barrier 15 (and a cluster barrier)
//! pre-test   optional memory stress, optional spin barrier of every testing warp
//! body       one block per litmus thread (dispatched on CTA position and warp); at its end
//!            the thread leaves the cluster barrier closed ([`cluster`])
//! epilogue   each thread's status and registers to the output record; barrier 15; shared
//!            locations to the output record (after outstanding bulk copies land); implicit TMEM
//!            allocations released
//! stress     CTAs of stress groups hammer the stress buffer instead
//! ```
//! The control block and output record are documented in [`crate::layout`].

mod body;
mod cluster;
mod plan;
mod tcgen05;

use std::fmt::Write as _;

use tcfuzz_litmus::{Program, Span};
use thiserror::Error;

use crate::layout::*;
pub use plan::TX_SCALE;
use plan::{Plan, operands};

/// What to emit for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Hopper: generic proxy, proxy fences, CTA and cluster barriers, mbarriers, bulk copies.
    Sm90a,
    /// Blackwell: the same plus `tcgen05`.
    Sm100a,
}

impl Target {
    pub fn arch(self) -> &'static str {
        match self {
            Target::Sm90a => "sm_90a",
            Target::Sm100a => "sm_100a",
        }
    }

    /// The lowest PTX ISA version (×10) that knows the target.
    fn base_version(self) -> u32 {
        match self {
            Target::Sm90a => 80,
            Target::Sm100a => 86,
        }
    }

    /// The target a program needs: `sm_100a` when it uses `tcgen05`.
    pub fn for_program(p: &Program) -> Target {
        let tc = p
            .threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| matches!(s.kind, tcfuzz_litmus::StmtKind::Instr(tcfuzz_litmus::Instr::Tcgen05(_))));
        // A declared TMEM region is allocated by the kernel's prologue (`tcgen05.alloc`) even
        // where no instruction of the program touches it.
        let tmem = p.locations.iter().any(|l| matches!(l.kind, tcfuzz_litmus::LocationKind::Tmem { .. }));
        if tc || tmem { Target::Sm100a } else { Target::Sm90a }
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sm_90a" => Ok(Target::Sm90a),
            "sm_100a" => Ok(Target::Sm100a),
            other => Err(format!("unknown PTX target `{other}`; expected sm_90a or sm_100a")),
        }
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum EmitError {
    /// The program uses something a kernel cannot express (or that emission does not handle yet).
    #[error("{span}: cannot emit: {message}")]
    Unsupported { span: Span, message: String },
}

impl EmitError {
    pub(crate) fn unsupported(span: Span, message: impl Into<String>) -> EmitError {
        EmitError::Unsupported { span, message: message.into() }
    }
}

/// An emitted kernel and what the host needs to run it and read its results.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub target: Target,
    /// The PTX module text.
    pub ptx: String,
    /// The PTX ISA version it declares (`.version`), ×10.
    pub version: u32,
    pub layout: Layout,
}

/// Entry point name of every emitted kernel.
pub const ENTRY: &str = "tcfuzz_litmus";

/// Shape of a launch and of the results (see [`crate::layout`]).
#[derive(Clone, Debug)]
pub struct Layout {
    pub ctas_per_instance: u32,
    /// CTAs per cluster (the kernel declares it, so a plain launch forms the clusters).
    pub cluster_size: u32,
    pub block_threads: u32,
    /// Bytes per global-location slot of the memory buffer.
    pub slot_bytes: u32,
    /// Global locations: name, initial value, 64-bit.
    pub globals: Vec<(String, i64, bool)>,
    /// Thread names, in the order of their status words.
    pub threads: Vec<String>,
    /// Values an instance writes to its output record: final-state name (`P0:r0`, `s`), word.
    pub outputs: Vec<Output>,
    /// `u64` words per instance output record.
    pub out_words: u32,
    /// Whether the program uses `tcgen05` (runs only on sm_100-class devices).
    pub tcgen05: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    pub name: String,
    pub word: u32,
    /// Whether the value means the same on hardware as in the model. Not so for the `state` of an
    /// mbarrier arrive (an opaque 64-bit token on hardware) and for `tcgen05.ld` results (the model
    /// keeps abstract TMEM values); such values are written but not compared.
    pub comparable: bool,
}

impl Layout {
    /// `u32` words of the control block for `instances` instances in `groups` groups.
    pub fn ctl_words(&self, groups: usize, instances: usize) -> usize {
        CTL_GROUPS + groups + instances * self.globals.len()
    }
}

/// Emits `program` as a PTX kernel for `target`.
pub fn emit_ptx(program: &Program, target: Target) -> Result<Kernel, EmitError> {
    let plan = plan::plan(program)?;
    let tc = Target::for_program(program) == Target::Sm100a;
    if tc && target != Target::Sm100a {
        return Err(EmitError::unsupported(Span::default(), "the program uses tcgen05, which needs --target sm_100a"));
    }
    let closings = cluster::closings(program, &plan)?;
    let mut k = KernelWriter::new(program, &plan, target, closings);
    k.write()?;
    let version = k.version;
    let layout = Layout {
        ctas_per_instance: plan.ctas_per_instance(),
        cluster_size: plan.cluster_size,
        block_threads: 32 * plan.warps_per_cta,
        slot_bytes: plan.slot_bytes,
        globals: plan.globals.iter().map(|g| (g.name.clone(), g.init, g.wide)).collect(),
        threads: plan.threads.iter().map(|t| t.name.clone()).collect(),
        outputs: k.outputs.clone(),
        out_words: k.out_words,
        tcgen05: tc,
    };
    let mut ptx = String::new();
    let _ = writeln!(ptx, "// tcfuzz kernel for litmus program `{}` ({}).", program.name.replace('\n', " "), target.arch());
    let _ = writeln!(
        ptx,
        "// One instance = {} CTA(s) of {} thread(s); clusters of {}.",
        layout.ctas_per_instance, layout.block_threads, layout.cluster_size
    );
    for t in &plan.threads {
        let _ = writeln!(ptx, "//   {}: CTA {} of unit {} (cluster rank {}), warp {}", t.name, t.cta, t.unit, t.rank, t.warp);
    }
    let _ = writeln!(ptx, ".version {}.{}", version / 10, version % 10);
    let _ = writeln!(ptx, ".target {}", target.arch());
    let _ = writeln!(ptx, ".address_size 64\n");
    ptx.push_str(&k.out);
    Ok(Kernel { target, ptx, version, layout })
}

/// The kernel being written: the text, the PTX version it needs, labels, the output layout.
pub(crate) struct KernelWriter<'a> {
    pub(crate) p: &'a Program,
    pub(crate) plan: &'a Plan,
    pub(crate) out: String,
    pub(crate) version: u32,
    labels: u32,
    pub(crate) outputs: Vec<Output>,
    pub(crate) out_words: u32,
    /// Per thread, its registers: litmus name → PTX register index.
    pub(crate) regs: Vec<Vec<(String, u32)>>,
    n_regs: u32,
    /// Per thread, how it leaves the cluster barrier closed at its end ([`cluster`]).
    closings: Vec<cluster::Closing>,
}

impl<'a> KernelWriter<'a> {
    fn new(p: &'a Program, plan: &'a Plan, target: Target, closings: Vec<cluster::Closing>) -> Self {
        KernelWriter {
            p,
            plan,
            out: String::new(),
            version: target.base_version(),
            labels: 0,
            outputs: Vec::new(),
            out_words: 0,
            regs: Vec::new(),
            n_regs: 0,
            closings,
        }
    }

    /// Records that the kernel needs PTX ISA `v` (×10).
    pub(crate) fn need(&mut self, v: u32) {
        self.version = self.version.max(v);
    }

    pub(crate) fn line(&mut self, s: impl AsRef<str>) {
        self.out.push_str("    ");
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    pub(crate) fn label(&mut self, l: &str) {
        self.out.push_str(l);
        self.out.push_str(":\n");
    }

    pub(crate) fn fresh(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}_{}", self.labels)
    }

    fn write(&mut self) -> Result<(), EmitError> {
        self.assign_registers();
        self.assign_outputs();
        let plan = self.plan;
        // A kernel not declared a cluster kernel may be launched without clusters, and ptxas then
        // compiles `barrier.cluster.arrive` to nothing and `barrier.cluster.wait` to a CTA barrier
        // 0 for all threads (seen in its SASS for sm_90a: `UCGABAR_ARV` / `UCGABAR_WAIT` only
        // where a launch-time flag says "cluster", else a `NOP` / `BAR.SYNC 0`). That is neither
        // split-phase nor apart from a litmus `bar.sync 0`. On an H200 synccheck reported it as
        // "Divergent thread(s) in block", and in `examples/mbarrier/cluster-barrier-split-phase-
        // handshake.litmus` every instance stalled at the loop cap. So a kernel with cluster
        // barriers is always a cluster kernel, of one CTA where the program's clusters have one.
        let cluster_kernel = plan.cluster_size > 1 || cluster::uses_cluster_barrier(self.p);
        self.out.push_str(&format!(
            ".visible .entry {ENTRY}(\n    .param .u64 p_mem,\n    .param .u64 p_out,\n    .param .u64 p_ctl,\n    .param .u64 p_stress\n)\n"
        ));
        self.out.push_str(&format!(".reqntid {}, 1, 1\n", 32 * plan.warps_per_cta));
        if cluster_kernel {
            self.out.push_str(&format!(".explicitcluster\n.reqnctapercluster {}, 1, 1\n", plan.cluster_size));
        }
        self.out.push_str("{\n");
        self.declarations();
        self.prologue()?;
        self.dispatch();
        for t in 0..plan.threads.len() {
            self.thread_body(t)?;
        }
        self.epilogue()?;
        self.stress();
        self.out.push_str("}\n");
        Ok(())
    }

    fn assign_registers(&mut self) {
        for t in &self.p.threads {
            let mut names: Vec<String> = Vec::new();
            for r in self.p.reg_inits.iter().filter(|r| r.thread == t.name || r.thread == t.name.trim_start_matches('P')) {
                if !names.contains(&r.reg) {
                    names.push(r.reg.clone());
                }
            }
            for s in &t.body {
                if let tcfuzz_litmus::StmtKind::Instr(i) = &s.kind {
                    for r in tcfuzz_litmus::registers_written(i) {
                        if r != "_" && !names.iter().any(|n| n == r) {
                            names.push(r.to_string());
                        }
                    }
                }
            }
            let regs = names
                .into_iter()
                .map(|n| {
                    self.n_regs += 1;
                    (n, self.n_regs - 1)
                })
                .collect();
            self.regs.push(regs);
        }
    }

    fn assign_outputs(&mut self) {
        let mut word = self.plan.threads.len() as u32;
        for (t, th) in self.p.threads.iter().enumerate() {
            for (name, _) in &self.regs[t] {
                let opaque = th.body.iter().any(|s| match &s.kind {
                    tcfuzz_litmus::StmtKind::Instr(tcfuzz_litmus::Instr::Mbarrier(tcfuzz_litmus::Mbarrier::Arrive(a))) => &a.state == name,
                    tcfuzz_litmus::StmtKind::Instr(tcfuzz_litmus::Instr::Tcgen05(tcfuzz_litmus::Tcgen05::Ld { dst, .. })) => dst == name,
                    _ => false,
                });
                self.outputs.push(Output { name: format!("{}:{}", th.name, name), word, comparable: !opaque });
                word += 1;
            }
        }
        for s in self.plan.shared.iter().filter(|s| s.mbarrier.is_none()) {
            self.outputs.push(Output { name: s.name.clone(), word, comparable: true });
            word += 1;
        }
        self.out_words = word.max(1);
    }

    /// The PTX register holding litmus register `reg` of thread `t`.
    pub(crate) fn reg(&self, t: usize, reg: &str) -> Option<String> {
        self.regs[t].iter().find(|(n, _)| n == reg).map(|(_, i)| format!("%v{i}"))
    }

    fn declarations(&mut self) {
        let n_regs = self.n_regs.max(1);
        let n_globals = self.plan.globals.len().max(1);
        self.line(".reg .pred %p<8>;");
        self.line(".reg .pred %lane0;");
        self.line(".reg .b32 %w<8>;");
        self.line(".reg .b64 %d<8>;");
        self.line(format!(".reg .b64 %v<{n_regs}>;"));
        self.line(format!(".reg .b64 %g<{n_globals}>;"));
        self.line(".reg .b64 %mem, %out, %ctl, %stress, %rec;");
        self.line(".reg .b32 %xtid, %xwarp, %xlane, %xcta, %xgrp, %xwithin, %xinst, %xkey, %xloops, %xcap, %xstatus;");
        if self.uses_tcgen05() {
            self.line(".reg .b32 %tm<128>;");
            self.line(".reg .b16 %h0;");
        }
        for (i, s) in self.plan.shared.iter().enumerate() {
            let align = if s.bytes >= 128 { 128 } else { 16 };
            let _ = writeln!(self.out, "    .shared .align {align} .b8 sh{i}[{}]; // {}", s.bytes, s.name);
        }
        if !self.plan.tmem_allocs.is_empty() {
            let n = self.plan.tmem_allocs.len();
            self.line(format!(".shared .align 16 .b32 tmem_slots[{n}]; // TMEM addresses of the declared regions' allocations"));
        }
    }

    /// Jumps past what follows unless this CTA is at position `within` of its instance; returns the
    /// label to place after it.
    fn skip_unless_cta(&mut self, within: u32, what: &str) -> String {
        let skip = self.fresh(what);
        self.line(format!("setp.ne.u32 %p1, %xwithin, {within};"));
        self.line(format!("@%p1 bra {skip};"));
        skip
    }

    /// Loads a kernel parameter as a global address.
    fn param(&mut self, reg: &str, name: &str) {
        self.line(format!("ld.param.u64 {reg}, [{name}];"));
        self.line(format!("cvta.to.global.u64 {reg}, {reg};"));
    }

    /// Loads control word `base_word` (+ the index in register `offset`, if any) into `dst`.
    fn ctl_word(&mut self, dst: &str, base_word: usize, offset: Option<&str>) {
        match offset {
            Some(r) => {
                self.line(format!("add.u32 %w7, {r}, {base_word};"));
                self.line("mul.wide.u32 %d7, %w7, 4;");
                self.line("add.u64 %d7, %ctl, %d7;");
                self.line(format!("ld.global.u32 {dst}, [%d7];"));
            }
            None => self.line(format!("ld.global.u32 {dst}, [%ctl+{}];", 4 * base_word)),
        }
    }

    fn uses_tcgen05(&self) -> bool {
        !self.plan.tmem.is_empty() || Target::for_program(self.p) == Target::Sm100a
    }

    fn prologue(&mut self) -> Result<(), EmitError> {
        let plan = self.plan;
        let c = plan.ctas_per_instance();
        self.param("%mem", "p_mem");
        self.param("%out", "p_out");
        self.param("%ctl", "p_ctl");
        self.param("%stress", "p_stress");
        self.line("mov.u32 %xtid, %tid.x;");
        self.line("shr.u32 %xwarp, %xtid, 5;");
        self.line("and.b32 %xlane, %xtid, 31;");
        self.line("setp.eq.u32 %lane0, %xlane, 0;");
        self.line("mov.u32 %xcta, %ctaid.x;");
        self.line(format!("div.u32 %xgrp, %xcta, {c};"));
        self.line(format!("rem.u32 %xwithin, %xcta, {c};"));
        self.ctl_word("%xinst", CTL_GROUPS, Some("%xgrp"));
        self.line(format!("setp.eq.u32 %p0, %xinst, {STRESS};"));
        self.line("@%p0 bra $STRESS;");
        self.ctl_word("%xcap", CTL_LOOP_CAP, None);
        // Global locations of this instance: slot table after the group table.
        if !plan.globals.is_empty() {
            self.line("mov.u32 %w6, %nctaid.x;");
            self.line(format!("div.u32 %w6, %w6, {c};"));
            self.line(format!("mad.lo.u32 %w5, %xinst, {}, %w6;", plan.globals.len()));
            for g in 0..plan.globals.len() {
                self.line(format!("add.u32 %w4, %w5, {g};"));
                self.ctl_word("%w3", CTL_GROUPS, Some("%w4"));
                self.line(format!("mul.wide.u32 %d6, %w3, {};", plan.slot_bytes));
                self.line(format!("add.u64 %g{g}, %mem, %d6;"));
            }
        }
        // Per CTA position: initial shared values, mbarriers, TMEM regions (warp 0, lane 0 for
        // memory; the lane-quarter warps for TMEM).
        for (unit, rank, within) in plan.positions() {
            let here: Vec<usize> = (0..plan.shared.len()).filter(|&i| plan.shared[i].unit == unit && plan.shared[i].rank == rank).collect();
            let tmem = plan.tmem.iter().any(|r| r.unit == unit && r.rank == rank);
            if here.is_empty() && !tmem {
                continue;
            }
            let skip = self.skip_unless_cta(within, "init");
            self.line("setp.ne.u32 %p2, %xwarp, 0;");
            let skip_warp = self.fresh("init_warp");
            self.line(format!("@%p2 bra {skip_warp};"));
            for i in here {
                let s = &plan.shared[i];
                match s.mbarrier {
                    Some(Some(count)) => self.line(format!("@%lane0 mbarrier.init.shared::cta.b64 [sh{i}], {count};")),
                    Some(None) => {}
                    None => {
                        let ty = if s.wide { "b64" } else { "b32" };
                        self.line(format!("@%lane0 st.shared::cta.{ty} [sh{i}], {};", imm(s.init, s.wide)));
                    }
                }
            }
            if tmem {
                tcgen05::prologue_alloc(self, unit, rank)?;
            }
            self.label(&skip_warp);
            if tmem {
                tcgen05::prologue_init(self, unit, rank)?;
            }
            self.label(&skip);
        }
        if plan.shared.iter().any(|s| s.mbarrier.is_some()) && plan.cluster_size > 1 {
            self.line("fence.mbarrier_init.release.cluster;");
        }
        if !plan.tmem.is_empty() {
            self.line("tcgen05.fence::before_thread_sync;");
        }
        self.line("bar.sync 15;");
        if plan.cluster_size > 1 {
            self.line("barrier.cluster.arrive.release.aligned;");
            self.line("barrier.cluster.wait.acquire.aligned;");
        }
        if !plan.tmem.is_empty() {
            self.line("tcgen05.fence::after_thread_sync;");
        }
        // Pre-test memory stress and the spin barrier of every testing warp.
        self.ctl_word("%w1", CTL_PRE_STRESS, None);
        self.stress_loop("%w1", "pre");
        self.ctl_word("%w1", CTL_BARRIER, None);
        self.line("setp.eq.u32 %p1, %w1, 0;");
        self.line("@%p1 bra $SPIN_DONE;");
        self.line(format!("add.u64 %d1, %ctl, {};", 4 * CTL_BARRIER_COUNT));
        self.line("@%lane0 red.relaxed.gpu.global.add.u32 [%d1], 1;");
        self.ctl_word("%w2", CTL_BARRIER_TARGET, None);
        self.line("mov.u32 %xloops, 0;");
        self.label("$SPIN");
        self.line("ld.relaxed.gpu.global.u32 %w3, [%d1];");
        self.line("setp.ge.u32 %p1, %w3, %w2;");
        self.line("@%p1 bra $SPIN_DONE;");
        self.line("add.u32 %xloops, %xloops, 1;");
        self.line("setp.lt.u32 %p1, %xloops, %xcap;");
        self.line("@%p1 bra $SPIN;");
        self.label("$SPIN_DONE");
        self.line("bar.warp.sync 0xffffffff;");
        Ok(())
    }

    /// Jumps to each litmus thread's block on `(CTA position, warp)`; other warps are idle.
    fn dispatch(&mut self) {
        let plan = self.plan;
        self.line(format!("mad.lo.u32 %xkey, %xwithin, {}, %xwarp;", plan.warps_per_cta));
        for (t, th) in plan.threads.iter().enumerate() {
            let key = (th.unit * plan.cluster_size + th.rank) * plan.warps_per_cta + th.warp;
            self.line(format!("setp.eq.u32 %p0, %xkey, {key};"));
            self.line(format!("@%p0 bra $T{t};"));
        }
        self.line("bra.uni $FINISH;");
    }

    fn thread_body(&mut self, t: usize) -> Result<(), EmitError> {
        let th = &self.p.threads[t];
        self.label(&format!("$T{t}"));
        let _ = writeln!(self.out, "    // thread {}", th.name);
        for (name, i) in self.regs[t].clone() {
            let init = self
                .p
                .reg_inits
                .iter()
                .find(|r| (r.thread == th.name || r.thread == th.name.trim_start_matches('P')) && r.reg == name)
                .map_or(0, |r| match r.value {
                    tcfuzz_litmus::Value::Int(v) => v,
                    tcfuzz_litmus::Value::Tile(_) => 0,
                });
            self.line(format!("mov.b64 %v{i}, {init};"));
        }
        self.line(format!("mov.u32 %xstatus, {STATUS_DONE};"));
        self.line("mov.u32 %xloops, 0;");
        body::thread(self, t)?;
        self.label(&format!("$T{t}_END"));
        let closing = self.closings[t];
        if closing.wait_pending {
            self.line("barrier.cluster.wait;");
        }
        if closing.join {
            self.line("barrier.cluster.arrive;");
            self.line("barrier.cluster.wait;");
        }
        // Status and registers to the output record (lane 0).
        self.line(format!("mul.wide.u32 %d1, %xinst, {};", 8 * self.out_words));
        self.line("add.u64 %rec, %out, %d1;");
        self.line("cvt.u64.u32 %d2, %xstatus;");
        self.line(format!("@%lane0 st.global.b64 [%rec+{}], %d2;", 8 * t));
        let th_name = th.name.clone();
        for (name, i) in self.regs[t].clone() {
            let word = self.outputs.iter().find(|o| o.name == format!("{th_name}:{name}")).map_or(0, |o| o.word);
            self.line(format!("@%lane0 st.global.b64 [%rec+{}], %v{i};", 8 * word));
        }
        self.line("bra.uni $FINISH;");
        Ok(())
    }

    fn epilogue(&mut self) -> Result<(), EmitError> {
        let plan = self.plan;
        self.label("$FINISH");
        if self
            .p
            .threads
            .iter()
            .flat_map(|t| &t.body)
            .any(|s| matches!(s.kind, tcfuzz_litmus::StmtKind::Instr(tcfuzz_litmus::Instr::CpAsyncBulk(_))))
        {
            // The final state is read after every bulk copy has landed (the model's complete
            // executions include every copy's write), but the ISA has no wait on a copy whose
            // mbarrier phase nobody awaits: give outstanding copies 200 µs of the global timer (a
            // 64-byte copy takes about one). Not `nanosleep` alone: its delay may be anything in
            // [0, 2t] (PTX ISA, `nanosleep`), and on an H200 a 20 µs `nanosleep` let a dump read a
            // copy's destination before the copy landed.
            self.line("mov.u64 %d3, %globaltimer;");
            self.label("$SETTLE");
            self.line("nanosleep.u32 1000;");
            self.line("mov.u64 %d4, %globaltimer;");
            self.line("sub.u64 %d4, %d4, %d3;");
            self.line("setp.lt.u64 %p1, %d4, 200000;");
            self.line("@%p1 bra $SETTLE;");
            // The dump's generic-proxy loads after the copies' async-proxy writes (§9.7.16.6.5).
            self.line("fence.proxy.async.shared::cta;");
        }
        if !plan.tmem.is_empty() {
            self.line("tcgen05.fence::before_thread_sync;");
        }
        self.line("bar.sync 15;");
        if plan.cluster_size > 1 {
            self.line("barrier.cluster.arrive.release.aligned;");
            self.line("barrier.cluster.wait.acquire.aligned;");
        }
        if !plan.tmem.is_empty() {
            self.line("tcgen05.fence::after_thread_sync;");
        }
        self.line(format!("mul.wide.u32 %d1, %xinst, {};", 8 * self.out_words));
        self.line("add.u64 %rec, %out, %d1;");
        for (unit, rank, within) in plan.positions() {
            let dump: Vec<(usize, u32)> = plan
                .shared
                .iter()
                .enumerate()
                .filter(|(_, s)| s.unit == unit && s.rank == rank && s.mbarrier.is_none())
                .map(|(i, s)| (i, self.outputs.iter().find(|o| o.name == s.name).map_or(0, |o| o.word)))
                .collect();
            let dealloc = tcgen05::epilogue_dealloc_needed(self, unit, rank);
            if dump.is_empty() && !dealloc {
                continue;
            }
            let skip = self.skip_unless_cta(within, "dump");
            self.line("setp.ne.u32 %p1, %xwarp, 0;");
            self.line(format!("@%p1 bra {skip};"));
            for (i, word) in dump {
                let s = &plan.shared[i];
                if s.wide {
                    self.line(format!("ld.shared::cta.b64 %d2, [sh{i}];"));
                } else {
                    self.line(format!("ld.shared::cta.b32 %w2, [sh{i}];"));
                    self.line("cvt.s64.s32 %d2, %w2;");
                }
                self.line(format!("@%lane0 st.global.b64 [%rec+{}], %d2;", 8 * word));
            }
            if dealloc {
                tcgen05::epilogue_dealloc(self, unit, rank)?;
            }
            self.label(&skip);
        }
        self.line("ret;");
        Ok(())
    }

    fn stress(&mut self) {
        self.label("$STRESS");
        self.ctl_word("%w1", CTL_STRESS_ITERS, None);
        self.stress_loop("%w1", "main");
        self.line("ret;");
    }

    /// `iters` iterations of the stress pattern over the stress buffer, by every thread of the
    /// warp (each lane its own word of the targeted line), as GPUHarbor's memory stress does.
    fn stress_loop(&mut self, iters: &str, tag: &str) {
        let top = format!("$STRESS_{tag}");
        let done = format!("$STRESS_{tag}_DONE");
        self.line(format!("setp.eq.u32 %p3, {iters}, 0;"));
        self.line(format!("@%p3 bra {done};"));
        self.ctl_word("%w2", CTL_STRESS_PATTERN, None);
        self.ctl_word("%w3", CTL_STRESS_LINES, None);
        self.ctl_word("%w4", CTL_STRESS_LINE_WORDS, None);
        self.ctl_word("%w5", CTL_SEED, None);
        self.line("mad.lo.u32 %w5, %xcta, 747796405, %w5;");
        self.line("mov.u32 %w6, 0;");
        self.line("mov.u32 %w0, 0;");
        self.label(&top);
        // Next line: an LCG over the targeted lines; the word: the lane within the line.
        self.line("mad.lo.u32 %w5, %w5, 1664525, 1013904223;");
        self.line("rem.u32 %w7, %w5, %w3;");
        self.line("rem.u32 %xkey, %xlane, %w4;");
        self.line("mad.lo.u32 %w7, %w7, %w4, %xkey;");
        self.line("mul.wide.u32 %d3, %w7, 4;");
        self.line("add.u64 %d3, %stress, %d3;");
        // pattern bit 1: first access is a load; bit 0: second access is a load.
        self.line("and.b32 %xkey, %w2, 2;");
        self.line("setp.ne.u32 %p4, %xkey, 0;");
        self.line("@%p4 ld.volatile.global.u32 %xkey, [%d3];");
        self.line("@%p4 add.u32 %w0, %w0, %xkey;");
        self.line("@!%p4 st.volatile.global.u32 [%d3], %w6;");
        self.line("and.b32 %xkey, %w2, 1;");
        self.line("setp.ne.u32 %p4, %xkey, 0;");
        self.line("@%p4 ld.volatile.global.u32 %xkey, [%d3];");
        self.line("@%p4 add.u32 %w0, %w0, %xkey;");
        self.line("@!%p4 st.volatile.global.u32 [%d3], %w6;");
        self.line("add.u32 %w6, %w6, 1;");
        self.line(format!("setp.lt.u32 %p3, %w6, {iters};"));
        self.line(format!("@%p3 bra {top};"));
        // Keep the loads alive: their sum is stored only when it is 0xffffffff, which costs
        // nothing in practice but stops the assembler from dropping them.
        self.line("setp.eq.u32 %p3, %w0, 0xffffffff;");
        self.line("@%p3 st.volatile.global.u32 [%stress], %w0;");
        self.label(&done);
    }
}

/// An immediate for a 32- or 64-bit operand.
pub(crate) fn imm(v: i64, wide: bool) -> String {
    if wide { v.to_string() } else { (v as i32).to_string() }
}

/// Every location name an instruction touches (for tests and diagnostics).
pub fn locations_of(i: &tcfuzz_litmus::Instr) -> Vec<&str> {
    operands(i).into_iter().map(|a| a.name.as_str()).collect()
}
