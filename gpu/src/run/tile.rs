//! Tile IR programs on a GPU: the cubin NVIDIA's `tileiras` made of the program's
//! [`crate::tileir::Runnable`] kernel, many instances per launch.
//!
//! Every tile block of a launch is resident at once (the grid is sized from the occupancy
//! calculator), so an instance's tile blocks start together, and a spin barrier over all testing
//! blocks completes. Each block reads its entry of the control table `ctl`: a thread of an
//! instance or a stressing block, whether to pre-stress, and where its instance's locations are.
//! The kernel is NVIDIA's code, so of the harness ([`StressParams`]) a Tile IR run honours:
//! `instances`; `stress_groups` (each of T stressing tile blocks, T the program's threads, so
//! that groups count as they do for PTX); `shuffle_pct` (the roles of a launch shuffled over the
//! blocks); `barrier_pct` (the testing blocks meet a spin barrier, reading its counter at most
//! `loop_cap` times); `stress_lines` (scratch lines the stressing blocks share); `pre_stress`
//! (non-zero: each testing block first stresses a random line, [`STRESS_ACCESSES`] accesses
//! whatever the count); `permute` (per location, a fresh permutation of instances over slots
//! each launch); and `mem_stride` (slots between two instances' copies, in units of the kernel's
//! stride). Not `spread` (each location has a buffer of its own), nor `stress_iters`,
//! `stress_pattern` and `stress_line_words` (the stressing body is fixed). The `on` defaults of a
//! Tile IR run leave the spin barrier, the pre-stress and the permuted locations out (they
//! lowered its weak rates: `Session`'s defaults); tuning and `--stress-config` use them. A Tile
//! IR program has no loops to bound.

use std::sync::atomic::Ordering;
use std::time::Instant;

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::{Device, Held, Histogram, Rng, RunError, StressParams, driver};
#[cfg(doc)]
use crate::tileir::STRESS_ACCESSES;
use crate::tileir::{CTL_HEADER, RUN_ENTRY, STRESS_LINE_WORDS, STRESS_ROLE, ctl_words};

/// A compiled Tile IR kernel and what the host needs to run it.
#[derive(Clone, Debug)]
pub struct TileKernel {
    pub cubin: Vec<u8>,
    /// The architecture it was compiled for (`sm_90`): it runs on that compute capability only.
    pub arch: String,
    /// Threads per tile block: the compiled entry's `.reqntid`.
    pub block_threads: u32,
    /// Per litmus thread, in program order: its name and its registers with their element counts
    /// (the order they lie in its record of `out`).
    pub threads: Vec<(String, Vec<(String, usize)>)>,
    /// Tile locations, in parameter order: name and initial elements.
    pub locations: Vec<(String, Vec<i64>)>,
    /// Elements between two instances' copies of a location.
    pub stride: usize,
    /// Words of one tile block's record in `out`.
    pub out_words: usize,
}

impl TileKernel {
    /// The `.reqntid` of `entry` in `ptx` (`tileiras` fixes a tile block's thread count).
    pub fn block_threads_of(ptx: &str, entry: &str) -> Option<u32> {
        let at = ptx.find(&format!(".entry {entry}("))?;
        let rest = &ptx[at..];
        let body = rest.find('{').map_or(rest, |b| &rest[..b]);
        let n = body.split(".reqntid").nth(1)?;
        n.split(|c: char| !c.is_ascii_digit() && c != ' ' && c != '\t').next()?.trim().parse().ok()
    }

    /// State names, in histogram order: `P:r[e]` per register element, then `x[e]` per location
    /// element (the Tile IR model's names).
    pub fn names(&self) -> Vec<String> {
        let regs =
            self.threads.iter().flat_map(|(t, regs)| regs.iter().flat_map(move |(r, m)| (0..*m).map(move |e| format!("{t}:{r}[{e}]"))));
        let locs = self.locations.iter().flat_map(|(l, init)| (0..init.len()).map(move |e| format!("{l}[{e}]")));
        regs.chain(locs).collect()
    }
}

/// A Tile IR kernel loaded on a device.
pub struct LoadedTile<'d> {
    device: &'d Device,
    kernel: TileKernel,
    function: Held<'d, CudaFunction>,
    /// Groups (instances, and stressing groups of as many tile blocks) one launch may have,
    /// every tile block resident.
    pub max_groups: u32,
}

