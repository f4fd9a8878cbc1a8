//! The stress harness's parameters and the host side of one launch: which groups of CTAs run
//! which instance, where each instance's locations live, what the control block says.
//!
//! The techniques are GPUHarbor's / MC Mutants' (Levine et al.; read, not copied): many instances
//! per launch; a random number of stressing groups beside the testing ones; the group → instance
//! assignment shuffled; a spin barrier so the testing threads start together; memory stress
//! (stressing CTAs hammering lines of a scratch buffer in one of four access patterns, and a
//! short pre-stress by the testing warps); locations spread with a stride and permuted across
//! instances. A fixed seed reproduces every choice the host makes.

use crate::Layout;
use crate::layout::*;

/// A small, fast, seedable generator (SplitMix64): the harness needs reproducible choices, not
/// cryptographic ones.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        if hi <= lo { lo } else { lo + (self.next_u64() % u64::from(hi - lo + 1)) as u32 }
    }

    /// True with probability `pct` percent.
    pub fn percent(&mut self, pct: u32) -> bool {
        (self.next_u64() % 100) < u64::from(pct)
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// How instances' locations are laid out in the memory buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Spread {
    /// Location `l` of every instance together: `l`'s slots form one region (`(l·N + π(i))·stride`).
    ByLocation,
    /// An instance's locations side by side (`(π(i)·L + l)·stride`): they may share cache lines.
    ByInstance,
}

/// One configuration of the harness (GPUHarbor's parameter names where they exist).
#[derive(Clone, Debug, serde::Serialize)]
pub struct StressParams {
    /// Test instances per launch ("testing workgroups", in groups of `ctas_per_instance` CTAs).
    pub instances: u32,
    /// Extra groups that only stress memory.
    pub stress_groups: u32,
    /// Percent chance that a launch shuffles which group runs which instance ("shufflePct").
    pub shuffle_pct: u32,
    /// Percent chance that a launch makes the testing warps meet a spin barrier ("barrierPct").
    pub barrier_pct: u32,
    /// Slots between neighbouring locations ("memStride").
    pub mem_stride: u32,
    pub spread: Spread,
    /// Permute instances over their slots ("permuteThread"; a fresh permutation per launch).
    pub permute: bool,
    /// Memory-stress iterations of each stressing CTA ("memStressIterations").
    pub stress_iters: u32,
    /// 0 store-store, 1 store-load, 2 load-store, 3 load-load ("memStressPattern").
    pub stress_pattern: u32,
    /// Lines of the scratch buffer the stress targets ("stressTargetLines").
    pub stress_lines: u32,
    /// Words per stressed line ("stressLineSize", in 4-byte words).
    pub stress_line_words: u32,
    /// Iterations of stress each testing warp does first ("preStressIterations").
    pub pre_stress: u32,
    /// Backward jumps a thread may take before it gives up (never a state; counted unfinished).
    pub loop_cap: u32,
}

impl StressParams {
    /// No stress: instances side by side, no shuffling, barrier or stress groups.
    pub fn plain(instances: u32) -> StressParams {
        StressParams {
            instances,
            stress_groups: 0,
            shuffle_pct: 0,
            barrier_pct: 0,
            mem_stride: 1,
            spread: Spread::ByInstance,
            permute: false,
            stress_iters: 0,
            stress_pattern: 0,
            stress_lines: 1,
            stress_line_words: 1,
            pre_stress: 0,
            loop_cap: 1 << 20,
        }
    }

    /// A stressed configuration: GPUHarbor's defaults for a "stress" run, scaled to `instances`.
    pub fn stressed(instances: u32, stress_groups: u32) -> StressParams {
        StressParams {
            instances,
            stress_groups,
            shuffle_pct: 100,
            barrier_pct: 100,
            mem_stride: 4,
            spread: Spread::ByLocation,
            permute: true,
            stress_iters: 1024,
            stress_pattern: 2,
            stress_lines: 64,
            stress_line_words: 16,
            pre_stress: 128,
            loop_cap: 1 << 20,
        }
    }

    /// A random configuration for tuning, at most `max_groups` groups in all.
    pub fn random(rng: &mut Rng, max_groups: u32) -> StressParams {
        let max_groups = max_groups.max(1);
        let instances = rng.range((max_groups / 4).max(1), max_groups);
        let stress_groups = rng.range(0, max_groups - instances);
        StressParams {
            instances,
            stress_groups,
            shuffle_pct: rng.range(0, 100),
            barrier_pct: rng.range(0, 100),
            mem_stride: 1 << rng.range(0, 5),
            spread: if rng.percent(50) { Spread::ByLocation } else { Spread::ByInstance },
            permute: rng.percent(50),
            stress_iters: rng.range(0, 2048),
            stress_pattern: rng.range(0, 3),
            stress_lines: rng.range(1, 1024),
            stress_line_words: 1 << rng.range(0, 6),
            pre_stress: if rng.percent(50) { rng.range(0, 256) } else { 0 },
            loop_cap: 1 << 20,
        }
    }

    pub fn groups(&self) -> u32 {
        self.instances + self.stress_groups
    }

