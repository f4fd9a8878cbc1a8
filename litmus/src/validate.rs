//! Validation of a parsed (or generated) program: references, placement and the static rules of
//! the ISA that do not depend on an execution. Every error names what is wrong and what would be
//! right; all errors are reported, not only the first.

use crate::ast::*;
use crate::error::{Diagnostic, ErrorKind};
use std::collections::{HashMap, HashSet};

/// The expected arrival counts an mbarrier may have: 1 to 2^20 - 1 (PTX ISA §9.7.13.15.1
/// "Contents of the mbarrier object"; `mbarrier.init` takes its `count` from that range,
/// §9.7.13.15.9).
const MBARRIER_COUNTS: std::ops::RangeInclusive<i64> = 1..=(1 << 20) - 1;

fn mbarrier_count_error(name: &str, count: i64) -> String {
    format!(
        "mbarrier `{name}` cannot expect {count} arrivals: an expected arrival count is 1 to {} (PTX ISA §9.7.13.15.1)",
        MBARRIER_COUNTS.end()
    )
}

pub fn validate(p: &Program) -> Vec<Diagnostic> {
    let mut v = Validator { p, errors: Vec::new(), locs: HashMap::new() };
    v.run();
    v.errors
}

struct Validator<'a> {
    p: &'a Program,
    errors: Vec<Diagnostic>,
    locs: HashMap<&'a str, &'a Location>,
}

/// What an address operand must name.
#[derive(Clone, Copy, PartialEq)]
enum Need {
    /// Global or shared memory, or an alias; undeclared names are implicit globals.
    Memory,
    /// Shared memory (declared).
    Shared,
    Mbarrier,
    Tmem,
    /// TMEM or shared memory (the `a` operand of `mma`).
    TmemOrShared,
}

impl<'a> Validator<'a> {
    fn err(&mut self, span: Span, kind: ErrorKind, msg: impl Into<String>) {
        self.errors.push(Diagnostic::new(span, kind, msg));
    }

    fn run(&mut self) {
        let p = self.p;
        for l in &p.locations {
            if self.locs.insert(&l.name, l).is_some() {
                self.err(l.span, ErrorKind::DuplicateLocation, format!("location `{}` is declared twice", l.name));
            }
        }
        for l in &p.locations {
            if let LocationKind::Alias { target, .. } = &l.kind {
                match self.locs.get(target.as_str()).map(|t| &t.kind) {
                    None => self.err(
                        l.span,
                        ErrorKind::UndeclaredLocation,
                        format!("`{}` aliases `{target}`, which is not declared; declare it first (`{target} = 0;`)", l.name),
                    ),
                    // Aliases may chain (`t @ texture aliases y; y @ generic aliases x;`).
                    Some(LocationKind::Global | LocationKind::Shared { .. }) => {}
                    Some(LocationKind::Alias { .. }) if self.alias_root(&l.name).is_none() => {
                        self.err(
                            l.span,
                            ErrorKind::BadOperand,
                            format!("`{}` is part of a cycle of aliases; an alias chain must end at a declared location", l.name),
                        );
                    }
                    Some(LocationKind::Alias { .. }) => {}
                    Some(_) => self.err(
                        l.span,
                        ErrorKind::WrongLocationKind,
                        format!("`{}` aliases `{target}`, which is not global or shared memory", l.name),
                    ),
                }
            }
            if let LocationKind::Mbarrier { count: Some(count), .. } = l.kind
                && !MBARRIER_COUNTS.contains(&i64::from(count))
            {
                self.err(l.span, ErrorKind::BadOperand, mbarrier_count_error(&l.name, i64::from(count)));
            }
            if let (LocationKind::Mbarrier { .. } | LocationKind::Alias { .. }, Some(_)) = (&l.kind, &l.init) {
                self.err(
                    l.span,
                    ErrorKind::BadOperand,
                    format!(
                        "`{}` cannot have an initial value: an mbarrier starts from its `count`, an alias shares its target's value",
                        l.name
                    ),
                );
            }
        }
        let mut names = HashSet::new();
        for t in &p.threads {
            if !names.insert(t.name.as_str()) {
                self.err(
                    t.span,
                    ErrorKind::DuplicateThread,
                    format!("thread `{}` is defined twice; name threads P0, P1, ... once each", t.name),
                );
            }
            if p.arch == Arch::Ptx && t.kind() == ThreadKind::TileBlock {
                self.err(
                    t.span,
                    ErrorKind::WrongThreadKind,
                    format!("thread `{}` is a Tile IR tile block, but the header says `PTX`; use the header `TileIR {}`", t.name, p.name),
                );
            }
        }
        self.check_clusters();
        for r in &p.reg_inits {
            if self.thread(&r.thread).is_none() {
                self.err(
                    r.span,
                    ErrorKind::BadOperand,
                    format!("initial value for `{}:{}`, but there is no thread `{}`", r.thread, r.reg, r.thread),
                );
            }
        }
        for t in &p.threads {
            self.check_thread(t);
        }
        self.check_condition();
    }

