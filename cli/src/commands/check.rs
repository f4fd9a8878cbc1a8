//! `tcfuzz check`: explore every execution of litmus programs under a memory model and print the
//! verdicts, herd7-style or as JSON lines.

use crate::commands::dot::DotWriter;
use crate::commands::parse::read;
use crate::exit;
use crate::inputs::{self, Input};
use serde::Serialize;
use serde::ser::SerializeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tcfuzz_checker::{CheckError, Method, ModelKind, Observation, Options, Race, RaceEvent, Verdict};
use tcfuzz_litmus::{Program, Quantifier, Span};

/// The `--json` schema, shown by `tcfuzz check --help`.
const JSON_SCHEMA: &str = "\
JSON output (--json): one object per checked file per line, keys in this order:
  file       the path as found
  name       the test name from the header
  model      \"sc\", \"ptx\" or \"tileir\"
  states     [{\"state\": {\"P1:r0\": 0, ..., \"x\": 1, ...}, \"executions\": N}]: every final state
             (every register of every thread, then every location), with the number of complete
             executions ending in it
  condition  {\"text\": \"exists (P1:r0 == 1 /\\\\ P1:r1 == 0)\", \"result\": \"Never\" | \"Sometimes\" |
             \"Always\", \"holds\": herd7's Ok (true) or No (false)}
  executions {\"complete\": N, \"blocked\": N, \"duplicates\": N, or null without --duplicates,
             \"assume_failed\": N}: executions discarded by a failed `assume` are counted apart,
             those no later write can rescue (as GenMC counts its blocked executions)
  races      [{\"kind\": \"data\" | \"tmem\" | \"proxy\", \"rule\": what would order them,
             \"first\": EVENT, \"second\": EVENT}], EVENT = {\"thread\": \"P0\", \"index\": position in
             program order, \"line\", \"col\", \"access\": \"read\" | \"write\", \"location\": \"x\"}
  hangs      threads that wait forever in some execution (a barrier or mbarrier that never
             completes), e.g. \"P1 (on bar)\"
  loop_bound threads that hit the loop bound in some execution (those executions count as blocked)
  misuse     [{\"rule\": \"alloc-after-relinquish\" | \"dealloc-not-allocated\" | \"exit-with-live-columns\",
             \"description\", \"section\": the PTX ISA section, \"thread\", \"line\", \"col\" (0 when
             the rule is about the whole CTA)}]: Tensor Memory allocator rules broken in some execution
  caveats    ways in which the verdict may be incomplete (strings; [] when it is exact)
  method     \"explorer\" or \"oracle\": what judged the program (--oracle; with --exact, the
             oracle where the explorer's verdict had a caveat and the program was small enough)
  time_ms    time to check the file, in milliseconds (a float)
  differential  only with --differential: {\"check\": \"tileir-weaker-than-ptx\", \"holds\": bool,
             \"tileir_race_free\": bool, \"ptx\": {\"result\", \"states\", \"races\"} of the lowered
             program, \"violations\": [{\"state\": {...}, \"ptx_witness\": TEXT, \"tileir_nearest\":
             {\"state\": {...}, \"witness\": TEXT} or null}], \"race_violations\": [{\"first\", \"second\"}],
             \"extra_states\": N (states of the lowering the Tile IR program does not allow, violating
             or not), \"caveats\": [...]}; the other keys then describe the Tile IR side
  dot_files  only with --dot: the Graphviz files written for this file, in the order of the
             states (paths as strings)
Files that cannot be read, parsed, validated or checked get no line: their errors go to stderr, as
in text mode. The summary line goes to stderr.";

/// Check litmus programs under a memory model and print their verdicts.
///
/// Each PATH is a file, a directory (searched recursively for *.litmus files, in sorted order) or a
/// glob pattern, as for `tcfuzz parse`. Every execution of each program is explored under the model
/// (by default with the DPOR explorer; with --oracle by the exhaustive herd-style oracle; with
/// --exact by the oracle where the explorer's verdict has a caveat and the program is small
/// enough) and the verdict is printed herd7-style: the final states with their execution counts,
/// Ok/No, the condition and its observation (Never, Sometimes or Always), the execution counts, races (data,
/// tmem or proxy, with the rule that would order them), hangs, Tensor Memory allocator misuse,
/// threads that hit the loop bound, caveats and the time taken. `tcfuzz explain` shows one
/// execution per problem as a per-thread timeline. As in the checker, Positive and
/// Negative count the final states (not executions) that satisfy and falsify the condition. A
/// summary line `checked N files, M with errors, K unsupported` ends the output.
///
/// Files that cannot be read, parsed or validated are reported as `tcfuzz parse` reports them; a
/// program using an instruction the checker does not model yet gets the line FILE:LINE:COL: error:
/// `INSTR` is not supported by the checker yet. Either way the other files are still checked.
///
/// The model defaults to tileir for programs with Tile IR tile-block threads and to ptx otherwise.
/// With --differential, each Tile IR program P is also lowered to PTX (the rules of `tcfuzz
/// lower`) and the tileir-weaker-than-ptx check runs: if P is race-free, every final state the
/// lowering L allows under ptx must be allowed by P under tileir, and L must be race-free. Both
/// sides use the exhaustive oracle (the explorer where a side is too large for it); the verdicts
/// of both sides are printed, then every violating state with a witness execution from each side.
///
/// With --dot DIR, the witness execution of each distinct outcome (the final state restricted to
/// what the condition mentions) is written as a Graphviz file DIR/NAME-K.dot, NAME the test name
/// (characters other than letters, digits and +-._ replaced by _) and K = 1, 2, ... in the order
/// of the printed states; `Witness graphs: N files in DIR` follows the verdict, with one line per
/// file. Render one with `dot -Tsvg DIR/NAME-1.dot > w.svg`.
///
/// Exit codes: 0 every program was checked, whatever its verdict; 1 some file cannot be read,
/// parsed or validated, or is too large to check (this wins over 3 and 4); 3 some program uses an
/// instruction the checker does not support yet; 4 (--differential) the check found a violation;
/// 2 usage error.
#[derive(Debug, clap::Args)]
#[command(after_long_help = JSON_SCHEMA)]
pub struct Args {
    /// Files, directories or glob patterns.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The memory model [default: tileir for programs with Tile IR threads, ptx otherwise].
    #[arg(long, value_enum)]
    pub model: Option<Model>,

    /// Run the tileir-weaker-than-ptx differential check on Tile IR programs (see above).
    #[arg(long, conflicts_with_all = ["model", "oracle"])]
    pub differential: bool,

    /// Use the exhaustive oracle instead of the DPOR explorer (exponential: small programs only).
    #[arg(long)]
    pub oracle: bool,

    /// Where the explorer's verdict carries a caveat (executions it may not explore), judge the
    /// program with the oracle instead when it is small enough (at most 2,000,000 candidate
    /// executions): the verdict is then exact and says `(oracle)`. Larger programs keep the
    /// explorer's verdict and its caveats.
    #[arg(long, conflicts_with = "oracle")]
    pub exact: bool,

    /// Print one JSON object per file per line instead of text (schema below, in --help).
    #[arg(long)]
    pub json: bool,

    /// Hash every execution graph and report how many were produced twice (slower; the explorer
    /// must report 0).
    #[arg(long)]
    pub duplicates: bool,

    /// Write the witness execution of each outcome as a Graphviz file DIR/NAME-K.dot (DIR is
    /// created if missing; see above).
    #[arg(long, value_name = "DIR", conflicts_with = "differential")]
    pub dot: Option<PathBuf>,
}

/// The `--model` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Model {
    /// Sequential consistency.
    Sc,
    /// The PTX memory consistency model (generic proxy).
    Ptx,
    /// The CUDA Tile IR memory model (Tile IR threads only).
    #[value(name = "tileir")]
    TileIr,
}

impl Model {
    pub(crate) fn kind(self) -> ModelKind {
        match self {
            Model::Sc => ModelKind::Sc,
            Model::Ptx => ModelKind::Ptx,
            Model::TileIr => ModelKind::TileIr,
        }
    }
}

/// The model a program is checked under: the one asked for, else tileir for Tile IR programs.
fn model_for(args: &Args, program: &Program) -> ModelKind {
    match args.model {
        Some(m) => m.kind(),
        None if program.arch == tcfuzz_litmus::Arch::TileIr => ModelKind::TileIr,
        None => ModelKind::Ptx,
    }
}

/// How checking one file ended.
pub(crate) enum Outcome {
    Checked,
    /// Unreadable, invalid, or too large: exit code 1.
    Failed,
    /// Uses an instruction the checker does not support: exit code 3.
    Unsupported,
    /// `--differential` found a violation: exit code 4.
    Violation,
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut options = Options { detect_duplicates: args.duplicates, ..Options::default() };
    // --dot needs the witness executions.
    options.witnesses |= args.dot.is_some();
    let mut dot = args.dot.as_deref().map(DotWriter::new).transpose()?;
    let (mut total, mut failed, mut unsupported, mut violations) = (0, 0, 0, 0);
    let mut printed = 0;
    for input in inputs::expand(&args.paths) {
        total += 1;
        let outcome = match input {
            Input::File(path) => {
                let file = path.display().to_string();
                check_file(&file, &path, args, &options, dot.as_mut(), &mut stdout, &mut printed)?
            }
            Input::Error(_, err) => {
                eprintln!("error: {err:#}");
                Outcome::Failed
            }
        };
        match outcome {
            Outcome::Checked => {}
            Outcome::Failed => failed += 1,
            Outcome::Unsupported => unsupported += 1,
            Outcome::Violation => violations += 1,
        }
    }
    if !quiet {
        let mut summary = format!("checked {total} files, {failed} with errors, {unsupported} unsupported");
        if args.differential {
            summary.push_str(&format!(", {violations} violating tileir-weaker-than-ptx"));
        }
        if args.json {
            eprintln!("{summary}");
        } else {
            if printed > 0 {
                writeln!(stdout)?;
            }
            writeln!(stdout, "{summary}")?;
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(exit::INPUT_ERRORS)
    } else if unsupported > 0 {
        ExitCode::from(exit::UNSUPPORTED)
    } else if violations > 0 {
        ExitCode::from(exit::DIFFERENTIAL_VIOLATION)
    } else {
        ExitCode::SUCCESS
    })
}

/// Reads, parses and checks one file and prints its verdict; errors go to stderr. Only failures to
/// write stdout are returned as errors.
fn check_file(
    file: &str,
    path: &std::path::Path,
    args: &Args,
    options: &Options,
    dot: Option<&mut DotWriter>,
    out: &mut impl Write,
    printed: &mut usize,
) -> anyhow::Result<Outcome> {
    let src = match read(path) {
        Ok(src) => src,
        Err(err) => {
            eprintln!("error: {err:#}");
            return Ok(Outcome::Failed);
        }
    };
    let program = match tcfuzz_litmus::parse(&src) {
        Ok(program) => program,
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(file));
            return Ok(Outcome::Failed);
        }
    };
    if args.differential {
        return super::differential::check_file(file, &program, options, args.json, out, printed);
    }
    let model = model_for(args, &program);
    tracing::info!(file, model = model.name(), "checking");
    let start = Instant::now();
    let result = if args.oracle {
        tcfuzz_checker::check_oracle(&program, model, options)
    } else if args.exact {
        tcfuzz_checker::check_exact(&program, model, options)
    } else {
        tcfuzz_checker::check(&program, model, options)
    };
    let elapsed = start.elapsed();
    let verdict = match result {
        Ok(verdict) => verdict,
        Err(err) => return Ok(report_error(file, &err)),
    };
    let method = method_name(verdict.method);
    tracing::debug!(file, model = model.name(), method, ms = millis(elapsed), "checked");
    let condition = condition_text(&program);
    let dot_files = match dot {
        Some(writer) => Some((writer.dir().to_path_buf(), writer.write(&verdict)?)),
        None => None,
    };
    if args.json {
        let mut json = JsonVerdict::new(file, &verdict, &condition, elapsed);
        json.dot_files = dot_files.as_ref().map(|(_, files)| files.iter().map(|f| f.path.display().to_string()).collect());
        writeln!(out, "{}", serde_json::to_string(&json)?)?;
    } else {
        if *printed > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", text(file, &verdict, &condition, method, elapsed))?;
        if let Some((dir, files)) = &dot_files {
            writeln!(out, "Witness graphs: {} files in {}", files.len(), dir.display())?;
            for f in files {
                writeln!(out, "  {}  {}", f.path.display(), f.state)?;
            }
        }
    }
    *printed += 1;
    Ok(Outcome::Checked)
}

/// How `method` is named in the output.
fn method_name(method: Method) -> &'static str {
    match method {
        Method::Explorer => "explorer",
        Method::Oracle => "oracle",
    }
}

/// Prints a checker error the way `tcfuzz parse` prints diagnostics.
pub(crate) fn report_error(file: &str, err: &CheckError) -> Outcome {
    match err {
        CheckError::Unsupported { instruction, span } => {
            eprintln!("{}: error: `{instruction}` is not supported by the checker yet", position(file, *span));
            Outcome::Unsupported
        }
        CheckError::BadProgram { message, span } => {
            eprintln!("{}: error: {message}", position(file, *span));
            Outcome::Failed
        }
        CheckError::TooLarge(what) => {
            eprintln!("error: {file}: too large to check: {what}");
            Outcome::Failed
        }
        other => {
            eprintln!("error: {file}: {other}");
            Outcome::Failed
        }
    }
}

/// `FILE:LINE:COL`, or `FILE` for an error about the whole program (span 0:0).
fn position(file: &str, span: Span) -> String {
    if span == Span::default() { file.to_string() } else { format!("{file}:{span}") }
}

/// The condition as the canonical printer writes it: `exists (P1:r0 == 1 /\ P1:r1 == 0)`.
pub(crate) fn condition_text(program: &Program) -> String {
    let printed = tcfuzz_litmus::print(program);
    let quantifier = match program.condition.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    // The printer writes the condition last, on one line.
    printed.lines().rev().find(|l| l.starts_with(quantifier)).unwrap_or(quantifier).to_string()
}

pub(crate) fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

pub(crate) fn observation_name(o: Observation) -> &'static str {
    match o {
        Observation::Never => "Never",
        Observation::Sometimes => "Sometimes",
        Observation::Always => "Always",
    }
}

/// The herd7-like text form of one verdict.
pub(crate) fn text(file: &str, v: &Verdict, condition: &str, method: &str, elapsed: Duration) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "Test {}", v.program);
    let _ = writeln!(s, "File {file}");
    let _ = writeln!(s, "Model {} ({method})", v.model.name());
    let _ = writeln!(s, "States {}", v.states.len());
    for state in &v.states {
        let values: String = state.values.iter().map(|(k, x)| format!("{k}={}; ", v.show_value(k, *x))).collect();
        let plural = if state.executions == 1 { "" } else { "s" };
        let _ = writeln!(s, "{values}({} execution{plural})", state.executions);
    }
    let c = &v.condition;
    let _ = writeln!(s, "{}", if c.validated { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", c.positive, c.negative);
    let _ = writeln!(s, "Condition {condition}");
    let _ = writeln!(s, "Observation {} {} {} {}", v.program, observation_name(c.observation), c.positive, c.negative);
    let duplicates = v.stats.duplicates.map_or_else(|| "duplicates not checked".to_string(), |d| format!("duplicates {d}"));
    let assumed = if v.stats.assume_failed > 0 { format!(", assume failed {}", v.stats.assume_failed) } else { String::new() };
    let _ = writeln!(s, "Executions complete {}, blocked {}{assumed}, {duplicates}", v.stats.complete, v.stats.blocked);
    if v.races.is_empty() {
        let _ = writeln!(s, "Races: none");
    } else {
        let _ = writeln!(s, "Races: {}", v.races.len());
        // What would order a race: once per kind where it is the kind's rule, under the race
        // where the race says more.
        for Race { kind, first, second, rule } in &v.races {
            let _ = writeln!(s, "  {} race: {} and {}", kind.name(), race_event(file, first), race_event(file, second));
            if rule != kind.rule() {
                let _ = writeln!(s, "    (what would order them: {rule})");
            }
        }
        let kinds: std::collections::BTreeSet<_> = v.races.iter().filter(|r| r.rule == r.kind.rule()).map(|r| r.kind).collect();
        for kind in kinds {
            let _ = writeln!(s, "  ({} races would be ordered by {})", kind.name(), kind.rule());
        }
    }
    if v.misuse.is_empty() {
        let _ = writeln!(s, "Misuse: none");
    } else {
        let _ = writeln!(s, "Misuse: {}", v.misuse.len());
        for m in &v.misuse {
            let at = if m.span == Span::default() { String::new() } else { format!(" at {file}:{}", m.span) };
            let _ = writeln!(s, "  {}: {} ({}), thread {}{at}", m.rule.name(), m.describe(), m.section(), m.thread);
        }
    }
    if v.hung_threads.is_empty() {
        let _ = writeln!(s, "Hangs: none");
    } else {
        let _ = writeln!(s, "Hangs: {} (wait forever in some execution)", v.hung_threads.join(", "));
    }
    if v.blocked_threads.is_empty() {
        let _ = writeln!(s, "Blocked threads: none");
    } else {
        let _ = writeln!(s, "Blocked threads: {} (loop bound reached)", v.blocked_threads.join(", "));
    }
    if v.caveats.is_empty() {
        let _ = writeln!(s, "Caveats: none");
    } else {
        let _ = writeln!(s, "Caveats: {}", v.caveats.len());
        for caveat in &v.caveats {
            let _ = writeln!(s, "  {caveat}");
        }
    }
    let _ = writeln!(s, "Time {:.3}ms", millis(elapsed));
    s
}

/// `thread P0 #2 (write x) at FILE:LINE:COL`.
pub(crate) fn race_event(file: &str, e: &RaceEvent) -> String {
    format!("thread {} #{} ({} {}) at {file}:{}", e.thread, e.index, e.access, e.location, e.span)
}

/// One line of `--json` output; the field order is the documented one.
#[derive(Serialize)]
pub(crate) struct JsonVerdict<'a> {
    file: &'a str,
    name: &'a str,
    model: &'static str,
    states: Vec<JsonState<'a>>,
    condition: JsonCondition<'a>,
    executions: JsonExecutions,
    races: Vec<JsonRace<'a>>,
    hangs: &'a [String],
    loop_bound: &'a [String],
    misuse: Vec<JsonMisuse<'a>>,
    caveats: &'a [String],
    method: &'static str,
    time_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) differential: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dot_files: Option<Vec<String>>,
}

