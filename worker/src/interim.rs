//! **Interim** executor, until the fuzzing core's executor (issue 22, branch `fuzz`) is merged:
//! program `i` of a campaign is the selftest generator's program for seed `seed + i`, families
//! taken in turn (`tcfuzz selftest`'s round-robin); each is checked by the explorer under its
//! family's models within the per-program budget. Findings: only `checker-crash` (a panic of the
//! checker, caught per program). No coverage, no seeds, no minimization, and the generator
//! configuration must be empty. It exists so that the services can be run and tested end to end
//! now; the real executor replaces it.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use tcfuzz_checker::{CheckError, Options};
use tcfuzz_generator::random::{Family, random_program};
use tcfuzz_proto::v1::DiscrepancyKind;

use crate::work::{Campaign, Executor, Finding, JobError, Output};

/// See the module documentation.
pub struct InterimExecutor;

fn family(index: u64) -> Family {
    Family::ALL[(index % Family::ALL.len() as u64) as usize]
}

fn config_is_empty(campaign: &Campaign) -> Result<(), JobError> {
    let c = campaign.config.trim();
    if c.is_empty() || c == "{}" {
        Ok(())
    } else {
        Err(JobError(
            "this worker's interim executor takes no generator configuration (the fuzzing core's executor is not merged yet)".into(),
        ))
    }
}

/// A panic's message with its numbers replaced by `N`: two programs that trip one assertion
/// collapse into one signature.
fn panic_signature(payload: &(dyn std::any::Any + Send)) -> String {
    let message = payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned());
    let mut signature = String::from("panic: ");
    let mut in_number = false;
    for c in message.unwrap_or_else(|| "(no message)".into()).chars().take(200) {
        if c.is_ascii_digit() {
            if !in_number {
                signature.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            signature.push(c);
        }
    }
    signature
}

impl Executor for InterimExecutor {
    fn program(&self, campaign: &Campaign, index: u64) -> Result<String, JobError> {
        config_is_empty(campaign)?;
        Ok(tcfuzz_litmus::print(&random_program(family(index), campaign.seed.wrapping_add(index))))
    }

    fn run(&self, campaign: &Campaign, range: Range<u64>) -> Result<Output, JobError> {
        config_is_empty(campaign)?;
        let mut out = Output::default();
        for index in range {
            let f = family(index);
            let program = random_program(f, campaign.seed.wrapping_add(index));
            out.programs += 1;
            let options = Options {
                witnesses: false,
                max_states: Some(64),
                deadline: Some(Instant::now() + campaign.program_budget.max(Duration::from_millis(1))),
                ..Options::default()
            };
            let mut too_large = false;
            for &model in f.models() {
                match catch_unwind(AssertUnwindSafe(|| tcfuzz_checker::check(&program, model, &options))) {
                    Ok(Ok(v)) => out.executions += v.stats.complete + v.stats.blocked,
                    Ok(Err(CheckError::TooLarge(_) | CheckError::Interrupted { .. })) => too_large = true,
                    // Instructions the checker does not model yet: an ordinary verdict.
                    Ok(Err(_)) => {}
                    Err(payload) => {
                        let text = tcfuzz_litmus::print(&program);
                        out.findings.push(Finding {
                            kind: DiscrepancyKind::CheckerCrash,
                            signature: panic_signature(&*payload),
                            index,
                            program: text,
                            sides: [("checker".into(), format!("panicked under {model:?}")), ("expected".into(), "a verdict".into())],
                        });
                        break;
                    }
                }
            }
            out.too_large += u64::from(too_large);
        }
        Ok(out)
    }

    fn minimize(&self, _: DiscrepancyKind, _: &str, _: &str, _: Duration) -> Result<Option<String>, JobError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_a_function_of_seed_and_index_and_get_checked() {
        let c = Campaign { id: 1, seed: 7, config: String::new(), program_budget: Duration::from_secs(10) };
        let e = InterimExecutor;
        assert_eq!(e.program(&c, 3).unwrap(), e.program(&c, 3).unwrap());
        assert_ne!(e.program(&c, 3).unwrap(), e.program(&c, 4).unwrap());
        let out = e.run(&c, 0..10).unwrap();
        assert_eq!(out.programs, 10);
        assert!(out.executions >= 10, "{out:?}");
        let bad = Campaign { config: "{\"mix\": 1}".into(), ..c };
        assert!(e.run(&bad, 0..1).is_err());
        assert_eq!(panic_signature(&"index 12 out of range for 3"), "panic: index N out of range for N");
    }
}
