//! Which instruction to insert next: a choice table in the manner of syzkaller's `prog/prio.go`.
//!
//! For a pair of instruction classes X and Y, the priority is a guess at whether adding a Y to a
//! program that has an X reaches new behaviour. It has two parts, multiplied:
//! - *static*: X and Y touch the same kind of object (a location of generic memory, shared
//!   memory, an mbarrier, Tensor Memory, a tile, a barrier), a writer before a reader weighing
//!   more than a reader before a writer — a store next to a load makes a race or a message, an
//!   arrive next to a wait makes a handoff;
//! - *dynamic*: how often X and Y occur together in the programs of the seed pool (the programs
//!   that added coverage).
//!
//! Each row is normalized to 0.1–1 (a pair never seen still gets a chance), and a class with
//! itself gets 0.9, as in prio.go. [`ChoiceTable::choose`] picks Y for a given X by these
//! weights, among the classes the program has objects for.

use arbitrary::Unstructured;
use tcfuzz_litmus::{Barrier, Fence, Instr, Mbarrier, Program, StmtKind, Tcgen05, TileOp};

use crate::choose::weighted_index;

/// A class of instruction, as the choice table and coverage see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpClass {
    Ld,
    St,
    Atom,
    Red,
    FenceSc,
    FenceAcqRel,
    FenceProxyAsync,
    BarSync,
    ClusterBarrier,
    MbarArrive,
    MbarWait,
    BulkCopy,
    TcMma,
    TcLd,
    TcSt,
    TcCommit,
    TcWait,
    TcFence,
    TileLd,
    TileSt,
    TileAtom,
    /// Register arithmetic, branches, `assume`, token plumbing, allocation: present in
    /// programs, never inserted.
    Other,
}

/// The objects an instruction class acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    Memory,
    Shared,
    Mbarrier,
    Tmem,
    Tile,
    Barrier,
}

impl OpClass {
    /// The classes [`ChoiceTable::choose`] may pick (not [`OpClass::Other`]).
    pub const INSERTABLE: [OpClass; 21] = [
        OpClass::Ld,
        OpClass::St,
        OpClass::Atom,
        OpClass::Red,
        OpClass::FenceSc,
        OpClass::FenceAcqRel,
        OpClass::FenceProxyAsync,
        OpClass::BarSync,
        OpClass::ClusterBarrier,
        OpClass::MbarArrive,
        OpClass::MbarWait,
        OpClass::BulkCopy,
        OpClass::TcMma,
        OpClass::TcLd,
        OpClass::TcSt,
        OpClass::TcCommit,
        OpClass::TcWait,
        OpClass::TcFence,
        OpClass::TileLd,
        OpClass::TileSt,
        OpClass::TileAtom,
    ];

    pub fn of(i: &Instr) -> OpClass {
        match i {
            Instr::Ld(_) => OpClass::Ld,
            Instr::St(_) => OpClass::St,
            Instr::Atom(_) => OpClass::Atom,
            Instr::Red(_) => OpClass::Red,
            Instr::Fence(Fence::Sc(_) | Fence::Membar(_)) => OpClass::FenceSc,
            Instr::Fence(Fence::AcqRel(_)) => OpClass::FenceAcqRel,
            Instr::Fence(Fence::ProxyAsync(_)) => OpClass::FenceProxyAsync,
            Instr::Fence(Fence::Proxy(_)) => OpClass::Other,
            Instr::Barrier(Barrier::Sync { .. } | Barrier::Arrive { .. }) => OpClass::BarSync,
            Instr::Barrier(Barrier::ClusterArrive { .. } | Barrier::ClusterWait { .. }) => OpClass::ClusterBarrier,
            Instr::Mbarrier(Mbarrier::Arrive(_) | Mbarrier::ExpectTx { .. } | Mbarrier::Init { .. }) => OpClass::MbarArrive,
            Instr::Mbarrier(Mbarrier::Wait(_)) => OpClass::MbarWait,
            Instr::CpAsyncBulk(_) => OpClass::BulkCopy,
            Instr::Tcgen05(t) => match t {
                Tcgen05::Mma { .. } | Tcgen05::Cp { .. } | Tcgen05::Shift { .. } => OpClass::TcMma,
                Tcgen05::Ld { .. } => OpClass::TcLd,
                Tcgen05::St { .. } => OpClass::TcSt,
                Tcgen05::Commit { .. } => OpClass::TcCommit,
                Tcgen05::Wait { .. } => OpClass::TcWait,
                Tcgen05::Fence { .. } => OpClass::TcFence,
                Tcgen05::Alloc { .. } | Tcgen05::Dealloc { .. } | Tcgen05::RelinquishAllocPermit { .. } => OpClass::Other,
            },
            Instr::Tile(t) => match t {
                TileOp::Load { .. } => OpClass::TileLd,
                TileOp::Store { .. } => OpClass::TileSt,
                TileOp::Atomic { .. } => OpClass::TileAtom,
                TileOp::MakeToken { .. } | TileOp::JoinTokens { .. } => OpClass::Other,
            },
            _ => OpClass::Other,
        }
    }