    /// The location an alias chain ends at, or `None` for a cycle or a dangling chain.
    fn alias_root(&self, name: &str) -> Option<&'a Location> {
        let mut cur = *self.locs.get(name)?;
        for _ in 0..=self.locs.len() {
            match &cur.kind {
                LocationKind::Alias { target, .. } => cur = *self.locs.get(target.as_str())?,
                _ => return Some(cur),
            }
        }
        None
    }

    /// `P1`, or `1` meaning the thread named `P1` (or else the second thread).
    fn thread(&self, name: &str) -> Option<&'a Thread> {
        let ts = &self.p.threads;
        ts.iter().find(|t| t.name == name).or_else(|| {
            let k: usize = name.parse().ok()?;
            ts.iter().find(|t| t.name == format!("P{k}")).or_else(|| ts.get(k))
        })
    }

    /// A CTA id belongs to one cluster (per GPU).
    fn check_clusters(&mut self) {
        let mut seen: HashMap<(u32, u32), (ClusterId, &str)> = HashMap::new();
        for t in &self.p.threads {
            if let Placement::Ptx { gpu, cta, .. } = t.placement {
                let cl = t.placement.effective_cluster().expect("[tcfuzz internal bug] PTX thread without cluster");
                match seen.get(&(gpu, cta)) {
                    Some((other, who)) if *other != cl => {
                        let msg = format!(
                            "thread `{}` puts CTA {cta} in a different cluster than thread `{who}` does; a CTA belongs to one cluster",
                            t.name
                        );
                        self.err(t.span, ErrorKind::BadPlacement, msg);
                    }
                    Some(_) => {}
                    None => {
                        seen.insert((gpu, cta), (cl, &t.name));
                    }
                }
            }
        }
    }

    fn check_thread(&mut self, t: &'a Thread) {
        let labels: Vec<&str> =
            t.body.iter().filter_map(|s| if let StmtKind::Label(l) = &s.kind { Some(l.as_str()) } else { None }).collect();
        let mut seen_labels = HashSet::new();
        for s in &t.body {
            if let StmtKind::Label(l) = &s.kind
                && !seen_labels.insert(l.as_str())
            {
                self.err(s.span, ErrorKind::BadOperand, format!("label `{l}` is defined twice in thread {}", t.name));
            }
        }
        let mut written: HashSet<&str> = self
            .p
            .reg_inits
            .iter()
            .filter(|r| self.thread(&r.thread).is_some_and(|x| std::ptr::eq(x, t)))
            .map(|r| r.reg.as_str())
            .collect();
        let mut tokens: HashSet<&str> = HashSet::new();
        for s in &t.body {
            let StmtKind::Instr(i) = &s.kind else { continue };
            // Reads first: `add r0, r0, 1` reads r0 before writing it.
            for r in reads(i) {
                if r != "_" && !written.contains(r) {
                    self.err(s.span, ErrorKind::RegisterBeforeWrite, format!("register `{r}` is read before it is written in thread {}; write it first or give it an initial value (`{}:{r} = 0;`)", t.name, t.name));
                }
            }
            written.extend(writes(i));
            if let Instr::Branch { target, .. } | Instr::Goto { target } = i
                && !labels.contains(&target.as_str())
            {
                self.err(s.span, ErrorKind::UndefinedLabel, format!("branch to `{target}`, which is not a label of thread {}", t.name));
            }
            if let Instr::Tile(op) = i {
                for d in tile_deps(op) {
                    if !tokens.contains(d.as_str()) {
                        self.err(s.span, ErrorKind::TokenBeforeDefinition, format!("token `<{d}>` is used before it is defined in thread {}; define it by an earlier operation (`<{d}> = make_token;`)", t.name));
                    }
                }
                if let Some(tok) = tile_token(op)
                    && !tokens.insert(tok)
                {
                    self.err(
                        s.span,
                        ErrorKind::BadOperand,
                        format!("token `<{tok}>` is defined twice in thread {}; tokens are defined once", t.name),
                    );
                }
            }
            self.check_instr(t, s.span, i);
        }
    }

    fn check_addr(&mut self, t: &Thread, span: Span, addr: &str, need: Need, what: &str) -> Option<&'a Location> {
        let loc = self.locs.get(addr).copied();
        let Some(l) = loc else {
            if need != Need::Memory {
                let decl = match need {
                    Need::Mbarrier => format!("`{addr} @ mbarrier cta 0 count 1;`"),
                    Need::Tmem | Need::TmemOrShared => format!("`{addr} @ tmem cta 0 lanes 0-31 cols 0-31 = 0;`"),
                    _ => format!("`{addr} @ shared cta 0 = 0;`"),
                };
                self.err(
                    span,
                    ErrorKind::UndeclaredLocation,
                    format!("{what} `{addr}` is not declared; declare it in the initial state, e.g. {decl}"),
                );
            }
            return None;
        };
        let ok = matches!(
            (&l.kind, need),
            (LocationKind::Global | LocationKind::Shared { .. } | LocationKind::Alias { .. }, Need::Memory)
                | (LocationKind::Shared { .. }, Need::Shared | Need::TmemOrShared)
                | (LocationKind::Mbarrier { .. }, Need::Mbarrier)
                | (LocationKind::Tmem { .. }, Need::Tmem | Need::TmemOrShared)
        );
        if !ok {
            let is = match l.kind {
                LocationKind::Global => "global memory",
                LocationKind::Shared { .. } => "shared memory",
                LocationKind::Alias { .. } => "an alias",
                LocationKind::Mbarrier { .. } => "an mbarrier",
                LocationKind::Tmem { .. } => "Tensor Memory",
            };
            let want = match need {
                Need::Memory => "global or shared memory",
                Need::Shared => "shared memory",
                Need::Mbarrier => "an mbarrier",
                Need::Tmem => "Tensor Memory",
                Need::TmemOrShared => "Tensor Memory or shared memory",
            };
            self.err(span, ErrorKind::WrongLocationKind, format!("{what} `{addr}` is {is}, but {want} is needed here"));
            return None;
        }
        // Shared objects are reachable from the owning CTA, or from its cluster.
        if let (LocationKind::Shared { cta, gpu } | LocationKind::Mbarrier { cta, gpu, .. }, Placement::Ptx { gpu: tg, cta: tc, .. }) =
            (&l.kind, t.placement)
            && (*gpu, *cta) != (tg, tc)
            && !self.same_cluster(t, *gpu, *cta)
        {
            self.err(span, ErrorKind::BadPlacement, format!("`{addr}` lives in the shared memory of CTA {cta}, which thread {} (CTA {tc}) cannot reach: only threads of that CTA's cluster can", t.name));
        }
        Some(l)
    }

    /// How an mbarrier operation may name `l`, an mbarrier ([`Self::check_addr`] has checked
    /// that `t` is in its cluster). The `.shared::cta` window (which `.shared` means) addresses
    /// the executing CTA's shared memory only (PTX ISA §5.1, the shared state space): another
    /// CTA's mbarrier is reached through `.shared::cluster`, which only `mbarrier.arrive` and
    /// `mbarrier.expect_tx` take (§9.7.13.15.13, §9.7.13.15.11), and an arrive there returns no
    /// state: its destination is the sink `_` (ptxas 13 rejects a register: "Sink '_' is
    /// expected as a destination operand for instruction 'mbarrier.arrive' with
    /// '.shared::cluster'"). `mbarrier.init`, `test_wait` and `try_wait` have no cluster form: with
    /// a generic address too, theirs must fall in the executing CTA's `.shared::cta` window
    /// (§9.7.13.15.9, §9.7.13.15.16).
    fn check_mbarrier_reach(&mut self, t: &Thread, span: Span, m: &Mbarrier, l: &Location) {
        let (space, what) = match m {
            Mbarrier::Init { space, .. } => (*space, "mbarrier.init"),
            Mbarrier::ExpectTx { space, .. } => (*space, "mbarrier.expect_tx"),
            Mbarrier::Arrive(a) => (a.space, "mbarrier.arrive"),
            Mbarrier::Wait(w) => (w.space, if w.test { "mbarrier.test_wait" } else { "mbarrier.try_wait" }),
        };
        if let Mbarrier::Arrive(a) = m
            && a.space == Some(StateSpace::SharedCluster)
            && a.state != "_"
        {
            self.err(
                span,
                ErrorKind::BadOperand,
                format!("`mbarrier.arrive` with `.shared::cluster` returns no state: its destination must be the sink `_`, not `{}` (PTX ISA §9.7.13.15.13)", a.state),
            );
        }
        let (LocationKind::Mbarrier { cta, gpu, .. }, Placement::Ptx { gpu: tg, cta: tc, .. }) = (&l.kind, t.placement) else { return };
        if (*gpu, *cta) == (tg, tc) {
            return;
        }
        let remote_form = matches!(m, Mbarrier::Arrive(_) | Mbarrier::ExpectTx { .. });
        let how = match space {
            Some(StateSpace::Shared | StateSpace::SharedCta) => {
                "through `.shared::cta`, which addresses its own CTA's shared memory only (PTX ISA §5.1, the shared state space)"
            }
            None if !remote_form => {
                "through a generic address, which must fall in its own CTA's `.shared::cta` window here (PTX ISA §9.7.13.15)"
            }
            _ => return,
        };
        let fix = if remote_form {
            format!("use `{what}...shared::cluster` (an arrive's destination then the sink `_`)")
        } else {
            format!("`{what}` has no `.shared::cluster` form: only a thread of CTA {cta} can do it")
        };
        self.err(
            span,
            ErrorKind::BadPlacement,
            format!("thread {} (CTA {tc}) names mbarrier `{}` of CTA {cta} {how}; {fix}", t.name, l.name),
        );
    }

    /// Is (gpu, cta) in the same cluster as thread `t`?
    fn same_cluster(&self, t: &Thread, gpu: u32, cta: u32) -> bool {
        let mine = t.placement.effective_cluster();
        self.p.threads.iter().any(|o| {
            matches!(o.placement, Placement::Ptx { gpu: g, cta: c, .. } if g == gpu && c == cta) && o.placement.effective_cluster() == mine
        })
    }

    /// The peer CTA of a `cta_group::2` operation must have a thread in the same cluster
    /// (PTX ISA §9.7.16.5.1–2: CTAs whose `%cluster_ctarank` differs in the last bit).
    fn check_peer(&mut self, t: &Thread, span: Span, what: &str) {
        let Placement::Ptx { gpu, cta, .. } = t.placement else { return };
        let peer = cta ^ 1;
        if t.placement.effective_cluster().is_some_and(|c| matches!(c, ClusterId::Declared { .. })) && self.same_cluster(t, gpu, peer) {
            return;
        }
        self.err(
            span,
            ErrorKind::NoPeerCta,
            format!("`{what}` with `cta_group::2` needs the peer CTA {peer} in the same cluster, but thread {} has none; place a thread in it, e.g. `P1@cta {peer},cluster 0,gpu {gpu}` (and give this thread `cluster 0`)", t.name),
        );
    }

    /// A warp reaches one quarter of TMEM's lanes (PTX ISA §9.7.16.5, Table 46).
    fn check_lanes(&mut self, t: &Thread, span: Span, l: &Location, what: &str) {
        let (LocationKind::Tmem { lanes, cta, gpu, .. }, Placement::Ptx { warp, cta: tc, gpu: tg, .. }) = (&l.kind, t.placement) else {
            return;
        };
        if (*gpu, *cta) != (tg, tc) {
            self.err(
                span,
                ErrorKind::BadPlacement,
                format!(
                    "`{what}` reads or writes `{}` in the Tensor Memory of CTA {cta}; thread {} can reach only its own CTA's (CTA {tc})",
                    l.name, t.name
                ),
            );
            return;
        }
        let w = warp.unwrap_or(0);
        let lo = 32 * (w % 4);
        let hi = lo + 31;
        if lanes.lo < lo || lanes.hi > hi {
            self.err(
                span,
                ErrorKind::LaneQuarter,
                format!("`{what}` by warp {w} of thread {} touches TMEM lanes {}-{} of `{}`, but warp {w} can access only lanes {lo}-{hi} (warp % 4 picks the lane quarter); use a warp whose quarter holds those lanes", t.name, lanes.lo, lanes.hi, l.name),
            );
        }
    }

    fn check_instr(&mut self, t: &Thread, span: Span, i: &Instr) {
        match i {
            Instr::Ld(l) => {
                self.check_addr(t, span, &l.addr.name, Need::Memory, "load address");
            }
            Instr::St(s) => {
                self.check_addr(t, span, &s.addr.name, Need::Memory, "store address");
            }
            Instr::Atom(a) => {
                self.check_addr(t, span, &a.addr.name, Need::Memory, "atomic address");
            }
            Instr::Red(r) => {
                self.check_addr(t, span, &r.addr.name, Need::Memory, "reduction address");
            }
            Instr::Mbarrier(m) => {
                let addr = match m {
                    Mbarrier::Init { addr, .. } | Mbarrier::ExpectTx { addr, .. } => addr,
                    Mbarrier::Arrive(a) => &a.addr,
                    Mbarrier::Wait(w) => &w.addr,
                };
                if let Some(l) = self.check_addr(t, span, &addr.name, Need::Mbarrier, "mbarrier") {
                    self.check_mbarrier_reach(t, span, m, l);
                }
                if let Mbarrier::Init { addr, count: Operand::Imm(count), .. } = m
                    && !MBARRIER_COUNTS.contains(count)
                {
                    self.err(span, ErrorKind::BadOperand, mbarrier_count_error(&addr.name, *count));
                }
            }
            Instr::CpAsyncBulk(c) => {
                self.check_addr(t, span, &c.dst.name, Need::Shared, "copy destination");
                if let Some(l) = self.locs.get(c.src.name.as_str())
                    && !matches!(l.kind, LocationKind::Global)
                {
                    self.err(span, ErrorKind::WrongLocationKind, format!("copy source `{}` must be global memory", c.src.name));
                }
                self.check_addr(t, span, &c.mbar.name, Need::Mbarrier, "completion mbarrier");
            }
            Instr::Tcgen05(op) => self.check_tcgen05(t, span, op),
            Instr::Tile(op) => self.check_tile(span, op),
            _ => {}
        }
    }

    fn check_tcgen05(&mut self, t: &Thread, span: Span, op: &Tcgen05) {
        let group = match op {
            Tcgen05::Alloc { group, .. }
            | Tcgen05::Dealloc { group, .. }
            | Tcgen05::RelinquishAllocPermit { group }
            | Tcgen05::Mma { group, .. }
            | Tcgen05::Cp { group, .. }
            | Tcgen05::Shift { group, .. }
            | Tcgen05::Commit { group, .. } => Some(*group),
            _ => None,
        };
        let text = op_label(op);
        if group == Some(CtaGroup::Two) {
            self.check_peer(t, span, text);
        }
        match op {
            Tcgen05::Alloc { slot, .. } => {
                self.check_addr(t, span, &slot.name, Need::Shared, "allocation slot");
            }
            Tcgen05::Dealloc { region: Some(r), .. } => {
                self.check_addr(t, span, r, Need::Tmem, "TMEM region");
            }
            Tcgen05::Mma { d, a, b, .. } => {
                self.check_addr(t, span, &d.name, Need::Tmem, "accumulator");
                self.check_addr(t, span, &a.name, Need::TmemOrShared, "operand A");
                self.check_addr(t, span, &b.name, Need::Shared, "operand B");
            }
            Tcgen05::Cp { d, src, .. } => {
                self.check_addr(t, span, &d.name, Need::Tmem, "copy destination");
                self.check_addr(t, span, &src.name, Need::Shared, "copy source");
            }
            Tcgen05::Shift { d, .. } => {
                self.check_addr(t, span, &d.name, Need::Tmem, "shifted region");
            }
            Tcgen05::Ld { src: a, .. } | Tcgen05::St { dst: a, .. } => {
                if let Some(l) = self.check_addr(t, span, &a.name, Need::Tmem, "TMEM operand") {
                    self.check_lanes(t, span, l, text);
                }
            }
            Tcgen05::Commit { mbar, multicast, .. } => {
                let declared = self.check_addr(t, span, &mbar.name, Need::Mbarrier, "commit mbarrier").is_some();
                // A mask that names no mbarrier is no program (`crate::multicast`); a mask in a
                // register is known only at run time.
                if let (true, Some(Operand::Imm(mask))) = (declared, multicast)
                    && let Some(thread) = self.p.threads.iter().position(|x| std::ptr::eq(x, t))
                    && let Err(why) = crate::multicast::multicast_targets(self.p, thread, &mbar.name, *mask)
                {
                    self.err(span, ErrorKind::BadOperand, why);
                }
            }
            _ => {}
        }
    }

    fn check_tile(&mut self, span: Span, op: &TileOp) {
        let (addr, value) = match op {
            TileOp::Load { addr, .. } => (addr, None),
            TileOp::Store { addr, value, .. } | TileOp::Atomic { addr, value, .. } => (addr, Some(value)),
            _ => return,
        };
        let Some(l) = self.locs.get(addr.name.as_str()).copied() else {
            self.err(
                span,
                ErrorKind::UndeclaredLocation,
                format!("tile `{}` is not declared; declare it with its elements, e.g. `{} = [0, 0];`", addr.name, addr.name),
            );
            return;
        };
        let len = match &l.init {
            Some(Value::Tile(v)) => v.len(),
            _ => 1,
        };
        if !matches!(l.kind, LocationKind::Global) {
            self.err(span, ErrorKind::WrongLocationKind, format!("tile `{}` must be global memory", addr.name));
        }
        let count = match &addr.elements {
            Some(es) => {
                if let Some(bad) = es.iter().find(|e| **e as usize >= len) {
                    self.err(
                        span,
                        ErrorKind::BadTile,
                        format!(
                            "element {bad} of `{}` does not exist: the tile has {len} element(s), 0 to {}",
                            addr.name,
                            len.saturating_sub(1)
                        ),
                    );
                }
                es.len()
            }
            None => len,
        };
        if let Some(TileValue::Tile(vs)) = value
            && vs.len() != count
        {
            self.err(
                span,
                ErrorKind::BadTile,
                format!("the value has {} element(s) but the access touches {count} element(s) of `{}`", vs.len(), addr.name),
            );
        }
    }

    fn check_condition(&mut self) {
        let p = self.p;
        let used: HashSet<&str> = p
            .threads
            .iter()
            .flat_map(|t| t.body.iter())
            .filter_map(|s| if let StmtKind::Instr(i) = &s.kind { Some(i) } else { None })
            .flat_map(addresses)
            .collect();
        let mut atoms = Vec::new();
        collect_atoms(&p.condition.prop, &mut atoms);
        for c in atoms {
            for term in [&c.lhs, &c.rhs] {
                match term {
                    Term::Reg { thread, reg } if self.thread(thread).is_none() => {
                        self.err(
                            c.span,
                            ErrorKind::BadOperand,
                            format!("the condition reads `{thread}:{reg}`, but there is no thread `{thread}`"),
                        );
                    }
                    Term::Loc { name, .. } if !self.locs.contains_key(name.as_str()) && !used.contains(name.as_str()) => {
                        self.err(
                            c.span,
                            ErrorKind::UndeclaredLocation,
                            format!("the condition reads location `{name}`, which is neither declared nor used by the program"),
                        );
                    }
                    _ => {}
                }
            }
        }
    }
}