impl Device {
    /// Loads a compiled Tile IR kernel.
    pub fn load_tile(&self, kernel: &TileKernel) -> Result<LoadedTile<'_>, RunError> {
        if self.lost.load(Ordering::Relaxed) {
            return Err(RunError::Lost);
        }
        if kernel.arch != self.info.arch {
            return Err(RunError::WrongArch {
                device: self.info.name.clone(),
                arch: self.info.arch.clone(),
                target: if kernel.arch == "sm_90" { "Tile IR (sm_90)" } else { "Tile IR" },
            });
        }
        let module = self.ctx.load_module(cudarc::nvrtc::Ptx::from_binary(kernel.cubin.clone())).map_err(driver("load the kernel"))?;
        let function = module.load_function(RUN_ENTRY).map_err(driver("find the kernel's entry"))?;
        let per_sm =
            function.occupancy_max_active_blocks_per_multiprocessor(kernel.block_threads, 0, None).map_err(driver("query occupancy"))?;
        let blocks = per_sm.max(1) * self.info.multiprocessors.max(1) as u32;
        let max_groups = (blocks / kernel.threads.len().max(1) as u32).max(1);
        tracing::debug!(per_sm, max_groups, block_threads = kernel.block_threads, "Tile IR occupancy");
        Ok(LoadedTile { device: self, kernel: kernel.clone(), function: self.hold(function), max_groups })
    }
}

impl LoadedTile<'_> {
    /// Runs `launches` launches with `params` (clamped to [`Self::max_groups`]; the fields a
    /// Tile IR run honours are in the module docs), or fewer if `until` passes first (at least
    /// one); `rng` drives every host-side choice.
    pub fn run(&self, params: &StressParams, launches: u64, rng: &mut Rng, until: Option<Instant>) -> Result<Histogram, RunError> {
        if self.device.lost.load(Ordering::Relaxed) {
            return Err(RunError::Lost);
        }
        let k = &self.kernel;
        let n = params.instances.clamp(1, self.max_groups) as usize;
        let t = k.threads.len();
        let stressing = params.stress_groups.min(self.max_groups - n as u32) as usize * t;
        let lines = params.stress_lines.max(1) as usize;
        let blocks = n * t + stressing;
        let spacing = params.mem_stride.max(1) as usize;
        let stream = &self.device.stream;
        // Every slot an instance may get (`i × spacing`, i < n) holds the initial values.
        let init: Vec<Vec<i32>> = k
            .locations
            .iter()
            .map(|(_, v)| {
                let mut all = vec![0i32; n * spacing * k.stride];
                for i in 0..n {
                    for (e, x) in v.iter().enumerate() {
                        all[i * spacing * k.stride + e] = *x as i32;
                    }
                }
                all
            })
            .collect();
        let mut mems = Vec::with_capacity(init.len());
        for v in &init {
            mems.push(stream.alloc_zeros::<i32>(v.len()).map(|m| self.device.hold(m)).map_err(driver("allocate memory"))?);
        }
        let mut out = stream.alloc_zeros::<i32>(n * t * k.out_words).map(|m| self.device.hold(m)).map_err(driver("allocate the output"))?;
        let words = ctl_words(k.locations.len());
        let mut ctl = stream
            .alloc_zeros::<u32>(CTL_HEADER + blocks * words)
            .map(|m| self.device.hold(m))
            .map_err(driver("allocate the control table"))?;
        let scratch = stream
            .alloc_zeros::<i32>(lines * STRESS_LINE_WORDS)
            .map(|m| self.device.hold(m))
            .map_err(driver("allocate the stress buffer"))?;
        let mut host_out = vec![0i32; n * t * k.out_words];
        let mut host_ctl = vec![0u32; CTL_HEADER + blocks * words];
        let mut host_mems: Vec<Vec<i32>> = init.iter().map(|v| vec![0; v.len()]).collect();
        let mut h = Histogram { names: k.names(), ..Histogram::default() };
        let cfg = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (k.block_threads, 1, 1), shared_mem_bytes: 0 };
        let start = Instant::now();
        for launch_no in 0..launches {
            if launch_no > 0 && until.is_some_and(|u| Instant::now() >= u) {
                break;
            }
            for (m, v) in mems.iter_mut().zip(&init) {
                stream.memcpy_htod(v, &mut **m).map_err(driver("copy the initial memory"))?;
            }
            stream.memset_zeros(&mut *out).map_err(driver("clear the output"))?;
            let control = Control::new(n, t, k.locations.len(), stressing, params, rng);
            stream.memcpy_htod(&control.table, &mut *ctl).map_err(driver("copy the control table"))?;
            let mut launch = stream.launch_builder(&self.function);
            for m in &mems {
                launch.arg(&**m);
            }
            launch.arg(&*out).arg(&*ctl).arg(&*scratch);
            // SAFETY: the entry's parameters are one global pointer per tile location, then `out`,
            // `ctl` and `scratch` (`tileir::Runnable`), sized here for `n` instances at slots
            // below `n × spacing`, one control entry per block and `lines` scratch lines.
            unsafe { launch.launch(cfg) }.map_err(driver("launch"))?;
            self.device.wait()?;
            if control.table[1] > 0 {
                // Each testing block left the number of its barrier reads in its entry's word 1.
                stream.memcpy_dtoh(&*ctl, &mut host_ctl).map_err(driver("copy the control table back"))?;
                let cap = control.table[2];
                let gave_up = host_ctl[CTL_HEADER..].chunks_exact(words).filter(|e| e[0] < STRESS_ROLE && e[1] >= cap).count();
                if gave_up > 0 {
                    tracing::warn!(gave_up, cap, "the spin barrier gave up in {gave_up} tile blocks after {cap} reads");
                }
            }
            stream.memcpy_dtoh(&*out, &mut host_out).map_err(driver("copy the output back"))?;
            for (m, host) in mems.iter().zip(host_mems.iter_mut()) {
                stream.memcpy_dtoh(&**m, host).map_err(driver("copy the memory back"))?;
            }
            for i in 0..n {
                let mut state = Vec::with_capacity(h.names.len());
                for (thread, (_, regs)) in k.threads.iter().enumerate() {
                    let at = (i * t + thread) * k.out_words;
                    let words: usize = regs.iter().map(|(_, m)| m).sum();
                    state.extend(host_out[at..at + words].iter().map(|&v| i64::from(v)));
                }
                for (((_, v), host), slots) in k.locations.iter().zip(&host_mems).zip(&control.slots) {
                    let at = slots[i] as usize * k.stride;
                    state.extend(host[at..at + v.len()].iter().map(|&x| i64::from(x)));
                }
                *h.states.entry(state).or_default() += 1;
            }
            h.launches += 1;
            h.instances += n as u64;
        }
        h.seconds = start.elapsed().as_secs_f64();
        Ok(h)
    }
}

