//! A pattern program before it is text: threads of lines, some of them synchronization steps that
//! a mutant may remove or weaken. Rendering writes litmus text (every thread as a block, FORMAT.md
//! "Threads") which the parser then reads and validates: the patterns are written the way the
//! examples are, and a change of the IR cannot silently change what they mean.

use std::fmt::Write as _;

/// One statement of a thread, as litmus text without its `;`.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub text: String,
    pub step: Option<StepSpec>,
}

/// A synchronization step: the pattern needs it (the spec section the pattern cites says so), so
/// removing it, or weakening it as `weaken` says, must break the program.
#[derive(Clone, Debug)]
pub(crate) struct StepSpec {
    /// What the step does in the pattern, in a few words (`consumer-waits-full`): part of a
    /// mutant's signature, so it names the role, never a position.
    pub role: &'static str,
    /// A weaker form of the line and what changed (`acquire→relaxed`), where one exists.
    pub weaken: Option<(&'static str, String)>,
    /// Whether removing the line is a mutation. Not for a line whose result the condition reads
    /// (an acquire load of the flag, the release store that sets it): without it the condition
    /// cannot hold and says nothing about synchronization.
    pub removable: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct SketchThread {
    /// `P0@warp 0,cta 0,gpu 0` or `P0@tlb 0, dev 0`.
    pub header: String,
    pub lines: Vec<Line>,
}

/// A whole pattern program.
#[derive(Clone, Debug)]
pub(crate) struct Sketch {
    /// `PTX` or `TileIR`.
    pub arch: &'static str,
    pub name: String,
    pub doc: String,
    pub init: Vec<String>,
    pub threads: Vec<SketchThread>,
    /// The final condition, e.g. `exists (P1:r0 != 1)`.
    pub condition: String,
}

/// What a mutant does to one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edit {
    Remove,
    Weaken,
}

impl Sketch {
    pub fn thread(&mut self, header: impl Into<String>) -> usize {
        self.threads.push(SketchThread { header: header.into(), lines: Vec::new() });
        self.threads.len() - 1
    }

    /// Appends a plain line to thread `t`.
    pub fn line(&mut self, t: usize, text: impl Into<String>) {
        self.threads[t].lines.push(Line { text: text.into(), step: None });
    }

    /// Appends a synchronization step that can only be removed.
    pub fn step(&mut self, t: usize, role: &'static str, text: impl Into<String>) {
        self.threads[t].lines.push(Line { text: text.into(), step: Some(StepSpec { role, weaken: None, removable: true }) });
    }

    /// Appends a synchronization step that can be removed or replaced by `weaker`.
    pub fn weakenable(&mut self, t: usize, role: &'static str, text: impl Into<String>, how: &'static str, weaker: impl Into<String>) {
        let step = StepSpec { role, weaken: Some((how, weaker.into())), removable: true };
        self.threads[t].lines.push(Line { text: text.into(), step: Some(step) });
    }

    /// Appends a synchronization step that can only be replaced by `weaker` (never removed).
    pub fn weaken_only(&mut self, t: usize, role: &'static str, text: impl Into<String>, how: &'static str, weaker: impl Into<String>) {
        let step = StepSpec { role, weaken: Some((how, weaker.into())), removable: false };
        self.threads[t].lines.push(Line { text: text.into(), step: Some(step) });
    }

    /// Every `(thread, line)` that is a step, in thread then line order.
    pub fn steps(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (t, th) in self.threads.iter().enumerate() {
            for (i, l) in th.lines.iter().enumerate() {
                if l.step.is_some() {
                    out.push((t, i));
                }
            }
        }
        out
    }

    /// The litmus text, with `edit` applied to the step at `(thread, line)` if given.
    pub fn render(&self, edit: Option<((usize, usize), Edit)>) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{} {}", self.arch, self.name);
        let _ = writeln!(s, "\"{}\"", self.doc);
        s.push_str("{\n");
        for i in &self.init {
            let _ = writeln!(s, "  {i};");
        }
        s.push_str("}\n");
        for (t, th) in self.threads.iter().enumerate() {
            let _ = writeln!(s, "{} {{", th.header);
            for (i, l) in th.lines.iter().enumerate() {
                let text = match edit {
                    Some(((et, ei), e)) if et == t && ei == i => match (e, &l.step) {
                        (Edit::Remove, _) => continue,
                        (Edit::Weaken, Some(StepSpec { weaken: Some((_, weaker)), .. })) => weaker.as_str(),
                        (Edit::Weaken, _) => l.text.as_str(),
                    },
                    _ => l.text.as_str(),
                };
                let _ = writeln!(s, "  {text};");
            }
            s.push_str("}\n");
        }
        let _ = writeln!(s, "{}", self.condition);
        s
    }
}

/// `name` is the thread's own name in the litmus text: `P{t}`.
pub(crate) fn thread_name(t: usize) -> String {
    format!("P{t}")
}
