//! Tile IR programs on a GPU: the cubin NVIDIA's `tileiras` made of the program's
//! [`crate::tileir::Runnable`] kernel, many instances per launch.
//!
//! Tile block `b` of a launch runs thread `b mod T` of instance `b div T`; every block of a
//! launch is resident at once (the grid is sized from the occupancy calculator), so an instance's
//! tile blocks start together. There is no stress harness here: the kernel is NVIDIA's code, not
//! the harness's (no spin barrier, no stressing CTAs, no shuffled placement), and a Tile IR
//! program has no loops to bound.

use std::sync::atomic::Ordering;
use std::time::Instant;

use cudarc::driver::{CudaFunction, LaunchConfig, PushKernelArg};

use super::{Device, Held, Histogram, RunError, driver};
use crate::tileir::RUN_ENTRY;

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
    /// Instances one launch runs, every tile block resident.
    pub max_instances: u32,
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
        let max_instances = (blocks / kernel.threads.len().max(1) as u32).max(1);
        tracing::debug!(per_sm, max_instances, block_threads = kernel.block_threads, "Tile IR occupancy");
        Ok(LoadedTile { device: self, kernel: kernel.clone(), function: self.hold(function), max_instances })
    }
}

impl LoadedTile<'_> {
    /// Runs `launches` launches of `instances` instances (clamped to [`Self::max_instances`]), or
    /// fewer if `until` passes first (at least one).
    pub fn run(&self, instances: u32, launches: u64, until: Option<Instant>) -> Result<Histogram, RunError> {
        if self.device.lost.load(Ordering::Relaxed) {
            return Err(RunError::Lost);
        }
        let k = &self.kernel;
        let n = instances.clamp(1, self.max_instances) as usize;
        let t = k.threads.len();
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
        let mut host_out = vec![0i32; n * t * k.out_words];
        let mut host_mems: Vec<Vec<i32>> = init.iter().map(|v| vec![0; v.len()]).collect();
        let mut h = Histogram { names: k.names(), ..Histogram::default() };
        let cfg = LaunchConfig { grid_dim: ((n * t) as u32, 1, 1), block_dim: (k.block_threads, 1, 1), shared_mem_bytes: 0 };
        let start = Instant::now();
        for launch_no in 0..launches {
            if launch_no > 0 && until.is_some_and(|u| Instant::now() >= u) {
                break;
            }
            for (m, v) in mems.iter_mut().zip(&init) {
                stream.memcpy_htod(v, &mut **m).map_err(driver("copy the initial memory"))?;
            }
            stream.memset_zeros(&mut *out).map_err(driver("clear the output"))?;
            let mut launch = stream.launch_builder(&self.function);
            for m in &mems {
                launch.arg(&**m);
            }
            launch.arg(&*out);
            // SAFETY: the entry's parameters are one global pointer per tile location, then `out`
            // (`tileir::Runnable`), each sized here for `n` instances.
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

#[cfg(test)]
mod tests {
    use super::*;

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