    /// The objects the class acts on, each with how it uses it: `(object, reads, writes)`
    /// (prio.go's `in` / `inout`).
    fn uses(self) -> &'static [(Object, f32, f32)] {
        use Object::*;
        match self {
            OpClass::Ld => &[(Memory, 1.0, 0.0), (Shared, 1.0, 0.0)],
            OpClass::St | OpClass::Red => &[(Memory, 0.0, 1.0), (Shared, 0.0, 1.0)],
            OpClass::Atom => &[(Memory, 1.0, 1.0), (Shared, 1.0, 1.0)],
            OpClass::FenceSc | OpClass::FenceAcqRel => &[(Memory, 0.5, 0.5)],
            OpClass::FenceProxyAsync => &[(Shared, 0.5, 0.5)],
            OpClass::BarSync | OpClass::ClusterBarrier => &[(Barrier, 1.0, 1.0), (Memory, 0.3, 0.3)],
            OpClass::MbarArrive => &[(Mbarrier, 0.0, 1.0)],
            OpClass::MbarWait => &[(Mbarrier, 1.0, 0.0)],
            OpClass::BulkCopy => &[(Shared, 0.0, 1.0), (Memory, 1.0, 0.0), (Mbarrier, 0.0, 1.0)],
            OpClass::TcMma => &[(Tmem, 1.0, 1.0), (Shared, 1.0, 0.0)],
            OpClass::TcLd => &[(Tmem, 1.0, 0.0)],
            OpClass::TcSt => &[(Tmem, 0.0, 1.0)],
            OpClass::TcCommit => &[(Mbarrier, 0.0, 1.0), (Tmem, 0.5, 0.0)],
            OpClass::TcWait | OpClass::TcFence => &[(Tmem, 0.5, 0.5)],
            OpClass::TileLd => &[(Tile, 1.0, 0.0)],
            OpClass::TileSt => &[(Tile, 0.0, 1.0)],
            OpClass::TileAtom => &[(Tile, 1.0, 1.0)],
            OpClass::Other => &[],
        }
    }

    /// The objects an instance needs to exist in the program (all of them).
    pub fn needs(self) -> &'static [Object] {
        use Object::*;
        match self {
            OpClass::Ld | OpClass::St | OpClass::Atom | OpClass::Red => &[Memory],
            OpClass::FenceProxyAsync => &[Shared],
            OpClass::MbarArrive | OpClass::MbarWait => &[Mbarrier],
            OpClass::BulkCopy => &[Shared, Memory, Mbarrier],
            OpClass::TcMma => &[Tmem, Shared],
            OpClass::TcLd | OpClass::TcSt | OpClass::TcWait | OpClass::TcFence => &[Tmem],
            OpClass::TcCommit => &[Mbarrier, Tmem],
            OpClass::TileLd | OpClass::TileSt | OpClass::TileAtom => &[Tile],
            OpClass::FenceSc | OpClass::FenceAcqRel | OpClass::BarSync | OpClass::ClusterBarrier | OpClass::Other => &[],
        }
    }

    fn index(self) -> usize {
        OpClass::INSERTABLE.iter().position(|&c| c == self).unwrap_or(OpClass::INSERTABLE.len())
    }
}

const N: usize = OpClass::INSERTABLE.len();

/// Priorities between instruction classes and the choice among them.
#[derive(Clone, Debug)]
pub struct ChoiceTable {
    prio: Vec<[f32; N]>,
}

