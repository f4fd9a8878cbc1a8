//! `tcfuzz check`: explore every execution of litmus programs under a memory model and print the
//! verdicts, herd7-style or as JSON lines.

use crate::commands::dot::DotWriter;
use crate::commands::expect::Expectation;
use crate::commands::interrupt;
use crate::commands::progress::Progress;
use crate::exit;
use crate::inputs::{self, Input};
use serde::Serialize;
use serde::ser::SerializeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};
use tcfuzz_checker::{CheckError, Interruption, Method, ModelKind, Observation, Options, Race, RaceEvent, Verdict};
use tcfuzz_litmus::{Program, Quantifier, Span, ThreadKind};

/// The `--json` schema, shown by `tcfuzz check --help`.
const JSON_SCHEMA: &str = "\
JSON output (--json): one object per checked file per line, keys in this order:
  file       the path as found
  name       the test name from the header
  model      \"sc\", \"ptx\" or \"tileir\"
  states     [{\"state\": {\"P1:r0\": 0, ..., \"x\": 1, ...}, \"executions\": N}]: every final state
             (every register of every thread, then every location), with the number of complete
             executions ending in it (all of them: --max-states applies to text output only)
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
  expectation  null, or for a file with `// expect` header lines {\"matches\": bool,
             \"differences\": [strings]} (see --expect)
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
/// Negative count the final states (not executions) that satisfy and falsify the condition. At
/// most --max-states states are printed, then `... N more states` (--json prints all of them;
/// without --json only the printed ones are kept in memory). A check that runs longer than a
/// second shows its executions so far and their rate on stderr (when it is a terminal). The
/// summary line `checked N files, M with errors, K unsupported` goes to stderr.
///
/// A file whose header states its expected verdict (`// expect ptx: Never`, `// expect races:
/// none`, `// expect hang: no`, `// expect misuse: none`; examples/README.md) gets the line
/// `Expectation matches` or `Expectation DIFFERS from the header: ...` after its verdict; with
/// --expect, a difference makes the exit code 1.
///
/// Files that cannot be read, parsed or validated are reported as `tcfuzz parse` reports them; a
/// program using an instruction the checker does not model yet gets the line FILE:LINE:COL: error:
/// `INSTR` is not supported by the checker yet; a check that goes beyond --max-executions gets
/// FILE: error: too large to check, one that runs past --timeout FILE: error: not finished
/// within --timeout with the executions explored so far. Either way the other files are still
/// checked. Ctrl-C stops the check in progress: its partial counts are printed, no further file
/// is checked, and the exit code is 130 (a second Ctrl-C ends the process at once).
///
/// The model defaults to tileir for programs with Tile IR tile-block threads and to ptx otherwise;
/// --model tileir on a program without Tile IR threads is a usage error.
/// With --differential, each Tile IR program P is also lowered to PTX (the rules of `tcfuzz
/// lower`; programs without Tile IR threads are skipped with a note) and the
/// tileir-weaker-than-ptx check runs: if P is race-free, every final state the
/// lowering L allows under ptx must be allowed by P under tileir, and L must be race-free. Each
/// side is the explorer's verdict where it carries no caveat, else the exhaustive oracle's (as
/// --exact: the explorer's, with its caveats, where the side is too large for the oracle); the
/// verdicts of both sides are printed, then every violating state with a witness execution from
/// each side.
///
/// With --dot DIR, the witness execution of each distinct outcome (the final state restricted to
/// what the condition mentions) is written as a Graphviz file DIR/NAME-K.dot, NAME the test name
/// (characters other than letters, digits and +-._ replaced by _) and K = 1, 2, ... in the order
/// of the printed states; `Witness graphs: N files in DIR` follows the verdict, with one line per
/// file. Render one with `dot -Tsvg DIR/NAME-1.dot > w.svg`.
///
/// Exit codes: 0 every program was checked, whatever its verdict; 1 some file cannot be read,
/// parsed or validated, or is too large to check, or (--expect) differs from its expectation
/// (this wins over 3 and 4); 3 some program uses an instruction the checker does not support
/// yet (or, with --compiler, tileiras is missing or its PTX cannot be read back); 4
/// (--differential, --compiler) the check found a violation; 2 usage error (and --model tileir on
/// a program without Tile IR threads; this wins over the others); 130 interrupted by Ctrl-C.
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

    /// Run the compiler-lowering check on Tile IR programs: compile each with NVIDIA's tileiras
    /// (for sm_90; installed by `bash .ci/setup-nvidia`), read the PTX it generates back as a
    /// litmus program (one thread per hardware thread that matters), and check, as for
    /// --differential, that every state and race it allows is allowed by the Tile IR program.
    #[arg(long, conflicts_with_all = ["model", "oracle", "differential", "dot"])]
    pub compiler: bool,

    /// Use the exhaustive oracle instead of the DPOR explorer (exponential: small programs only).
    #[arg(long)]
    pub oracle: bool,

    /// Where the explorer's verdict carries a caveat (executions it may not explore), judge the
    /// program with the oracle instead when it is small enough (at most --oracle-limit candidate
    /// executions): the verdict is then exact and says `(oracle)`. Larger programs keep the
    /// explorer's verdict and its caveats.
    #[arg(long, conflicts_with = "oracle")]
    pub exact: bool,

    /// The most candidate executions the oracle enumerates, and thread traces it walks (--oracle,
    /// --exact, --differential, --compiler), before it gives a program up as too large; its
    /// time grows with them.
    #[arg(long, value_name = "N", default_value_t = Options::default().oracle_limit)]
    pub oracle_limit: u64,

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

    /// Stop a check after this many executions; the file is then reported as too large.
    #[arg(long, value_name = "N", default_value_t = Options::default().max_executions)]
    pub max_executions: u64,

    /// Stop a check after this many seconds (a decimal number) and report the executions
    /// explored so far; the other files are still checked.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,

    /// Print at most this many final states per file, then `... N more states` (--json prints
    /// every state).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_states: usize,

    /// Exit with code 1 when a verdict differs from its file's `// expect` header lines.
    #[arg(long)]
    pub expect: bool,

    /// Explore each program on N threads: its exploration split into subtrees that the threads
    /// take in turn (a thread out of work is given part of a busy one's), their results merged.
    /// The verdict is the one-thread verdict (counts, states,
    /// races), but for which execution stands as a witness where several could; --max-executions
    /// then bounds each thread. For one large program: the split costs a few repeated graphs.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1024), conflicts_with_all = ["oracle", "exact"])]
    pub threads: u16,
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
    /// Checked, and the verdict differs from the file's `// expect` lines: exit code 1 with
    /// `--expect`.
    Differs,
    /// Uses an instruction the checker does not support: exit code 3.
    Unsupported,
    /// `--differential` found a violation: exit code 4.
    Violation,
    /// Not for this command line (`--differential` on a program without Tile IR threads).
    Skipped,
    /// Stopped by Ctrl-C: no further file is checked; exit code 130.
    Interrupted,
    /// The command line does not fit the program (`--model tileir` on a PTX program): exit
    /// code 2.
    Usage,
}

/// A `--timeout` value: seconds, positive and finite.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text.parse().map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

/// Whether a program has Tile IR tile-block threads.
pub(crate) fn has_tile_threads(program: &Program) -> bool {
    program.threads.iter().any(|t| t.kind() == ThreadKind::TileBlock)
}

/// The arguments of a command that judges one program on its own (`tcfuzz explain`, `tcfuzz
/// trace`).
#[derive(Debug, clap::Args)]
pub struct OneProgram {
    /// A litmus file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// The memory model [default: tileir for programs with Tile IR threads, ptx otherwise].
    #[arg(long, value_enum)]
    pub model: Option<Model>,
}

/// The program of `args` loaded, and its model — `--model`, or by default Tile IR's for a program
/// with Tile IR threads and PTX's otherwise. What is wrong is printed, and becomes the exit
/// code: the file cannot be read or parsed (1), `--model tileir` on a program without Tile IR
/// threads (2).
pub(crate) fn one_program(args: &OneProgram) -> Result<(Program, ModelKind), ExitCode> {
    let (path, model) = (&args.file, args.model);
    let Some(program) = crate::inputs::load(path) else {
        return Err(ExitCode::from(exit::INPUT_ERRORS));
    };
    if model == Some(Model::TileIr) && !has_tile_threads(&program) {
        eprintln!(
            "{}: error: --model tileir judges Tile IR programs, and this one has no Tile IR threads (use --model ptx or sc)",
            path.display()
        );
        return Err(ExitCode::from(exit::USAGE));
    }
    let kind = match model {
        Some(m) => m.kind(),
        None if program.arch == tcfuzz_litmus::Arch::TileIr => ModelKind::TileIr,
        None => ModelKind::Ptx,
    };
    Ok((program, kind))
}

pub fn run(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    // Every file's check on one thread with the explorer's stack, not each on a new one.
    tcfuzz_checker::on_explorer_stack(|| check_files(args, quiet))
}

fn check_files(args: &Args, quiet: bool) -> anyhow::Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let mut options = Options {
        detect_duplicates: args.duplicates,
        max_executions: args.max_executions,
        oracle_limit: args.oracle_limit,
        // Only --dot shows witnesses.
        witnesses: args.dot.is_some(),
        // Text output prints the first states only, so only they are kept; --json prints all,
        // and the differential check compares whole sets.
        max_states: (!args.json && !args.differential).then_some(args.max_states),
        cancel: Some(interrupt::flag()),
        ..Options::default()
    };
    let mut dot = args.dot.as_deref().map(DotWriter::new).transpose()?;
    // The executions counter is there only where the progress line is shown.
    let show_progress = !quiet && std::io::stderr().is_terminal();
    let mut counts = Counts::default();
    let mut printed = 0;
    for input in inputs::expand(&args.paths, quiet) {
        if interrupt::pressed() {
            break;
        }
        counts.total += 1;
        let outcome = match input {
            Input::File(path) => {
                let file = path.display().to_string();
                options.progress = show_progress.then(|| Arc::new(AtomicU64::new(0)));
                check_file(&file, &path, args, &options, dot.as_mut(), &mut stdout, &mut printed)?
            }
            Input::Error { path, why } | Input::Skipped { path, why } => {
                eprintln!("{path}: error: {why}");
                Outcome::Failed
            }
        };
        counts.add(outcome);
    }
    if !quiet {
        eprintln!("{}", counts.summary(args));
    }
    Ok(counts.exit_code(args.expect))
}

/// How many files ended how.
#[derive(Default)]
struct Counts {
    total: usize,
    failed: usize,
    differs: usize,
    interrupted: bool,
    unsupported: usize,
    violations: usize,
    skipped: usize,
    usage: usize,
}

impl Counts {
    fn add(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Checked => {}
            Outcome::Failed => self.failed += 1,
            Outcome::Differs => self.differs += 1,
            Outcome::Unsupported => self.unsupported += 1,
            Outcome::Violation => self.violations += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::Usage => self.usage += 1,
            Outcome::Interrupted => self.interrupted = true,
        }
    }

    /// `checked N files, M with errors, K unsupported`, and the other counts where they apply.
    fn summary(&self, args: &Args) -> String {
        let mut summary = format!("checked {}, {} with errors, {} unsupported", inputs::files(self.total), self.failed, self.unsupported);
        if self.differs > 0 {
            summary.push_str(&format!(", {} differing from their expectation", self.differs));
        }
        if self.usage > 0 {
            summary.push_str(&format!(", {} not for --model tileir", self.usage));
        }
        if args.differential || args.compiler {
            let check = if args.compiler { "compiler-lowering" } else { "tileir-weaker-than-ptx" };
            summary.push_str(&format!(", {} skipped (no Tile IR threads), {} violating {check}", self.skipped, self.violations));
        }
        if self.interrupted {
            summary.push_str("; interrupted, the rest not checked");
        }
        summary
    }

    fn exit_code(&self, expect: bool) -> ExitCode {
        if self.interrupted {
            ExitCode::from(exit::INTERRUPTED)
        } else if self.usage > 0 {
            ExitCode::from(exit::USAGE)
        } else if self.failed > 0 || (expect && self.differs > 0) {
            ExitCode::from(exit::INPUT_ERRORS)
        } else if self.unsupported > 0 {
            ExitCode::from(exit::UNSUPPORTED)
        } else if self.violations > 0 {
            ExitCode::from(exit::DIFFERENTIAL_VIOLATION)
        } else {
            ExitCode::SUCCESS
        }
    }
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
    let src = match inputs::read(path) {
        Ok(src) => src,
        Err(why) => {
            eprintln!("{file}: error: {why}");
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
    if args.differential || args.compiler {
        let flag = if args.compiler { "--compiler" } else { "--differential" };
        if !has_tile_threads(&program) {
            eprintln!("{file}: note: skipped: {flag} checks Tile IR programs, and this one has no Tile IR threads");
            return Ok(Outcome::Skipped);
        }
        let lowering = if args.compiler { super::differential::Lowering::Compiler } else { super::differential::Lowering::Project };
        return super::differential::check_file(file, &program, lowering, options, args.json, out, printed);
    }
    if args.model == Some(Model::TileIr) && !has_tile_threads(&program) {
        eprintln!("{file}: error: --model tileir judges Tile IR programs, and this one has no Tile IR threads (use --model ptx or sc)");
        return Ok(Outcome::Usage);
    }
    let model = model_for(args, &program);
    tracing::info!(file, model = model.name(), "checking");
    let start = Instant::now();
    let options = &Options { deadline: args.timeout.map(|t| start + t), ..options.clone() };
    let progress = options.progress.clone().map(|n| Progress::start(file.to_string(), n));
    let result = if args.oracle {
        tcfuzz_checker::check_oracle(&program, model, options)
    } else if args.exact {
        tcfuzz_checker::check_exact(&program, model, options)
    } else if args.threads > 1 {
        tcfuzz_checker::check_parallel(&program, model, options, usize::from(args.threads))
    } else {
        tcfuzz_checker::check(&program, model, options)
    };
    let elapsed = start.elapsed();
    drop(progress);
    let verdict = match result {
        Ok(verdict) => verdict,
        Err(err @ CheckError::Interrupted { cause, .. }) => {
            let (why, outcome) = match cause {
                Interruption::Deadline => (format!("not finished within --timeout ({:.3} s)", elapsed.as_secs_f64()), Outcome::Failed),
                _ => ("interrupted by Ctrl-C".to_string(), Outcome::Interrupted),
            };
            eprintln!("{file}: error: {why}: {err}");
            return Ok(outcome);
        }
        Err(err) => return Ok(report_error(file, &err)),
    };
    let method = method_name(verdict.method);
    tracing::debug!(file, model = model.name(), method, ms = millis(elapsed), "checked");
    let condition = condition_text(&program);
    let dot_files = match dot {
        Some(writer) => Some((writer.dir().to_path_buf(), writer.write(&verdict)?)),
        None => None,
    };
    let differences = Expectation::of(&program).map(|e| e.differences(&verdict, model));
    if args.json {
        let mut json = JsonVerdict::new(file, &verdict, &condition, elapsed);
        json.dot_files = dot_files.as_ref().map(|(_, files)| files.iter().map(|f| f.path.display().to_string()).collect());
        json.expectation = differences.as_ref().map(|d| JsonExpectation { matches: d.is_empty(), differences: d });
        writeln!(out, "{}", serde_json::to_string(&json)?)?;
    } else {
        if *printed > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", text(file, &verdict, &condition, method, elapsed))?;
        match &differences {
            None => {}
            Some(d) if d.is_empty() => writeln!(out, "Expectation matches the header")?,
            Some(d) => writeln!(out, "Expectation DIFFERS from the header: {}", d.join("; "))?,
        }
        if let Some((dir, files)) = &dot_files {
            writeln!(out, "Witness graphs: {} files in {}", files.len(), dir.display())?;
            for f in files {
                writeln!(out, "  {}  {}", f.path.display(), f.state)?;
            }
        }
    }
    *printed += 1;
    Ok(if differences.is_some_and(|d| !d.is_empty()) { Outcome::Differs } else { Outcome::Checked })
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
            eprintln!("{file}: error: too large to check: {}", user_words(what));
            Outcome::Failed
        }
        other => {
            eprintln!("{file}: error: {}", user_words(&other.to_string()));
            Outcome::Failed
        }
    }
}

