//! Running an emitted kernel on a GPU through the CUDA driver API, loaded at run time (`cudarc`
//! with dynamic loading): a machine without a driver or a GPU builds and runs everything else, and
//! [`Device::open`] says why there is no device.
//!
//! A run is many launches of one kernel; each launch runs many instances under one
//! [`StressParams`] and adds every finished instance's final state to a [`Histogram`]. Instances
//! where some thread hit the loop cap or failed an `assume` are counted apart, never as states
//! (they are not executions of the program). Every launch has a deadline: a kernel that does not
//! finish in time is reported as hung: the context is then unusable, and the device leaves it
//! (and the kernel's module and buffers) to the process's exit rather than wait for the kernel.

pub mod compare;
pub mod stress;
pub mod tile;

use std::collections::BTreeMap;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use thiserror::Error;

use crate::layout::{STATUS_ASSUME_FAILED, STATUS_DONE, STATUS_LOOP_CAP};
use crate::{ENTRY, Kernel, Target};
pub use stress::{Rng, Spread, StressOverrides, StressParams};

#[derive(Debug, Error)]
pub enum RunError {
    #[error("no GPU: {0}")]
    NoDevice(String),
    #[error("the {device} ({arch}) cannot run {target} kernels")]
    WrongArch { device: String, arch: String, target: &'static str },
    #[error("CUDA driver: {what}: {error}")]
    Driver { what: &'static str, error: String },
    #[error("the kernel did not finish within {0:?}: it hangs (the GPU stays busy until this process exits)")]
    Hang(Duration),
    /// The kernel trapped (an illegal address, an out-of-range barrier operation, ...): the
    /// driver's errors of this kind are sticky, the context runs nothing more.
    #[error("the kernel faulted ({0}): the GPU's context is lost until this process exits")]
    Faulted(String),
    /// An earlier kernel hung or faulted: the context cannot run anything until the process
    /// exits (and a driver call on it may wait for a hung kernel forever).
    #[error("an earlier kernel hung or faulted on this GPU: nothing more runs on it until this process exits")]
    Lost,
}

fn driver(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> RunError {
    move |e| RunError::Driver { what, error: format!("{e:?}") }
}

/// What a worker advertises.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceInfo {
    pub name: String,
    /// `sm_90`, `sm_100`, ...
    pub arch: String,
    pub compute_capability: (i32, i32),
    pub multiprocessors: i32,
}

impl DeviceInfo {
    /// Whether kernels for `target` run here (`a` targets are specific to one architecture).
    pub fn runs(&self, target: Target) -> bool {
        match target {
            Target::Sm90a => self.compute_capability == (9, 0),
            Target::Sm100a => self.compute_capability == (10, 0),
        }
    }
}

pub struct Device {
    // Not dropped after a hung kernel (see `Drop`).
    ctx: ManuallyDrop<Arc<CudaContext>>,
    stream: ManuallyDrop<Arc<CudaStream>>,
    /// Set when a kernel missed its deadline (it still runs) or faulted: the context is unusable.
    lost: AtomicBool,
    pub info: DeviceInfo,
}

impl Drop for Device {
    fn drop(&mut self) {
        // Releasing the stream and the context of a hung kernel waits for the kernel, forever:
        // they are left to the process's exit (the driver reclaims them there).
        if !self.lost.load(Ordering::Relaxed) {
            // SAFETY: dropped once, here, and never used again.
            unsafe {
                ManuallyDrop::drop(&mut self.stream);
                ManuallyDrop::drop(&mut self.ctx);
            }
        }
    }
}

impl Device {
    /// The first GPU, or why there is none (no driver library, no device).
    pub fn open() -> Result<Device, RunError> {
        // SAFETY: probing for the driver library only loads and unloads it.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(RunError::NoDevice("the CUDA driver library (libcuda) is not installed".into()));
        }
        match CudaContext::device_count() {
            Ok(n) if n > 0 => {}
            Ok(_) => return Err(RunError::NoDevice("the CUDA driver sees no device".into())),
            Err(e) => return Err(RunError::NoDevice(format!("the CUDA driver does not start: {e:?}"))),
        }
        let ctx = CudaContext::new(0).map_err(driver("create a context"))?;
        let name = ctx.name().map_err(driver("read the device name"))?;
        let cc = ctx.compute_capability().map_err(driver("read the compute capability"))?;
        let sms = ctx
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver("read the multiprocessor count"))?;
        let stream = ctx.default_stream();
        Ok(Device {
            ctx: ManuallyDrop::new(ctx),
            stream: ManuallyDrop::new(stream),
            lost: AtomicBool::new(false),
            info: DeviceInfo { name, arch: format!("sm_{}{}", cc.0, cc.1), compute_capability: cc, multiprocessors: sms },
        })
    }

