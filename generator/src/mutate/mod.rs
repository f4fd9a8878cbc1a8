//! The coverage-guided family: a program of the seed pool (the programs that reached a coverage
//! feature first), mutated — an instruction inserted ([`choice::ChoiceTable`] picks its class
//! next to one the program has, as syzkaller's `prog/prio.go` does), deleted, swapped with its
//! neighbour, or given another ordering, scope or operation; an access routed through a proxy
//! alias of its location; an mbarrier initialised by a thread or Tensor Memory allocated and
//! freed in one ([`lifecycle`]: instructions only this family writes); a thread moved; a thread
//! of another seed spliced in; the condition drawn anew.
//!
//! Seeds are chosen by rarity: a seed weighs the sum over the features it was first to reach of
//! `1 / (how often the campaign has seen the feature)`, scaled by `8 / (8 + its statements)`, so
//! the seeds behind rarely reached features are mutated most, the small ones first.
//!
//! A mutated program is a function of the seed pool and the choices: with the same pool (the
//! caller fixes it per batch of programs) and the same bytes, the same program.

pub mod choice;
pub(crate) mod edit;
pub(crate) mod insert;
pub(crate) mod lifecycle;
pub(crate) mod proxy;

use std::collections::HashMap;

use arbitrary::Unstructured;
use tcfuzz_litmus::{Program, Span, Stmt, StmtKind, ThreadKind};

use crate::choose::{index, weighted, weighted_index};
use choice::{ChoiceTable, OpClass};

/// A program of the pool with the features it was first to reach.
#[derive(Clone, Debug)]
pub struct PoolSeed {
    /// The seed's id in the corpus (reported with the programs made from it).
    pub id: u64,
    pub program: Program,
    pub features: Vec<String>,
}

/// The seeds coverage-guided generation mutates, with their rarity weights and the choice table.
#[derive(Clone, Debug)]
pub struct SeedPool {
    seeds: Vec<PoolSeed>,
    weights: Vec<u64>,
    table: ChoiceTable,
}

impl Default for SeedPool {
    fn default() -> Self {
        SeedPool::new(Vec::new(), &HashMap::new())
    }
}

impl SeedPool {
    /// The pool of `seeds`; `counts` says how often each feature was seen (a feature missing
    /// from it counts as seen once).
    pub fn new(seeds: Vec<PoolSeed>, counts: &HashMap<String, u64>) -> SeedPool {
        let weights = seeds
            .iter()
            .map(|s| {
                let rarity: u64 = s.features.iter().map(|f| 1_000_000 / counts.get(f).copied().unwrap_or(1).max(1)).sum();
                // Of two seeds as rare, the smaller is mutated more (AFL favours the smallest
                // entry per feature): mutants of large programs mostly cost time.
                let size = s.program.threads.iter().flat_map(|t| &t.body).count() as u64;
                (rarity * 8 / (8 + size)).max(1)
            })
            .collect();
        let table = ChoiceTable::new(seeds.iter().map(|s| &s.program));
        SeedPool { seeds, weights, table }
    }

    pub fn len(&self) -> usize {
        self.seeds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seeds.is_empty()
    }

    pub fn seeds(&self) -> &[PoolSeed] {
        &self.seeds
    }

    pub fn table(&self) -> &ChoiceTable {
        &self.table
    }

    fn pick(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<&PoolSeed>> {
        Ok(weighted_index(u, &self.weights)?.map(|i| &self.seeds[i]))
    }
}

/// Bounds on what mutation may grow a program to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most edits per program (at least one is made).
    pub edits: u32,
    pub max_threads: usize,
    pub max_instructions: usize,
}