fn collect_atoms<'a>(p: &'a Prop, out: &mut Vec<&'a Cmp>) {
    match p {
        Prop::True => {}
        Prop::Atom(c) => out.push(c),
        Prop::Not(a) => collect_atoms(a, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            collect_atoms(a, out);
            collect_atoms(b, out);
        }
    }
}

fn op_label(op: &Tcgen05) -> &'static str {
    match op {
        Tcgen05::Alloc { .. } => "tcgen05.alloc",
        Tcgen05::Dealloc { .. } => "tcgen05.dealloc",
        Tcgen05::RelinquishAllocPermit { .. } => "tcgen05.relinquish_alloc_permit",
        Tcgen05::Mma { .. } => "tcgen05.mma",
        Tcgen05::Cp { .. } => "tcgen05.cp",
        Tcgen05::Shift { .. } => "tcgen05.shift",
        Tcgen05::Ld { .. } => "tcgen05.ld",
        Tcgen05::St { .. } => "tcgen05.st",
        Tcgen05::Commit { .. } => "tcgen05.commit",
        Tcgen05::Wait { .. } => "tcgen05.wait",
        Tcgen05::Fence { .. } => "tcgen05.fence",
    }
}

fn op_reg(o: &Operand) -> Option<&str> {
    match o {
        Operand::Reg(r) => Some(r),
        Operand::Imm(_) => None,
    }
}

