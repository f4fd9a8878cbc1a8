//! Campaign generation: program `index` of campaign `seed` under a [`GeneratorConfig`].
//!
//! **Determinism (DESIGN §1, STYLE lesson 6).** A program is a pure function of `(campaign seed,
//! index, generator config)` — and, for the coverage-guided family, of the seed pool the caller
//! passes, which `tcfuzz fuzz` fixes per epoch of programs in index order (`cli/src/commands/fuzz`).
//! The index is mixed into the seed ([`program_seed`]), the result expanded into bytes with
//! splitmix64 ([`crate::random::seed_bytes`]), and every choice — the family, the random
//! generator, the pattern, each mutation — is read from those bytes through one
//! [`Unstructured`]: nothing depends on the machine, the thread that runs it or what ran before.
//!
//! The families ([`FamilyKind`]), weighted by the config:
//! - *random*: the generators of [`crate::random`] (every [`Family`]), wrapped: a PTX program
//!   whose condition is `exists (true)` gets one the generator predicts is interesting
//!   ([`condition`]), and some generic-memory programs are placed anew across clusters and GPUs;
//! - *pattern*: [`crate::pattern::pattern_program`];
//! - *mutant*: [`crate::pattern::mutant_program`], the mutation recorded in [`Origin::Mutant`];
//! - *coverage*: [`crate::mutate::mutate`] on the pool (a random program while it is empty).

pub(crate) mod condition;
pub mod config;

use std::fmt;

use arbitrary::Unstructured;
use tcfuzz_litmus::{Arch, Instr, LocationKind, Placement, Program, Prop, StmtKind};

pub use config::{ConfigError, CoverageKnobs, FamilyWeights, GeneratorConfig};

use crate::choose::{chance, weighted};
use crate::mutate::{Limits, SeedPool};
use crate::pattern::{Expect, Mutation, Pattern, mutant_program, pattern_program};
use crate::random::{Family, SEED_BYTES, from_unstructured, seed_bytes};

/// The four families of generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FamilyKind {
    Random,
    Pattern,
    Mutant,
    Coverage,
}

impl FamilyKind {
    pub const ALL: [FamilyKind; 4] = [FamilyKind::Random, FamilyKind::Pattern, FamilyKind::Mutant, FamilyKind::Coverage];

    pub fn name(self) -> &'static str {
        match self {
            FamilyKind::Random => "random",
            FamilyKind::Pattern => "pattern",
            FamilyKind::Mutant => "mutant",
            FamilyKind::Coverage => "coverage",
        }
    }
}

impl fmt::Display for FamilyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a program was made: what its verdict is judged against.
#[derive(Clone, Debug)]
pub enum Origin {
    Random {
        family: Family,
    },
    Pattern {
        pattern: Pattern,
        expect: Expect,
    },
    Mutant {
        pattern: Pattern,
        expect: Expect,
        mutation: Mutation,
    },
    /// Mutated from pool seeds (ids), by these edits.
    Coverage {
        seeds: Vec<u64>,
        edits: Vec<String>,
    },
}

impl Origin {
    pub fn family(&self) -> FamilyKind {
        match self {
            Origin::Random { .. } => FamilyKind::Random,
            Origin::Pattern { .. } => FamilyKind::Pattern,
            Origin::Mutant { .. } => FamilyKind::Mutant,
            Origin::Coverage { .. } => FamilyKind::Coverage,
        }
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Random { family } => write!(f, "random {family}"),
            Origin::Pattern { pattern, .. } => write!(f, "pattern {pattern}"),
            Origin::Mutant { mutation, .. } => write!(f, "mutant {mutation}"),
            Origin::Coverage { seeds, edits } => {
                let seeds: Vec<String> = seeds.iter().map(|s| format!("#{s}")).collect();
                write!(f, "coverage: seed {} mutated ({})", seeds.join(" + "), edits.join("; "))
            }
        }
    }
}

/// A generated program and how it was made.
#[derive(Clone, Debug)]
pub struct Generated {
    pub program: Program,
    pub origin: Origin,
}

/// The generator failed: always a bug in tcfuzz (any bytes give a program).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("[tcfuzz internal bug] program {index} of campaign seed {seed}: {message}")]
pub struct GenerateError {
    pub seed: u64,
    pub index: u64,
    pub message: String,
}

/// A configuration resolved once: the weights by family, random generator and pattern.
#[derive(Clone, Debug)]
pub struct Generator {
    config: GeneratorConfig,
    random: Vec<(u64, Family)>,
    patterns: Vec<(u64, Pattern)>,
}

impl Generator {
    pub fn new(config: GeneratorConfig) -> Result<Generator, ConfigError> {
        let random =
            config.random.iter().map(|(name, &w)| Ok((u64::from(w), name.parse::<Family>()?))).collect::<Result<Vec<_>, ConfigError>>()?;
        let patterns = config
            .patterns
            .iter()
            .map(|(name, &w)| Ok((u64::from(w), name.parse::<Pattern>()?)))
            .collect::<Result<Vec<_>, ConfigError>>()?;
        let fw = config.families;
        let any_random = random.iter().any(|(w, _)| *w > 0);
        let any_pattern = patterns.iter().any(|(w, _)| *w > 0);
        let nothing = |why: &str| Err(ConfigError::NothingToGenerate(why.to_string()));
        if fw.random + fw.pattern + fw.mutant + fw.coverage == 0 {
            return nothing("every family weighs 0");
        }
        if fw.random > 0 && !any_random {
            return nothing("the random family has weight but every random generator weighs 0");
        }
        if (fw.pattern > 0 || fw.mutant > 0) && !any_pattern {
            return nothing("the pattern or mutant family has weight but every pattern weighs 0");
        }
        if fw.coverage > 0 && !any_random {
            return nothing("the coverage family needs a random generator of weight > 0 while the seed pool is empty");
        }
        Ok(Generator { config, random, patterns })
    }