/// A mutated seed and how it was made.
#[derive(Clone, Debug)]
pub struct Mutated {
    pub program: Program,
    /// Ids of the seeds it was made from (the mutated one, then any spliced in).
    pub seeds: Vec<u64>,
    /// The edits, in order (`insert ld in P1`, `splice P0 of ... as P2`).
    pub edits: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
enum Edit {
    Insert,
    Delete,
    Swap,
    Requalify,
    Proxy,
    Lifecycle,
    Move,
    Splice,
    Condition,
}

/// Tries to make a valid mutant of a pool seed; `None` when the pool is empty or no attempt gave
/// a valid program within the limits. A seed already past the limits (a pattern program, a long
/// `assume` program) may still be mutated, as long as the mutant grows no larger than the seed:
/// checking it then costs about what checking the seed did, and the edits that do not grow a
/// program (swaps, requalifications, deletions) are most of what can explain such a seed.
pub fn mutate(pool: &SeedPool, limits: Limits, u: &mut Unstructured<'_>) -> arbitrary::Result<Option<Mutated>> {
    const ATTEMPTS: usize = 8;
    for _ in 0..ATTEMPTS {
        let Some(seed) = pool.pick(u)? else { return Ok(None) };
        let max_threads = limits.max_threads.max(seed.program.threads.len());
        let max_instructions = limits.max_instructions.max(instruction_count(&seed.program));
        let mut p = seed.program.clone();
        p.comments.clear();
        let mut seeds = vec![seed.id];
        let mut edits = Vec::new();
        let n = u.int_in_range(1..=limits.edits.max(1))?;
        for _ in 0..n {
            let edit = weighted(
                u,
                &[
                    (30, Edit::Insert),
                    (15, Edit::Delete),
                    (10, Edit::Swap),
                    (25, Edit::Requalify),
                    (5, Edit::Proxy),
                    (4, Edit::Lifecycle),
                    (10, Edit::Move),
                    (10, Edit::Splice),
                    (10, Edit::Condition),
                ],
            )?
            .unwrap_or(Edit::Insert);
            let done = match edit {
                Edit::Insert => insert(u, &mut p, &pool.table)?,
                Edit::Delete => edit::delete(u, &mut p)?,
                Edit::Swap => edit::swap(u, &mut p)?,
                Edit::Requalify => edit::requalify(u, &mut p)?,
                Edit::Proxy => proxy::route(u, &mut p)?,
                Edit::Lifecycle => lifecycle::lifecycle(u, &mut p)?,
                Edit::Move => edit::move_thread(u, &mut p)?,
                Edit::Splice => match pool.pick(u)? {
                    Some(donor) => {
                        let done = edit::splice(u, &mut p, &donor.program, max_threads)?;
                        if done.is_some() {
                            seeds.push(donor.id);
                        }
                        done
                    }
                    None => None,
                },
                Edit::Condition => crate::generate::condition::interesting(&p, u)?.map(|c| {
                    p.condition = c;
                    "condition".to_string()
                }),
            };
            edits.extend(done);
        }
        let size = instruction_count(&p);
        if edits.is_empty() || p.threads.len() > max_threads || size > max_instructions || size == 0 {
            continue;
        }
        if tcfuzz_litmus::validate(&p).is_ok() {
            return Ok(Some(Mutated { program: p, seeds, edits }));
        }
        // An edit left a register read before it is written, a scope on a weak access, ...: the
        // next attempt starts from a seed again.
    }
    Ok(None)
}

/// The instructions of `p` (labels excluded).
fn instruction_count(p: &Program) -> usize {
    p.threads.iter().flat_map(|t| &t.body).filter(|s| matches!(s.kind, StmtKind::Instr(_))).count()
}

/// Inserts one instruction (two for a cluster barrier) of a class the choice table picks next to
/// a random instruction of the program, at a random place of a thread of the right kind.
fn insert(u: &mut Unstructured<'_>, p: &mut Program, table: &ChoiceTable) -> arbitrary::Result<Option<String>> {
    if p.threads.is_empty() {
        return Ok(None);
    }
    let all = edit::instructions(p);
    let anchor = if all.is_empty() {
        None
    } else {
        let (t, i) = all[index(u, all.len())?];
        match &p.threads[t].body[i].kind {
            StmtKind::Instr(x) => Some(OpClass::of(x)),
            StmtKind::Label(_) => None,
        }
    };
    let t = index(u, p.threads.len())?;
    let tile = p.threads[t].kind() == ThreadKind::TileBlock;
    let objects = insert::Objects::of(p);
    let allowed = |c: OpClass| {
        let tile_class = matches!(c, OpClass::TileLd | OpClass::TileSt | OpClass::TileAtom);
        tile_class == tile && c.needs().iter().all(|&o| objects.has(o))
    };
    let Some(class) = table.choose(u, anchor, allowed)? else { return Ok(None) };
    let instrs = insert::build(u, class, &objects, &p.threads[t])?;
    if instrs.is_empty() {
        return Ok(None);
    }
    let at = u.int_in_range(0..=p.threads[t].body.len())?;
    let body = &mut p.threads[t].body;
    for (k, i) in instrs.into_iter().enumerate() {
        body.insert(at + k, Stmt { span: Span::default(), kind: StmtKind::Instr(i) });
    }
    Ok(Some(format!("insert {class:?} in {}", p.threads[t].name)))
}