/// A checker message in the words of the command line: the explorer's limit is `--max-executions`
/// here and the oracle's `--oracle-limit`, not the fields of its options.
pub(crate) fn user_words(message: &str) -> String {
    message.replace("Options::max_executions", "--max-executions").replace("Options::oracle_limit", "--oracle-limit")
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
    // Not counted: `tcfuzz explore`'s parts kept their smallest states, and a state one part
    // left out may be another's; the counts are lower bounds.
    let at_least = if v.states_counted { "" } else { "at least " };
    let _ = writeln!(s, "States {at_least}{}", v.states.len() as u64 + v.omitted_states);
    for state in &v.states {
        let values: String = state.values.iter().map(|(k, x)| format!("{k}={}; ", v.show_value(k, *x))).collect();
        let plural = if state.executions == 1 { "" } else { "s" };
        let _ = writeln!(s, "{values}({} execution{plural})", state.executions);
    }
    if !v.states_counted {
        let _ = writeln!(s, "... {at_least}{} more states (--max-states: each part kept its smallest ones)", v.omitted_states);
    } else if v.omitted_states > 0 {
        let _ = writeln!(s, "... {} more states (--max-states; --json prints all of them)", v.omitted_states);
    }
    let c = &v.condition;
    let _ = writeln!(s, "{}", if c.validated { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {at_least}{} Negative: {at_least}{}", c.positive, c.negative);
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
    /// Distinct final states not listed in `states` (`tcfuzz explore --max-states`); absent
    /// when every state is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted_states: Option<JsonOmitted>,
    condition: JsonCondition<'a>,
    executions: JsonExecutions,
    races: Vec<JsonRace<'a>>,
    hangs: &'a [String],
    loop_bound: &'a [String],
    misuse: Vec<JsonMisuse<'a>>,
    caveats: &'a [String],
    method: &'static str,
    expectation: Option<JsonExpectation<'a>>,
    time_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) differential: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dot_files: Option<Vec<String>>,
}

#[derive(Serialize)]
struct JsonExpectation<'a> {
    matches: bool,
    differences: &'a [String],
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
struct JsonOmitted {
    states: u64,
    /// False where `states` is a lower bound (the parts of an exploration kept their smallest
    /// states; one part's left-out state may be another's).
    exact: bool,
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
            omitted_states: (v.omitted_states > 0 || !v.states_counted)
                .then_some(JsonOmitted { states: v.omitted_states, exact: v.states_counted }),
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
            expectation: None,
            time_ms: millis(elapsed),
            differential: None,
            dot_files: None,
        }
    }
}