    pub fn config(&self) -> &GeneratorConfig {
        &self.config
    }

    /// Program `index` of the campaign of `seed`. Its name is `<origin>-<seed>-<index>`.
    pub fn generate(&self, seed: u64, index: u64, pool: &SeedPool) -> Result<Generated, GenerateError> {
        let bytes = seed_bytes(program_seed(seed, index), SEED_BYTES);
        let mut u = Unstructured::new(&bytes);
        let fail = |e: arbitrary::Error| GenerateError { seed, index, message: e.to_string() };
        let fw = self.config.families;
        let family = weighted(
            &mut u,
            &[
                (u64::from(fw.random), FamilyKind::Random),
                (u64::from(fw.pattern), FamilyKind::Pattern),
                (u64::from(fw.mutant), FamilyKind::Mutant),
                (u64::from(fw.coverage), FamilyKind::Coverage),
            ],
        )
        .map_err(fail)?
        .ok_or_else(|| GenerateError { seed, index, message: "no family to choose".into() })?;
        let (mut program, origin) = match family {
            FamilyKind::Random => self.random(&mut u).map_err(fail)?,
            FamilyKind::Pattern => {
                let pattern = self.pattern(&mut u).map_err(fail)?;
                let p = pattern_program(pattern, &mut u).map_err(fail)?;
                let expect = p.expect;
                (p.program, Origin::Pattern { pattern, expect })
            }
            FamilyKind::Mutant => {
                let pattern = self.pattern(&mut u).map_err(fail)?;
                let (original, program, mutation) = mutant_program(pattern, &mut u).map_err(fail)?;
                (program, Origin::Mutant { pattern, expect: original.expect, mutation })
            }
            FamilyKind::Coverage => {
                let k = self.config.coverage;
                let limits = Limits { edits: k.edits, max_threads: k.max_threads, max_instructions: k.max_instructions };
                match crate::mutate::mutate(pool, limits, &mut u).map_err(fail)? {
                    Some(m) => (m.program, Origin::Coverage { seeds: m.seeds, edits: m.edits }),
                    None => self.random(&mut u).map_err(fail)?,
                }
            }
        };
        let base = match &origin {
            Origin::Random { family } => format!("random-{family}"),
            Origin::Pattern { pattern, .. } => format!("pattern-{pattern}"),
            Origin::Mutant { pattern, .. } => format!("mutant-{pattern}"),
            Origin::Coverage { .. } => "coverage".to_string(),
        };
        program.name = format!("{base}-{seed}-{index}");
        program.comments.clear();
        program.docs.clear();
        // Read back from its text, as a corpus keeps it, so that every instruction has a source
        // position of its own. The generators leave them all at 0:0, and a race names its two
        // accesses by position as well as by index: two instructions that take one index in
        // different executions (after a `cas` whose write half is absent) were one race in the
        // program checked and two in the program recorded, whose explorer-vs-oracle signature
        // the minimizer then never found again (`tcfuzz fuzz --seed 9`, program 1154).
        let program = tcfuzz_litmus::parse(&tcfuzz_litmus::print(&program)).map_err(|d| GenerateError {
            seed,
            index,
            message: format!("the printed program does not parse back: {}", d.render("generated")),
        })?;
        Ok(Generated { program, origin })
    }

    fn pattern(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Pattern> {
        weighted(u, &self.patterns)?.ok_or(arbitrary::Error::EmptyChoose)
    }

    /// A program of a random generator, with the wrapper's knobs applied.
    fn random(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<(Program, Origin)> {
        let family = weighted(u, &self.random)?.ok_or(arbitrary::Error::EmptyChoose)?;
        let mut p = from_unstructured(family, u)?;
        if self.config.spread_placements > 0 && chance(u, self.config.spread_placements)? {
            spread(u, &mut p)?;
        }
        if self.config.interesting_conditions
            && p.condition.prop == Prop::True
            && let Some(c) = condition::interesting(&p, u)?
        {
            p.condition = c;
        }
        Ok((p, Origin::Random { family }))
    }
}

/// The seed of program `index` of the campaign of `seed`: splitmix64's finalizer over the two,
/// so that neighbouring indices give unrelated byte streams.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Places the threads of a generic-memory PTX program anew (global locations only, no barrier of
/// any kind, nothing asynchronous): all CTAs in cluster 0, or one thread moved to GPU 1. A
/// program that would not validate is left as it was.
fn spread(u: &mut Unstructured<'_>, p: &mut Program) -> arbitrary::Result<()> {
    let generic = p.arch == Arch::Ptx
        && p.locations.iter().all(|l| l.kind == LocationKind::Global)
        && p.threads.iter().flat_map(|t| &t.body).all(|s| {
            !matches!(&s.kind, StmtKind::Instr(Instr::Barrier(_) | Instr::Mbarrier(_) | Instr::CpAsyncBulk(_) | Instr::Tcgen05(_)))
        });
    if !generic || p.threads.is_empty() {
        return Ok(());
    }
    let before = p.clone();
    if chance(u, 50)? {
        for t in &mut p.threads {
            if let Placement::Ptx { cluster, .. } = &mut t.placement {
                *cluster = Some(0);
            }
        }
    } else {
        let k = crate::choose::index(u, p.threads.len())?;
        if let Placement::Ptx { gpu, .. } = &mut p.threads[k].placement {
            *gpu = 1;
        }
    }
    if tcfuzz_litmus::validate(p).is_err() {
        *p = before;
    }
    Ok(())
}