    /// Waits for the stream with a deadline, polling (a blocking synchronize could not time out).
    ///
    /// A kernel that misses the deadline or faults gives the device up ([`RunError::Lost`] from
    /// then on): what it holds ([`Held`]) is never released.
    pub(crate) fn wait(&self) -> Result<(), RunError> {
        let event = self.stream.record_event(None).map_err(driver("record an event"))?;
        let start = Instant::now();
        let mut spins = 0u32;
        loop {
            match event.try_is_complete() {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => return Err(self.give_up(RunError::Faulted(format!("{e:?}")))),
            }
            if start.elapsed() > LAUNCH_DEADLINE {
                return Err(self.give_up(RunError::Hang(LAUNCH_DEADLINE)));
            }
            spins += 1;
            if spins > 1000 {
                std::thread::sleep(Duration::from_micros(50));
            } else {
                std::hint::spin_loop();
            }
        }
    }

    fn give_up(&self, why: RunError) -> RunError {
        self.lost.store(true, Ordering::Relaxed);
        why
    }

    /// `object` (a loaded function, device memory), released when dropped unless the device was
    /// given up by then.
    pub(crate) fn hold<T>(&self, object: T) -> Held<'_, T> {
        Held { device: self, object: ManuallyDrop::new(object) }
    }

    /// Loads `kernel`: its cubin when one is given (assembled by `ptxas`), else its PTX, which the
    /// driver compiles.
    pub fn load(&self, kernel: &Kernel, cubin: Option<&[u8]>) -> Result<Loaded<'_>, RunError> {
        // A driver call on the context of a hung kernel may wait for it forever: on an H200 a
        // fuzzing worker froze this way (a thread loading the next program, we believe).
        if self.lost.load(Ordering::Relaxed) {
            return Err(RunError::Lost);
        }
        if !self.info.runs(kernel.target) {
            return Err(RunError::WrongArch { device: self.info.name.clone(), arch: self.info.arch.clone(), target: kernel.target.arch() });
        }
        let image = match cubin {
            Some(c) => cudarc::nvrtc::Ptx::from_binary(c.to_vec()),
            None => cudarc::nvrtc::Ptx::from_src(kernel.ptx.clone()),
        };
        let module = self.ctx.load_module(image).map_err(driver("load the kernel"))?;
        let function = module.load_function(ENTRY).map_err(driver("find the kernel's entry"))?;
        // Every CTA of a launch must be resident at once (spin loops and the spin barrier wait
        // across CTAs): the largest launch is what the occupancy calculator allows.
        let layout = &kernel.layout;
        let block = layout.block_threads;
        let per_sm = function.occupancy_max_active_blocks_per_multiprocessor(block, 0, None).map_err(driver("query occupancy"))?;
        let mut max_ctas = per_sm.max(1) * self.info.multiprocessors.max(1) as u32;
        let cluster = layout.cluster_size.max(1);
        let mut clusters = None;
        if cluster > 1 {
            // A cluster's CTAs are placed together on one GPC, so fewer CTAs of a cluster kernel
            // may be resident than the per-SM occupancy says (CUDA C++ Programming Guide, "Thread
            // Block Clusters"): ask the driver how many clusters fit.
            let grid = (max_ctas / cluster).max(1) * cluster;
            let cfg = LaunchConfig { grid_dim: (grid, 1, 1), block_dim: (block, 1, 1), shared_mem_bytes: 0 };
            let n = function.occupancy_max_active_clusters(cfg, &self.stream).map_err(driver("query cluster occupancy"))?;
            max_ctas = max_ctas.min(n.max(1) * cluster);
            clusters = Some(n);
        }
        let max_groups = (max_ctas / layout.ctas_per_instance.max(1)).max(1);
        tracing::debug!(
            per_sm,
            ?clusters,
            max_ctas,
            max_groups,
            registers = function.num_regs().ok(),
            block_threads = block,
            ctas_per_instance = layout.ctas_per_instance,
            "occupancy"
        );
        Ok(Loaded { device: self, kernel: kernel.clone(), function: self.hold(function), max_groups })
    }
}