/// One launch's control table ([`crate::tileir::Runnable`]) and where it puts each instance.
struct Control {
    /// [`CTL_HEADER`] words (the spin barrier's counter, zero; its target, the testing blocks
    /// with probability `barrier_pct`, else zero; its cap, `loop_cap`), then per tile block
    /// [`ctl_words`] words: role, pre-stress (`0`, or `1 +` a scratch line), then its instance's
    /// slot of each location (zero for a stressing block).
    table: Vec<u32>,
    /// Per location, per instance: its slot, in units of the kernel's stride.
    slots: Vec<Vec<u32>>,
}

impl Control {
    /// `n` instances of `t` threads over `locations` tile locations, `stressing` stressing
    /// blocks; the choices `params` leaves open drawn from `rng`.
    fn new(n: usize, t: usize, locations: usize, stressing: usize, params: &StressParams, rng: &mut Rng) -> Control {
        let lines = params.stress_lines.max(1);
        let spacing = params.mem_stride.max(1);
        let slots: Vec<Vec<u32>> = (0..locations)
            .map(|_| {
                let mut order: Vec<u32> = (0..n as u32).collect();
                if params.permute {
                    rng.shuffle(&mut order);
                }
                order.into_iter().map(|s| s * spacing).collect()
            })
            .collect();
        let roles = roles(n * t, stressing, lines as usize, params.shuffle_pct, rng);
        let words = ctl_words(locations);
        let mut table = vec![0u32; CTL_HEADER + roles.len() * words];
        if rng.percent(params.barrier_pct) {
            table[1] = (n * t) as u32;
            table[2] = params.loop_cap.max(1);
        }
        for (entry, &role) in table[CTL_HEADER..].chunks_exact_mut(words).zip(&roles) {
            entry[0] = role;
            if role < STRESS_ROLE {
                if params.pre_stress > 0 {
                    entry[1] = 1 + rng.range(0, lines - 1);
                }
                let instance = role as usize / t;
                for (slot, of_location) in entry[2..].iter_mut().zip(&slots) {
                    *slot = of_location[instance];
                }
            }
        }
        Control { table, slots }
    }
}

