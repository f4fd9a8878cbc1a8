//! `tcfuzz check --differential` / `--compiler`: the tileir-weaker-than-ptx check of one program
//! against the project's lowering, or the compiler-lowering check against NVIDIA's (DESIGN §4),
//! printed as text or as the `differential` object of a `--json` line.

use std::io::Write;
use std::time::Instant;

use serde_json::{Value, json};
use tcfuzz_checker::{DifferentialReport, ExtraState, tileir_weaker_than, tileir_weaker_than_ptx};
use tcfuzz_checker::{Method, Options, Race, Witness};
use tcfuzz_litmus::Program;

use super::check::{JsonRace, JsonVerdict, Outcome, StateMap, condition_text, observation_name, race_event, report_error, text};

/// Which PTX program stands for the Tile IR program.
#[derive(Clone, Copy)]
pub(crate) enum Lowering {
    /// The project's lowering (`checker/src/differential/lower.rs`): tileir-weaker-than-ptx.
    Project,
    /// NVIDIA's: `tileiras` for sm_90, read back (`gpu/src/tileir/lift.rs`): compiler-lowering.
    Compiler,
}

/// The architecture the compiler-lowering check compiles for (the lent GPUs are Hopper).
pub(crate) const COMPILER_ARCH: &str = "sm_90";

impl Lowering {
    fn check(self) -> &'static str {
        match self {
            Lowering::Project => "tileir-weaker-than-ptx",
            Lowering::Compiler => "compiler-lowering",
        }
    }
}

/// NVIDIA's lowering of `program`, lifted, and the Tile IR → lifted name map.
pub(crate) fn compiler_lowering(program: &Program) -> Result<tcfuzz_gpu::tileir::lift::Lifted, String> {
    let tools = tcfuzz_gpu::Toolchain::discover();
    let (module, compiled) = tcfuzz_gpu::tileir::compile(program, &tools, COMPILER_ARCH).map_err(|e| e.to_string())?;
    tcfuzz_gpu::tileir::lift::lift(program, &module, &compiled.ptx).map_err(|e| e.to_string())
}

/// Runs the check on one parsed program and prints it; errors go to stderr.
pub(crate) fn check_file(
    file: &str,
    program: &Program,
    lowering: Lowering,
    options: &Options,
    json: bool,
    out: &mut impl Write,
    printed: &mut usize,
) -> anyhow::Result<Outcome> {
    tracing::info!(file, check = lowering.check(), "differential check");
    let start = Instant::now();
    let result = match lowering {
        Lowering::Project => tileir_weaker_than_ptx(program, options),
        Lowering::Compiler => {
            let lifted = match compiler_lowering(program) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("{file}: error: compiler-lowering: {e}");
                    return Ok(Outcome::Unsupported);
                }
            };
            let names = lifted.names;
            tileir_weaker_than(program, lifted.program, &|n| names.get(n).cloned().into_iter().collect(), options)
        }
    };
    let report = match result {
        Ok(r) => r,
        Err(err) => return Ok(report_error(file, &err)),
    };
    let elapsed = start.elapsed();
    let condition = condition_text(program);
    if json {
        let mut line = JsonVerdict::new(file, &report.tileir, &condition, elapsed);
        line.differential = Some(json_report(lowering, &report));
        writeln!(out, "{}", serde_json::to_string(&line)?)?;
    } else {
        if *printed > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", text(file, &report.tileir, &condition, method(report.tileir.method), elapsed))?;
        write!(out, "{}", report_text(file, lowering, &report))?;
    }
    *printed += 1;
    Ok(if report.holds() { Outcome::Checked } else { Outcome::Violation })
}

fn method(m: Method) -> &'static str {
    match m {
        Method::Explorer => "explorer",
        Method::Oracle => "oracle",
    }
}

fn state_text(state: &[(String, i64)]) -> String {
    state.iter().map(|(k, v)| format!("{k}={v};")).collect::<Vec<_>>().join(" ")
}