    /// These parameters with the fields `overrides` names replaced.
    pub fn with(mut self, overrides: &StressOverrides) -> StressParams {
        let o = overrides;
        let fields = [
            (&mut self.instances, o.instances),
            (&mut self.stress_groups, o.stress_groups),
            (&mut self.shuffle_pct, o.shuffle_pct),
            (&mut self.barrier_pct, o.barrier_pct),
            (&mut self.mem_stride, o.mem_stride),
            (&mut self.stress_iters, o.stress_iters),
            (&mut self.stress_pattern, o.stress_pattern),
            (&mut self.stress_lines, o.stress_lines),
            (&mut self.stress_line_words, o.stress_line_words),
            (&mut self.pre_stress, o.pre_stress),
            (&mut self.loop_cap, o.loop_cap),
        ];
        for (field, value) in fields {
            if let Some(v) = value {
                *field = v;
            }
        }
        self.spread = o.spread.unwrap_or(self.spread);
        self.permute = o.permute.unwrap_or(self.permute);
        self
    }

    /// Words of the stress buffer the configuration can touch.
    pub fn stress_words(&self) -> usize {
        (self.stress_lines.max(1) as usize) * (self.stress_line_words.max(1) as usize)
    }

    /// Slots of the memory buffer.
    pub fn slots(&self, layout: &Layout) -> usize {
        self.instances as usize * layout.globals.len().max(1) * self.mem_stride.max(1) as usize
    }
}

/// Some of [`StressParams`]' fields, by the same names (`tcfuzz gpu run --stress-config FILE`
/// reads them from JSON; an unknown name is an error): a fixed configuration is the stress
/// defaults with these replaced ([`StressParams::with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StressOverrides {
    pub instances: Option<u32>,
    pub stress_groups: Option<u32>,
    pub shuffle_pct: Option<u32>,
    pub barrier_pct: Option<u32>,
    pub mem_stride: Option<u32>,
    pub spread: Option<Spread>,
    pub permute: Option<bool>,
    pub stress_iters: Option<u32>,
    pub stress_pattern: Option<u32>,
    pub stress_lines: Option<u32>,
    pub stress_line_words: Option<u32>,
    pub pre_stress: Option<u32>,
    pub loop_cap: Option<u32>,
}

/// The host's buffers for one launch.
pub struct LaunchData {
    pub ctl: Vec<u32>,
    pub mem: Vec<u8>,
    /// Per instance, per global location: its slot (to read final values back).
    pub slots: Vec<u32>,
}

/// Builds the control block and the initial memory for one launch.
pub fn launch_data(layout: &Layout, p: &StressParams, rng: &mut Rng) -> LaunchData {
    let n = p.instances as usize;
    let g = p.groups() as usize;
    let nl = layout.globals.len();
    let stride = p.mem_stride.max(1) as usize;
    let mut ctl = vec![0u32; layout.ctl_words(g, n)];
    ctl[CTL_INSTANCES] = p.instances;
    ctl[CTL_BARRIER] = u32::from(rng.percent(p.barrier_pct));
    ctl[CTL_BARRIER_COUNT] = 0;
    ctl[CTL_BARRIER_TARGET] = p.instances * layout.ctas_per_instance * layout.block_threads / 32;
    ctl[CTL_LOOP_CAP] = p.loop_cap;
    ctl[CTL_STRESS_ITERS] = p.stress_iters;
    ctl[CTL_STRESS_PATTERN] = p.stress_pattern;
    ctl[CTL_STRESS_LINES] = p.stress_lines.max(1);
    ctl[CTL_STRESS_LINE_WORDS] = p.stress_line_words.max(1);
    ctl[CTL_PRE_STRESS] = p.pre_stress;
    ctl[CTL_SEED] = rng.next_u64() as u32;
    // Groups: the first `instances` run instances 0..n, the rest stress; shuffled as a whole.
    let mut groups: Vec<u32> = (0..n as u32).chain(std::iter::repeat_n(STRESS, g - n)).collect();
    if rng.percent(p.shuffle_pct) {
        rng.shuffle(&mut groups);
    }
    ctl[CTL_GROUPS..CTL_GROUPS + g].copy_from_slice(&groups);
    let mut perm: Vec<usize> = (0..n).collect();
    if p.permute {
        rng.shuffle(&mut perm);
    }
    let mut slots = vec![0u32; n * nl];
    for i in 0..n {
        for l in 0..nl {
            let base = match p.spread {
                Spread::ByLocation => l * n + perm[i],
                Spread::ByInstance => perm[i] * nl + l,
            };
            slots[i * nl + l] = (base * stride) as u32;
        }
    }
    ctl[CTL_GROUPS + g..].copy_from_slice(&slots);
    let slot_bytes = layout.slot_bytes as usize;
    let mut mem = vec![0u8; p.slots(layout) * slot_bytes];
    for i in 0..n {
        for (l, (_, init, wide)) in layout.globals.iter().enumerate() {
            let at = slots[i * nl + l] as usize * slot_bytes;
            if *wide {
                mem[at..at + 8].copy_from_slice(&init.to_le_bytes());
            } else {
                mem[at..at + 4].copy_from_slice(&(*init as i32).to_le_bytes());
            }
        }
    }
    LaunchData { ctl, mem, slots }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_exactly_the_fields_they_name() {
        let base = StressParams::stressed(100, 20);
        assert_eq!(format!("{:?}", base.clone().with(&StressOverrides::default())), format!("{base:?}"));
        let o =
            StressOverrides { barrier_pct: Some(0), permute: Some(false), spread: Some(Spread::ByInstance), ..StressOverrides::default() };
        let p = base.clone().with(&o);
        let expected = StressParams { barrier_pct: 0, permute: false, spread: Spread::ByInstance, ..base };
        assert_eq!(format!("{p:?}"), format!("{expected:?}"));
    }
}