impl ChoiceTable {
    /// The table for a seed pool of `programs` (empty: the static priorities alone).
    pub fn new<'a>(programs: impl IntoIterator<Item = &'a Program>) -> ChoiceTable {
        let mut static_prio = vec![[0f32; N]; N];
        for (x, cx) in OpClass::INSERTABLE.iter().enumerate() {
            for (y, cy) in OpClass::INSERTABLE.iter().enumerate() {
                if x == y {
                    continue;
                }
                for &(ox, rx, wx) in cx.uses() {
                    for &(oy, ry, wy) in cy.uses() {
                        if ox == oy {
                            // A writer then a reader first, then writers of one object.
                            static_prio[x][y] += wx * ry + 0.7 * wx.max(rx) * wy.max(ry);
                        }
                    }
                }
            }
        }
        normalize(&mut static_prio);
        for (x, row) in static_prio.iter_mut().enumerate() {
            row[x] = 0.9;
        }
        let mut dynamic = vec![[0f32; N]; N];
        for p in programs {
            let classes: Vec<usize> = p
                .threads
                .iter()
                .flat_map(|t| &t.body)
                .filter_map(|s| match &s.kind {
                    StmtKind::Instr(i) => Some(OpClass::of(i).index()),
                    StmtKind::Label(_) => None,
                })
                .filter(|&i| i < N)
                .collect();
            for (k, &a) in classes.iter().enumerate() {
                for &b in &classes[k + 1..] {
                    dynamic[a][b] += 1.0;
                }
            }
        }
        normalize(&mut dynamic);
        for (d, s) in dynamic.iter_mut().zip(&static_prio) {
            for (dv, sv) in d.iter_mut().zip(s) {
                *dv *= sv;
            }
        }
        ChoiceTable { prio: dynamic }
    }

    /// The priority of inserting `y` into a program with an `x`.
    pub fn priority(&self, x: OpClass, y: OpClass) -> f32 {
        match (self.prio.get(x.index()), y.index()) {
            (Some(row), j) if j < N => row[j],
            _ => 0.0,
        }
    }

    /// A class to insert next to an instruction of class `anchor` (any class when `None` or
    /// [`OpClass::Other`]), among those `allowed` accepts. `None` when none is allowed.
    pub fn choose(
        &self,
        u: &mut Unstructured<'_>,
        anchor: Option<OpClass>,
        allowed: impl Fn(OpClass) -> bool,
    ) -> arbitrary::Result<Option<OpClass>> {
        let row = anchor.and_then(|a| self.prio.get(a.index()));
        let weights: Vec<u64> = OpClass::INSERTABLE
            .iter()
            .enumerate()
            .map(|(j, &c)| if !allowed(c) { 0 } else { row.map_or(1000, |r| (r[j] * 1000.0) as u64).max(1) })
            .collect();
        Ok(weighted_index(u, &weights)?.map(|j| OpClass::INSERTABLE[j]))
    }
}

/// prio.go's normalization: per row, a zero becomes half the smallest non-zero value divided by
/// the number of zeros, then everything is scaled into 0.1–1; a row of equal values becomes 1s.
fn normalize(prio: &mut [[f32; N]]) {
    for row in prio {
        let max = row.iter().copied().fold(0f32, f32::max);
        let zeros = row.iter().filter(|&&p| p == 0.0).count();
        let mut min = row.iter().copied().filter(|&p| p != 0.0).fold(f32::INFINITY, f32::min);
        if zeros > 0 && min.is_finite() {
            min /= 2.0 * zeros as f32;
        }
        if !min.is_finite() || min >= max {
            row.iter_mut().for_each(|p| *p = 1.0);
            continue;
        }
        for p in row.iter_mut() {
            let v = if *p == 0.0 { min } else { *p };
            *p = ((v - min) / (max - min) * 0.9 + 0.1).min(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_prefers_a_load_to_a_tensor_core_op() {
        let t = ChoiceTable::new([]);
        assert!(t.priority(OpClass::St, OpClass::Ld) > t.priority(OpClass::St, OpClass::TcLd));
        assert!(t.priority(OpClass::MbarArrive, OpClass::MbarWait) > t.priority(OpClass::MbarArrive, OpClass::TileSt));
        assert_eq!(t.priority(OpClass::Ld, OpClass::Ld), 0.9);
    }

    #[test]
    fn rows_are_normalized_into_a_tenth_to_one() {
        let t = ChoiceTable::new([]);
        for x in OpClass::INSERTABLE {
            for y in OpClass::INSERTABLE {
                let p = t.priority(x, y);
                assert!((0.0..=1.0).contains(&p) && p > 0.0, "{x:?} → {y:?}: {p}");
            }
        }
    }

    #[test]
    fn only_allowed_classes_are_chosen() {
        let t = ChoiceTable::new([]);
        let bytes: Vec<u8> = (0..=255).collect();
        let mut u = Unstructured::new(&bytes);
        for _ in 0..50 {
            let c = t.choose(&mut u, Some(OpClass::St), |c| matches!(c, OpClass::Ld | OpClass::Atom)).unwrap();
            assert!(matches!(c, Some(OpClass::Ld | OpClass::Atom)), "{c:?}");
        }
        assert_eq!(t.choose(&mut u, None, |_| false).unwrap(), None);
    }
}
