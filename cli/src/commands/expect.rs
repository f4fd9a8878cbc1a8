//! The expected verdict a program states in its header comments, and how a verdict compares
//! with it (the convention of `examples/README.md`):
//!
//! ```text
//! // expect ptx: Never | Sometimes | Always      (the observation under that model; also tileir, sc)
//! // expect races: none | data | tmem | proxy
//! // expect hang: no | possible | always
//! // expect misuse: none | <rule name>
//! ```

use tcfuzz_checker::{ModelKind, Verdict};
use tcfuzz_litmus::{CommentPlace, CommentStyle, Program};

use super::check::observation_name;

/// The `// expect KEY: VALUE` lines of a program's header, in order.
pub struct Expectation(Vec<(String, String)>);

impl Expectation {
    /// The program's expectation lines; `None` when it has none.
    pub fn of(program: &Program) -> Option<Expectation> {
        let lines: Vec<(String, String)> = program
            .comments
            .iter()
            .filter(|c| c.place == CommentPlace::Header && c.style == CommentStyle::Line)
            .filter_map(|c| c.text.trim().strip_prefix("expect ")?.split_once(':'))
            .map(|(key, value)| (key.trim().to_string(), value.trim().to_string()))
            .collect();
        (!lines.is_empty()).then_some(Expectation(lines))
    }

    /// How `v` differs from the lines that apply to it (an observation line applies under its
    /// model only), one sentence each; empty when it matches. Unknown keys are ignored.
    pub fn differences(&self, v: &Verdict, model: ModelKind) -> Vec<String> {
        let mut out = Vec::new();
        for (key, expected) in &self.0 {
            let (what, ours) = match key.as_str() {
                k if k == model.name() => ("the condition is", observation_name(v.condition.observation).to_string()),
                "races" => {
                    let kinds: Vec<&str> = v.races.iter().map(|r| r.kind.name()).collect();
                    let ok = if expected == "none" { kinds.is_empty() } else { kinds.contains(&expected.as_str()) };
                    if ok {
                        continue;
                    }
                    ("races are", if kinds.is_empty() { "none".to_string() } else { dedup(kinds) })
                }
                "misuse" => {
                    let rules: Vec<&str> = v.misuse.iter().map(|m| m.rule.name()).collect();
                    let ok = if expected == "none" { rules.is_empty() } else { rules.contains(&expected.as_str()) };
                    if ok {
                        continue;
                    }
                    ("misuse is", if rules.is_empty() { "none".to_string() } else { dedup(rules) })
                }
                "hang" => {
                    let ours = if v.stats.blocked == 0 {
                        "no"
                    } else if v.stats.complete == 0 {
                        "always"
                    } else {
                        "possible"
                    };
                    ("hang is", ours.to_string())
                }
                _ => continue,
            };
            if ours != *expected {
                out.push(format!("{key}: {what} {ours}, expected {expected}"));
            }
        }
        out
    }
}

fn dedup(mut names: Vec<&str>) -> String {
    names.sort_unstable();
    names.dedup();
    names.join(", ")
}
