//! Tile IR programs on a GPU: the cubin NVIDIA's `tileiras` made of the program's
//! [`crate::tileir::Runnable`] kernel, many instances per launch.
//!
//! Every tile block of a launch is resident at once (the grid is sized from the occupancy
//! calculator), so an instance's tile blocks start together. Each block reads its role from the
//! control table `ctl`: a thread of an instance, or a stressing block. The kernel is NVIDIA's
//! code, so of the harness ([`StressParams`]) a Tile IR run honours what the host decides alone:
//! `instances`, `stress_groups` (each of T stressing tile blocks, T the program's threads, so
//! that groups count as they do for PTX), `shuffle_pct` (the roles of a launch shuffled over the
//! blocks) and `stress_lines` (scratch lines the stressing blocks share). There is no spin
//! barrier, pre-stress or location permutation, and a Tile IR program has no loops to bound.

use std::sync::atomic::Ordering;
use std::time::Instant;

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::{Device, Held, Histogram, Rng, RunError, StressParams, driver};
use crate::tileir::{RUN_ENTRY, STRESS_LINE_WORDS, STRESS_ROLE};

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
        let stream = &self.device.stream;
        let init: Vec<Vec<i32>> = k
            .locations
            .iter()
            .map(|(_, v)| {
                let mut all = vec![0i32; n * k.stride];
                for i in 0..n {
                    for (e, x) in v.iter().enumerate() {
                        all[i * k.stride + e] = *x as i32;
                    }
                }
                all
            })
            .collect();
        let mut mems = Vec::with_capacity(init.len());
        for _ in &init {
            mems.push(stream.alloc_zeros::<i32>(n * k.stride).map(|m| self.device.hold(m)).map_err(driver("allocate memory"))?);
        }
        let mut out = stream.alloc_zeros::<i32>(n * t * k.out_words).map(|m| self.device.hold(m)).map_err(driver("allocate the output"))?;
        let mut ctl = stream.alloc_zeros::<u32>(blocks).map(|m| self.device.hold(m)).map_err(driver("allocate the control table"))?;
        let scratch = stream
            .alloc_zeros::<i32>(lines * STRESS_LINE_WORDS)
            .map(|m| self.device.hold(m))
            .map_err(driver("allocate the stress buffer"))?;
        let mut host_out = vec![0i32; n * t * k.out_words];
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
            let roles = roles(n * t, stressing, lines, params.shuffle_pct, rng);
            stream.memcpy_htod(&roles, &mut *ctl).map_err(driver("copy the control table"))?;
            let mut launch = stream.launch_builder(&self.function);
            for m in &mems {
                launch.arg(&**m);
            }
            launch.arg(&*out).arg(&*ctl).arg(&*scratch);
            // SAFETY: the entry's parameters are one global pointer per tile location, then `out`,
            // `ctl` and `scratch` (`tileir::Runnable`), sized here for `n` instances, one role per
            // block and `lines` scratch lines.
            unsafe { launch.launch(cfg) }.map_err(driver("launch"))?;
            self.device.wait()?;
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
                for ((_, v), host) in k.locations.iter().zip(&host_mems) {
                    state.extend(host[i * k.stride..i * k.stride + v.len()].iter().map(|&x| i64::from(x)));
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