/// A driver object of a device that a kernel may use: released on drop only while the device is
/// not lost. A hung kernel still uses its module and buffers, and releasing them would wait for
/// it for ever (on an H200 a fuzzing worker froze in a driver call on such a context); they are
/// left to the process's exit, as the device's context is.
pub(crate) struct Held<'d, T> {
    device: &'d Device,
    object: ManuallyDrop<T>,
}

impl<T> Deref for Held<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.object
    }
}

impl<T> DerefMut for Held<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.object
    }
}

impl<T> Drop for Held<'_, T> {
    fn drop(&mut self) {
        if !self.device.lost.load(Ordering::Relaxed) {
            // SAFETY: dropped once, here, and never used again.
            unsafe { ManuallyDrop::drop(&mut self.object) };
        }
    }
}

/// A kernel loaded on a device.
pub struct Loaded<'d> {
    device: &'d Device,
    kernel: Kernel,
    function: Held<'d, CudaFunction>,
    /// Most groups (instances + stress groups) one launch may have with every CTA resident.
    pub max_groups: u32,
}

/// Final states seen, and how many instances ended otherwise.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Histogram {
    /// The names of a state's values, in order (registers `P0:r0`, then locations).
    pub names: Vec<String>,
    /// State (values in `names` order) → instances that ended in it.
    pub states: BTreeMap<Vec<i64>, u64>,
    /// Instances where some thread hit the loop cap.
    pub unfinished: u64,
    /// Instances where some thread's `assume` failed.
    pub assume_failed: u64,
    pub launches: u64,
    pub instances: u64,
    pub seconds: f64,
}

impl Histogram {
    pub fn merge(&mut self, other: &Histogram) {
        if self.names.is_empty() {
            self.names = other.names.clone();
        }
        for (s, n) in &other.states {
            *self.states.entry(s.clone()).or_default() += n;
        }
        self.unfinished += other.unfinished;
        self.assume_failed += other.assume_failed;
        self.launches += other.launches;
        self.instances += other.instances;
        self.seconds += other.seconds;
    }

    /// Instances that ended in a state.
    pub fn finished(&self) -> u64 {
        self.states.values().sum()
    }
}

/// How long one launch may take before it counts as hung.
pub const LAUNCH_DEADLINE: Duration = Duration::from_secs(20);