#[derive(Serialize)]
struct JsonState<'a> {
    state: StateMap<'a, std::sync::Arc<str>>,
    executions: u64,
}

/// A final state as a JSON object, in the checker's order (registers, then locations).
pub(crate) struct StateMap<'a, N>(pub(crate) &'a [(N, i64)]);

impl<N: AsRef<str>> Serialize for StateMap<'_, N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in self.0 {
            map.serialize_entry(name.as_ref(), value)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct JsonCondition<'a> {
    text: &'a str,
    result: &'static str,
    holds: bool,
}

#[derive(Serialize)]
struct JsonExecutions {
    complete: u64,
    blocked: u64,
    duplicates: Option<u64>,
    assume_failed: u64,
}

#[derive(Serialize)]
pub(crate) struct JsonRace<'a> {
    kind: &'static str,
    rule: &'a str,
    first: JsonRaceEvent<'a>,
    second: JsonRaceEvent<'a>,
}

impl<'a> JsonRace<'a> {
    pub(crate) fn new(r: &'a Race) -> Self {
        JsonRace { kind: r.kind.name(), rule: &r.rule, first: JsonRaceEvent::new(&r.first), second: JsonRaceEvent::new(&r.second) }
    }
}

#[derive(Serialize)]
struct JsonMisuse<'a> {
    rule: &'static str,
    description: &'static str,
    section: &'static str,
    thread: &'a str,
    line: u32,
    col: u32,
}