/// Registers an instruction reads.
pub fn reads(i: &Instr) -> Vec<&str> {
    let ops: Vec<&Operand> = match i {
        Instr::St(s) => vec![&s.src],
        Instr::Atom(a) => std::iter::once(&a.a).chain(a.b.as_ref()).collect(),
        Instr::Red(r) => vec![&r.a],
        Instr::Barrier(Barrier::Sync { operands, .. } | Barrier::Arrive { operands, .. }) => operands.iter().collect(),
        Instr::Mbarrier(Mbarrier::Init { count, .. }) => vec![count],
        Instr::Mbarrier(Mbarrier::Arrive(a)) => a.count.iter().collect(),
        Instr::Mbarrier(Mbarrier::ExpectTx { tx, .. }) => vec![tx],
        Instr::Mbarrier(Mbarrier::Wait(w)) => vec![&w.phase],
        Instr::CpAsyncBulk(c) => vec![&c.size],
        Instr::Tcgen05(t) => match t {
            Tcgen05::Alloc { ncols, .. } => vec![ncols],
            Tcgen05::Dealloc { taddr, region: None, ncols, .. } => vec![taddr, ncols],
            Tcgen05::Dealloc { ncols, .. } => vec![ncols],
            Tcgen05::Mma { acc, .. } => vec![acc],
            Tcgen05::St { src, .. } => vec![src],
            Tcgen05::Commit { multicast, .. } => multicast.iter().collect(),
            _ => vec![],
        },
        Instr::Mov { src, .. } => vec![src],
        Instr::Add { a, b, .. } | Instr::Branch { a, b, .. } | Instr::Assume { a, b, .. } => vec![a, b],
        Instr::Tile(TileOp::Store { value: TileValue::Reg(r), .. } | TileOp::Atomic { value: TileValue::Reg(r), .. }) => {
            return vec![r.as_str()];
        }
        _ => vec![],
    };
    ops.into_iter().filter_map(op_reg).collect()
}