impl Loaded<'_> {
    /// Runs `launches` launches with `params` (clamped to [`Self::max_groups`]), or fewer if
    /// `until` passes first (at least one); `rng` drives every host-side choice.
    pub fn run(&self, params: &StressParams, launches: u64, rng: &mut Rng, until: Option<Instant>) -> Result<Histogram, RunError> {
        if self.device.lost.load(Ordering::Relaxed) {
            return Err(RunError::Lost);
        }
        let layout = &self.kernel.layout;
        let mut p = params.clone();
        p.instances = p.instances.clamp(1, self.max_groups);
        p.stress_groups = p.stress_groups.min(self.max_groups - p.instances);
        p.stress_lines = p.stress_lines.max(1);
        p.stress_line_words = p.stress_line_words.max(1);
        let stream = &self.device.stream;
        let n = p.instances as usize;
        let out_words = layout.out_words as usize;
        let mut mem = stream
            .alloc_zeros::<u8>(p.slots(layout) * layout.slot_bytes as usize)
            .map(|m| self.device.hold(m))
            .map_err(driver("allocate memory"))?;
        let mut out = stream.alloc_zeros::<u64>(n * out_words).map(|m| self.device.hold(m)).map_err(driver("allocate the output"))?;
        let mut ctl = stream
            .alloc_zeros::<u32>(layout.ctl_words(p.groups() as usize, n))
            .map(|m| self.device.hold(m))
            .map_err(driver("allocate the control block"))?;
        let scratch =
            stream.alloc_zeros::<u32>(p.stress_words()).map(|m| self.device.hold(m)).map_err(driver("allocate the stress buffer"))?;
        let mut host_out = vec![0u64; n * out_words];
        let mut host_mem = vec![0u8; p.slots(layout) * layout.slot_bytes as usize];
        let names: Vec<String> = layout
            .outputs
            .iter()
            .filter(|o| o.comparable)
            .map(|o| o.name.clone())
            .chain(layout.globals.iter().map(|g| g.0.clone()))
            .collect();
        let mut h = Histogram { names, ..Histogram::default() };
        let cfg = LaunchConfig {
            grid_dim: (p.groups() * layout.ctas_per_instance, 1, 1),
            block_dim: (layout.block_threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let start = Instant::now();
        for k in 0..launches {
            if k > 0 && until.is_some_and(|t| Instant::now() >= t) {
                break;
            }
            let data = stress::launch_data(layout, &p, rng);
            stream.memcpy_htod(&data.ctl, &mut *ctl).map_err(driver("copy the control block"))?;
            stream.memcpy_htod(&data.mem, &mut *mem).map_err(driver("copy the initial memory"))?;
            stream.memset_zeros(&mut *out).map_err(driver("clear the output"))?;
            let mut launch = stream.launch_builder(&self.function);
            launch.arg(&*mem).arg(&*out).arg(&*ctl).arg(&*scratch);
            // SAFETY: the kernel's four parameters are these device pointers, sized by the layout
            // the kernel was emitted with.
            unsafe { launch.launch(cfg) }.map_err(driver("launch"))?;
            self.device.wait()?;
            stream.memcpy_dtoh(&*out, &mut host_out).map_err(driver("copy the output back"))?;
            stream.memcpy_dtoh(&*mem, &mut host_mem).map_err(driver("copy the memory back"))?;
            self.tally(&mut h, &host_out, &host_mem, &data.slots, n);
            h.launches += 1;
            h.instances += n as u64;
        }
        h.seconds = start.elapsed().as_secs_f64();
        Ok(h)
    }

    fn tally(&self, h: &mut Histogram, out: &[u64], mem: &[u8], slots: &[u32], n: usize) {
        let layout = &self.kernel.layout;
        let w = layout.out_words as usize;
        let nl = layout.globals.len();
        let threads = layout.threads.len();
        for i in 0..n {
            let rec = &out[i * w..(i + 1) * w];
            let status = &rec[..threads];
            if status.contains(&STATUS_ASSUME_FAILED) {
                h.assume_failed += 1;
                continue;
            }
            if status.iter().any(|&s| s == STATUS_LOOP_CAP || s != STATUS_DONE) {
                h.unfinished += 1;
                continue;
            }
            let mut state: Vec<i64> = layout.outputs.iter().filter(|o| o.comparable).map(|o| rec[o.word as usize] as i64).collect();
            for (l, (_, _, wide)) in layout.globals.iter().enumerate() {
                let at = slots[i * nl + l] as usize * layout.slot_bytes as usize;
                let v = if *wide {
                    i64::from_le_bytes(mem[at..at + 8].try_into().unwrap_or([0; 8]))
                } else {
                    i64::from(i32::from_le_bytes(mem[at..at + 4].try_into().unwrap_or([0; 4])))
                };
                state.push(v);
            }
            *h.states.entry(state).or_default() += 1;
        }
    }
}