fn indented(w: &Witness) -> String {
    w.text.lines().map(|l| format!("      {l}\n")).collect()
}

fn report_text(file: &str, lowering: Lowering, r: &DifferentialReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let races = |rs: &[Race]| if rs.is_empty() { "races none".to_string() } else { format!("races {}", rs.len()) };
    let _ = writeln!(s, "Differential {}", lowering.check());
    let (t, p) = (&r.tileir, &r.ptx);
    let _ = writeln!(
        s,
        "  Tile IR (tileir, {}): {}, {} states, {}",
        method(t.method),
        observation_name(t.condition.observation),
        t.states.len(),
        races(&t.races)
    );
    let _ = writeln!(
        s,
        "  {} {} (ptx, {}): {}, {} states, {}",
        match lowering {
            Lowering::Project => "Lowered PTX",
            Lowering::Compiler => "tileiras PTX",
        },
        r.lowered.name,
        method(p.method),
        observation_name(p.condition.observation),
        p.states.len(),
        races(&p.races)
    );
    let verdict = if !r.tileir_race_free {
        "holds (the Tile IR program has data races: undefined behaviour, every outcome is allowed)".to_string()
    } else if r.holds() {
        "holds".to_string()
    } else {
        format!("VIOLATED: {} state(s) and {} race(s) of the lowering", r.violating_states().len(), r.violating_races().len())
    };
    let _ = writeln!(s, "  Verdict {verdict}");
    for ExtraState { state, ptx_witness, tileir_nearest } in r.violating_states() {
        let _ = writeln!(s, "  Violating state: {}", state_text(state));
        if let Some(w) = ptx_witness {
            let _ = write!(s, "    PTX witness (lowered program):\n{}", indented(w));
        }
        match tileir_nearest {
            Some((near, w)) => {
                let _ = write!(s, "    Tile IR: no execution ends there; nearest allowed state {}:\n{}", state_text(near), indented(w));
            }
            None => {
                let _ = writeln!(s, "    Tile IR: no execution ends there (no complete execution at all)");
            }
        }
    }
    for Race { first, second, .. } in r.violating_races() {
        let _ = writeln!(s, "  Violating race of the lowering: {} and {}", race_event(file, first), race_event(file, second));
    }
    if !r.tileir_race_free && !r.extra_states.is_empty() {
        let _ = writeln!(s, "  States of the lowering the Tile IR program does not allow (not violations): {}", r.extra_states.len());
    }
    for c in &r.caveats {
        let _ = writeln!(s, "  Caveat: {c}");
    }
    s
}

fn json_race(r: &Race) -> Value {
    serde_json::to_value(JsonRace::new(r)).unwrap_or(Value::Null)
}

fn json_state(state: &[(String, i64)]) -> Value {
    serde_json::to_value(StateMap(state)).unwrap_or(Value::Null)
}

fn json_report(lowering: Lowering, r: &DifferentialReport) -> Value {
    let violations: Vec<Value> = r
        .violating_states()
        .iter()
        .map(|e| {
            json!({
                "state": json_state(&e.state),
                "ptx_witness": e.ptx_witness.as_ref().map(|w| w.text.clone()),
                "tileir_nearest": e.tileir_nearest.as_ref().map(|(s, w)| json!({"state": json_state(s), "witness": w.text})),
            })
        })
        .collect();
    json!({
        "check": lowering.check(),
        "holds": r.holds(),
        "tileir_race_free": r.tileir_race_free,
        "ptx": {
            "result": observation_name(r.ptx.condition.observation),
            "states": r.ptx.states.len(),
            "races": r.ptx.races.iter().map(json_race).collect::<Vec<_>>(),
        },
        "violations": violations,
        "race_violations": r.violating_races().iter().map(json_race).collect::<Vec<_>>(),
        "extra_states": r.extra_states.len(),
        "caveats": r.caveats,
    })
}