/// Registers an instruction writes.
pub fn writes(i: &Instr) -> Vec<&str> {
    match i {
        Instr::Ld(l) => vec![&l.dst],
        Instr::Atom(a) => vec![&a.dst],
        Instr::Mov { dst, .. } | Instr::Add { dst, .. } => vec![dst],
        Instr::Mbarrier(Mbarrier::Arrive(a)) => vec![&a.state],
        Instr::Mbarrier(Mbarrier::Wait(w)) => vec![&w.dst],
        Instr::Tcgen05(Tcgen05::Ld { dst, .. }) => vec![dst],
        Instr::Tile(TileOp::Load { dst, .. } | TileOp::Atomic { dst, .. }) => vec![dst],
        _ => vec![],
    }
}

/// Location names an instruction's address operands use.
pub fn addresses(i: &Instr) -> Vec<&str> {
    match i {
        Instr::Ld(l) => vec![&l.addr.name],
        Instr::St(s) => vec![&s.addr.name],
        Instr::Atom(a) => vec![&a.addr.name],
        Instr::Red(r) => vec![&r.addr.name],
        Instr::CpAsyncBulk(c) => vec![&c.dst.name, &c.src.name],
        Instr::Tile(TileOp::Load { addr, .. } | TileOp::Store { addr, .. } | TileOp::Atomic { addr, .. }) => vec![&addr.name],
        Instr::Tcgen05(Tcgen05::Alloc { slot, .. }) => vec![&slot.name],
        _ => vec![],
    }
}

fn tile_deps(op: &TileOp) -> &[Token] {
    match op {
        TileOp::Load { deps, .. } | TileOp::Store { deps, .. } | TileOp::Atomic { deps, .. } | TileOp::JoinTokens { deps, .. } => deps,
        TileOp::MakeToken { .. } => &[],
    }
}

fn tile_token(op: &TileOp) -> Option<&str> {
    match op {
        TileOp::Load { token, .. } | TileOp::Store { token, .. } | TileOp::Atomic { token, .. } => token.as_deref(),
        TileOp::MakeToken { token } | TileOp::JoinTokens { token, .. } => Some(token),
    }
}
