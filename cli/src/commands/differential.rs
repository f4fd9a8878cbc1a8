//! `tcfuzz check --differential`: the tileir-weaker-than-ptx check of one program, printed as text
//! or as the `differential` object of a `--json` line.

use std::io::Write;
use std::time::Instant;

use serde_json::{Value, json};
use tcfuzz_checker::differential::{DifferentialReport, ExtraState, tileir_weaker_than_ptx};
use tcfuzz_checker::{Method, Options, Race, Witness};
use tcfuzz_litmus::Program;

use super::check::{JsonRace, JsonVerdict, Outcome, StateMap, condition_text, observation_name, race_event, report_error, text};

/// Runs the check on one parsed program and prints it; errors go to stderr.
pub(crate) fn check_file(
    file: &str,
    program: &Program,
    options: &Options,
    json: bool,
    out: &mut impl Write,
    printed: &mut usize,
) -> anyhow::Result<Outcome> {
    tracing::info!(file, "differential check");
    let start = Instant::now();
    let report = match tileir_weaker_than_ptx(program, options) {
        Ok(r) => r,
        Err(err) => return Ok(report_error(file, &err)),
    };
    let elapsed = start.elapsed();
    let condition = condition_text(program);
    if json {
        let mut line = JsonVerdict::new(file, &report.tileir, &condition, elapsed);
        line.differential = Some(json_report(&report));
        writeln!(out, "{}", serde_json::to_string(&line)?)?;
    } else {
        if *printed > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", text(file, &report.tileir, &condition, method(report.tileir.method), elapsed))?;
        write!(out, "{}", report_text(file, &report))?;
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

fn report_text(file: &str, r: &DifferentialReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let races = |rs: &[Race]| if rs.is_empty() { "races none".to_string() } else { format!("races {}", rs.len()) };
    let _ = writeln!(s, "Differential tileir-weaker-than-ptx");
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
        "  Lowered PTX {} (ptx, {}): {}, {} states, {}",
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

fn json_report(r: &DifferentialReport) -> Value {
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
        "check": "tileir-weaker-than-ptx",
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