/// The roles of one launch's tile blocks: `testing` test roles (thread of an instance) and
/// `stressing` stressing ones (each on a random line of `lines`), shuffled over the blocks with
/// probability `shuffle_pct` percent, else in order.
fn roles(testing: usize, stressing: usize, lines: usize, shuffle_pct: u32, rng: &mut Rng) -> Vec<u32> {
    let mut roles: Vec<u32> = (0..testing as u32).collect();
    roles.extend((0..stressing).map(|_| STRESS_ROLE + rng.range(0, lines as u32 - 1)));
    if rng.percent(shuffle_pct) {
        rng.shuffle(&mut roles);
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_name_every_test_thread_once_and_stress_lines_in_range() {
        let mut rng = Rng::new(7);
        assert_eq!(roles(6, 0, 1, 0, &mut rng), [0, 1, 2, 3, 4, 5]);
        let r = roles(6, 4, 3, 100, &mut rng);
        let mut tests: Vec<u32> = r.iter().copied().filter(|&x| x < STRESS_ROLE).collect();
        tests.sort_unstable();
        assert_eq!(tests, [0, 1, 2, 3, 4, 5]);
        assert_eq!(r.iter().filter(|&&x| (STRESS_ROLE..STRESS_ROLE + 3).contains(&x)).count(), 4);
        assert_ne!(&r[..6], &[0, 1, 2, 3, 4, 5], "shuffled (seed 7)");
    }

    /// Every instance's threads read one slot per location; each location's slots are a
    /// permutation of the instances (scaled by `mem_stride`), the identity without `permute`;
    /// pre-stress lines only on testing blocks and only with `pre_stress`.
    #[test]
    fn the_control_table_gives_each_instance_one_slot_per_location() {
        let (n, t, locations) = (5, 2, 3);
        let mut rng = Rng::new(11);
        let mut params = StressParams::plain(n as u32);
        let plain = Control::new(n, t, locations, 0, &params, &mut rng);
        assert_eq!(plain.slots, vec![vec![0, 1, 2, 3, 4]; 3]);
        assert_eq!(&plain.table[..CTL_HEADER], &[0, 0, 0, 0], "no spin barrier");
        assert_eq!(&plain.table[CTL_HEADER..CTL_HEADER + ctl_words(locations) * 3], &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 1, 1, 1]);

        params = StressParams::stressed(n as u32, 2);
        params.stress_lines = 4;
        let c = Control::new(n, t, locations, 2 * t, &params, &mut rng);
        let words = ctl_words(locations);
        assert_eq!(c.table.len(), CTL_HEADER + (n * t + 2 * t) * words);
        assert_eq!(&c.table[..CTL_HEADER], &[0, (n * t) as u32, 1 << 20, 0], "a spin barrier of every testing block");
        for of_location in &c.slots {
            let mut sorted = of_location.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 4, 8, 12, 16], "a permutation of the instances, mem_stride 4 apart");
        }
        assert_ne!(c.slots[0], c.slots[1], "locations are permuted independently (seed 11)");
        let mut roles = Vec::new();
        for entry in c.table[CTL_HEADER..].chunks_exact(words) {
            if entry[0] < STRESS_ROLE {
                let instance = entry[0] as usize / t;
                roles.push(entry[0]);
                assert!((1..=4).contains(&entry[1]), "pre-stress line {} of 4", entry[1]);
                let expected: Vec<u32> = c.slots.iter().map(|s| s[instance]).collect();
                assert_eq!(&entry[2..], &expected[..]);
            } else {
                assert!(entry[0] < STRESS_ROLE + 4);
                assert_eq!(&entry[1..], &[0, 0, 0, 0]);
            }
        }
        roles.sort_unstable();
        assert_eq!(roles, (0..(n * t) as u32).collect::<Vec<_>>());
    }

    #[test]
    fn the_thread_count_is_read_from_the_entrys_reqntid() {
        let ptx = ".visible .entry other(\n .param .u64 a\n)\n.reqntid 64\n{\n}\n.visible .entry litmus(\n\t.param .u64 .ptr .global .align 1 litmus_param_0\n)\n.reqntid 128\n.minnctapersm 1\n{\n ret;\n}\n";
        assert_eq!(TileKernel::block_threads_of(ptx, "litmus"), Some(128));
        assert_eq!(TileKernel::block_threads_of(ptx, "other"), Some(64));
        assert_eq!(TileKernel::block_threads_of(ptx, "missing"), None);
    }

    #[test]
    fn state_names_are_the_tile_ir_models() {
        let k = TileKernel {
            cubin: Vec::new(),
            arch: "sm_90".into(),
            block_threads: 128,
            threads: vec![("P0".into(), vec![]), ("P1".into(), vec![("rf".into(), 1), ("rx".into(), 2)])],
            locations: vec![("x".into(), vec![0, 0]), ("f".into(), vec![0])],
            stride: 32,
            out_words: 3,
        };
        assert_eq!(k.names(), ["P1:rf[0]", "P1:rx[0]", "P1:rx[1]", "x[0]", "x[1]", "f[0]"]);
    }
}