#[derive(Serialize)]
pub(crate) struct JsonRaceEvent<'a> {
    thread: &'a str,
    index: u32,
    line: u32,
    col: u32,
    access: &'a str,
    location: &'a str,
}

impl<'a> JsonRaceEvent<'a> {
    pub(crate) fn new(e: &'a RaceEvent) -> Self {
        JsonRaceEvent { thread: &e.thread, index: e.index, line: e.span.line, col: e.span.col, access: e.access, location: &e.location }
    }
}

impl<'a> JsonVerdict<'a> {
    pub(crate) fn new(file: &'a str, v: &'a Verdict, condition: &'a str, elapsed: Duration) -> Self {
        JsonVerdict {
            file,
            name: &v.program,
            model: v.model.name(),
            states: v.states.iter().map(|s| JsonState { state: StateMap(&s.values), executions: s.executions }).collect(),
            condition: JsonCondition { text: condition, result: observation_name(v.condition.observation), holds: v.condition.validated },
            executions: JsonExecutions {
                complete: v.stats.complete,
                blocked: v.stats.blocked,
                duplicates: v.stats.duplicates,
                assume_failed: v.stats.assume_failed,
            },
            races: v.races.iter().map(JsonRace::new).collect(),
            hangs: &v.hung_threads,
            loop_bound: &v.blocked_threads,
            misuse: v
                .misuse
                .iter()
                .map(|m| JsonMisuse {
                    rule: m.rule.name(),
                    description: m.describe(),
                    section: m.section(),
                    thread: &m.thread,
                    line: m.span.line,
                    col: m.span.col,
                })
                .collect(),
            caveats: &v.caveats,
            method: method_name(v.method),
            time_ms: millis(elapsed),
            differential: None,
            dot_files: None,
        }
    }
}
