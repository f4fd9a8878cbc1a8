//! Issue 21, "The CLI as a user meets it": one regression test per numbered item, named after
//! what it fixes, and the bounded no-crash run over generated, mutated and nasty programs.

use super::*;
use std::time::{Duration, Instant};

/// `tcfuzz ARGS` in `cwd`, killed (and the test failed) after `limit`: for inputs that used to
/// hang.
fn tcfuzz_within(args: &[&str], cwd: &Path, limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tcfuzz");
    // Drain the pipes while waiting, or a child with much to say blocks on a full pipe.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("tcfuzz {args:?} still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: out.join().expect("stdout"), stderr: err.join().expect("stderr") }
}

/// The process exited by itself (no signal, no abort) with one of `codes`.
fn exited_with(out: &Output, codes: &[i32], what: &str) {
    match out.status.code() {
        Some(c) if codes.contains(&c) => {}
        other => panic!("{what}: exit {other:?} (a signal if None)\nstdout: {}\nstderr: {}", stdout(out), stderr(out)),
    }
}

fn deep_condition() -> String {
    format!("PTX t\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 ;\nexists {}x == 1{}\n", "(".repeat(10_000), ")".repeat(10_000))
}

#[test]
fn item1_deep_nesting_is_an_error_in_every_command_not_a_stack_overflow() {
    let dir = TempDir::new("i21-deep");
    dir.write("deep.litmus", &deep_condition());
    for command in ["parse", "check", "fmt", "explain", "lower"] {
        let out = tcfuzz(&[command, "deep.litmus"], dir.path());
        exited_with(&out, &[1], command);
        assert!(
            stderr(&out).starts_with("deep.litmus:5:208: error: the final condition is nested too deeply: at most 200 levels"),
            "{command}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn item2_a_column_wider_than_65535_characters_prints() {
    let dir = TempDir::new("i21-wide");
    let name = "x".repeat(70_000);
    let src = format!("PTX wide\n{{ {name} = 0; }}\n P0@cta 0,gpu 0 ;\n st.relaxed.gpu {name}, 1 ;\nexists ({name} == 1)\n");
    dir.write("wide.litmus", &src);
    let out = tcfuzz(&["fmt", "--stdout", "wide.litmus"], dir.path());
    exited_with(&out, &[0], "fmt");
    assert!(stdout(&out).contains(&format!(" st.relaxed.gpu {name}, 1 ;\n")));
    let out = tcfuzz(&["check", "wide.litmus"], dir.path());
    exited_with(&out, &[0], "check");
    assert!(stdout(&out).contains("Observation wide Always 1 0"), "{}", stdout(&out));
}

#[test]
fn item3_a_named_pipe_in_a_directory_is_skipped_not_read() {
    let dir = TempDir::new("i21-fifo");
    dir.write("ex/sb.litmus", SB);
    let fifo = dir.path().join("ex/pipe.litmus");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        println!("skipped: mkfifo is not available");
        return;
    }
    for command in ["parse", "check", "fmt"] {
        let out = tcfuzz_within(&[command, "ex"], dir.path(), Duration::from_secs(60));
        exited_with(&out, &[0], command);
        let note = format!("{}: note: skipped: not a regular file\n", Path::new("ex/pipe.litmus").display());
        assert!(stderr(&out).starts_with(&note), "{command}: {}", stderr(&out));
    }
}

#[test]
fn item4_max_executions_bounds_a_check_and_names_the_option() {
    let dir = TempDir::new("i21-max-exec");
    dir.write("sb.litmus", SB);
    let out = tcfuzz(&["check", "--max-executions", "2", "sb.litmus"], dir.path());
    exited_with(&out, &[1], "check");
    assert!(
        stderr(&out).starts_with("sb.litmus: error: too large to check: more than 2 executions (raise --max-executions)\n"),
        "{}",
        stderr(&out)
    );
    // The bench reports the same limit in the same words.
    let out = tcfuzz(&["bench", "--family", "readers", "--n", "3", "--max-executions", "2"], dir.path());
    exited_with(&out, &[1], "bench");
    assert!(stderr(&out).contains("(raise --max-executions)"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Options::"), "{}", stderr(&out));
}

#[test]
fn oracle_limit_bounds_the_oracle_and_names_the_option() {
    let dir = TempDir::new("i21-oracle-limit");
    dir.write("sb.litmus", SB);
    let out = tcfuzz(&["check", "--oracle", "--oracle-limit", "2", "sb.litmus"], dir.path());
    exited_with(&out, &[1], "check");
    assert!(
        stderr(&out).starts_with("sb.litmus: error: too large to check: oracle: too many thread traces (raise --oracle-limit)\n"),
        "{}",
        stderr(&out)
    );
    // Raised, the same check goes through, with the explorer's count.
    let out = tcfuzz(&["check", "--oracle", "--oracle-limit", "1000", "--json", "sb.litmus"], dir.path());
    exited_with(&out, &[0], "check");
    let explorer = tcfuzz(&["check", "--json", "sb.litmus"], dir.path());
    let complete =
        |o: &std::process::Output| serde_json::from_str::<serde_json::Value>(&stdout(o)).expect("JSON")["executions"]["complete"].clone();
    assert_eq!(complete(&out), complete(&explorer), "{}", stdout(&out));
    assert!(stdout(&out).contains("\"method\":\"oracle\""), "{}", stdout(&out));
}

/// Five threads storing and loading two locations: millions of executions, minutes in a debug
/// build.
fn slow_program() -> String {
    let n = 5;
    let heads: Vec<String> = (0..n).map(|i| format!("P{i}@cta {i},gpu 0")).collect();
    let row = |f: &dyn Fn(usize) -> String| format!(" {} ;\n", (0..n).map(f).collect::<Vec<_>>().join(" | "));
    let mut s = format!("PTX slow\n{{ x = 0; y = 0; }}\n {} ;\n", heads.join(" | "));
    s += &row(&|i| format!("st.relaxed.gpu x, {}", i + 1));
    s += &row(&|_| "ld.relaxed.gpu r0, x".to_string());
    s += &row(&|i| format!("st.relaxed.gpu y, {}", i + 1));
    s += &row(&|_| "ld.relaxed.gpu r1, y".to_string());
    s + "exists (P0:r0 == 1)\n"
}

#[test]
fn item4_timeout_stops_a_check_with_its_partial_counts_and_goes_on() {
    let dir = TempDir::new("i21-timeout");
    dir.write("a-slow.litmus", &slow_program());
    dir.write("b-sb.litmus", SB);
    let start = Instant::now();
    let out = tcfuzz_within(&["check", "--timeout", "0.5", "a-slow.litmus", "b-sb.litmus"], dir.path(), Duration::from_secs(60));
    assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
    exited_with(&out, &[1], "check --timeout");
    let err = stderr(&out);
    assert!(err.starts_with("a-slow.litmus: error: not finished within --timeout ("), "{err}");
    assert!(err.contains(" s): stopped at the deadline after ") && err.contains(" complete, "), "{err}");
    assert!(stdout(&out).contains("Test SB\n"), "the next file is still checked: {}", stdout(&out));
    let out = tcfuzz(&["check", "--timeout", "0", "b-sb.litmus"], dir.path());
    exited_with(&out, &[2], "--timeout 0");
}

#[test]
fn item4_ctrl_c_prints_the_partial_counts_of_the_file_in_progress() {
    let dir = TempDir::new("i21-ctrl-c");
    dir.write("a-slow.litmus", &slow_program());
    dir.write("b-sb.litmus", SB);
    let child = spawn_tcfuzz(&["check", "a-slow.litmus", "b-sb.litmus"], dir.path());
    // Wait until the handler is installed (Linux: SIGINT, bit 1, in SigCgt), then a little more.
    let caught = || {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let mask = status.lines().find_map(|l| l.strip_prefix("SigCgt:")).map(str::trim).unwrap_or("0");
        u64::from_str_radix(mask, 16).is_ok_and(|m| m & 2 != 0)
    };
    let start = Instant::now();
    while !caught() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: sends SIGINT to the child we started.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().expect("output");
    exited_with(&out, &[130], "check interrupted");
    let err = stderr(&out);
    assert!(err.starts_with("a-slow.litmus: error: interrupted by Ctrl-C: cancelled after "), "{err}");
    assert!(err.ends_with("; interrupted, the rest not checked\n"), "{err}");
    assert!(!stdout(&out).contains("Test SB"), "no file after the interrupted one: {}", stdout(&out));
}

/// Three writers of `x` and one reader of every write: 4 * 3! = 24 final states.
const MANY_STATES: &str = "PTX many
{ x = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 | P2@cta 2,gpu 0 | P3@cta 3,gpu 0 ;
 st.relaxed.gpu x, 1 | st.relaxed.gpu x, 2 | st.relaxed.gpu x, 3 | ld.relaxed.gpu r0, x ;
exists (P3:r0 == 2)
";

#[test]
fn item4_max_states_caps_the_printed_states_and_json_has_them_all() {
    let dir = TempDir::new("i21-max-states");
    dir.write("many.litmus", MANY_STATES);
    let all = tcfuzz(&["check", "many.litmus"], dir.path());
    exited_with(&all, &[0], "check");
    let states = stdout(&all).lines().find_map(|l| l.strip_prefix("States ")).map(str::to_string).expect("a States line");
    let n: usize = states.parse().expect("a number");
    assert!(n > 5, "{}", stdout(&all));
    let out = tcfuzz(&["check", "--max-states", "5", "many.litmus"], dir.path());
    exited_with(&out, &[0], "check");
    let text = stdout(&out);
    assert!(text.contains(&format!("States {n}\n")), "{text}");
    assert_eq!(text.lines().filter(|l| l.ends_with("execution)") || l.ends_with("executions)")).count(), 5, "{text}");
    assert!(text.contains(&format!("... {} more states (--max-states; --json prints all of them)\n", n - 5)), "{text}");
    // The verdict is the same: Positive/Negative count every state.
    let observation = |t: &str| t.lines().find(|l| l.starts_with("Observation")).map(str::to_string);
    assert_eq!(observation(&text), observation(&stdout(&all)));
    let json = tcfuzz(&["check", "--json", "--max-states", "5", "many.litmus"], dir.path());
    let line: serde_json::Value = serde_json::from_str(stdout(&json).trim()).expect("one JSON line");
    assert_eq!(line["states"].as_array().map(Vec::len), Some(n), "--json prints every state");
}

#[test]
fn item5_an_unreadable_entry_is_reported_and_the_rest_is_checked() {
    let dir = TempDir::new("i21-unreadable");
    dir.write("ex/a.litmus", SB);
    dir.write("ex/sub/b.litmus", MP);
    // A link to nowhere cannot be read (root reads a mode-000 directory, so a test cannot rely
    // on permissions).
    let broken = dir.path().join("ex/sub/broken.litmus");
    if std::os::unix::fs::symlink(dir.path().join("nowhere"), &broken).is_err() {
        println!("skipped: cannot make a symbolic link");
        return;
    }
    for command in ["parse", "check"] {
        let out = tcfuzz(&[command, "ex"], dir.path());
        exited_with(&out, &[1], command);
        let err = stderr(&out);
        assert!(err.contains(&format!("{}: error: cannot read: ", Path::new("ex/sub/broken.litmus").display())), "{command}: {err}");
        assert!(err.contains(" 3 files, 1 with errors"), "{command}: {err}");
    }
    let out = tcfuzz(&["check", "ex"], dir.path());
    assert!(stdout(&out).contains("Test SB\n") && stdout(&out).contains("Test MP\n"), "{}", stdout(&out));
}

#[test]
fn item6_a_directory_without_litmus_files_is_an_error_like_an_empty_glob() {
    let dir = TempDir::new("i21-empty");
    dir.write("empty/notes.txt", GARBAGE);
    for command in ["parse", "check", "fmt"] {
        let out = tcfuzz(&[command, "empty"], dir.path());
        exited_with(&out, &[1], command);
        assert!(stderr(&out).starts_with("empty: error: no *.litmus file in this directory\n"), "{command}: {}", stderr(&out));
        let out = tcfuzz(&[command, "empty/*.litmus"], dir.path());
        exited_with(&out, &[1], command);
        assert!(stderr(&out).starts_with("empty/*.litmus: error: no file matches this pattern\n"), "{command}: {}", stderr(&out));
    }
}

#[test]
fn item7_differential_skips_programs_without_tile_ir_threads() {
    let dir = TempDir::new("i21-differential");
    dir.write("ex/mp.litmus", TILE_MP);
    dir.write("ex/sb.litmus", SB);
    let out = tcfuzz(&["check", "--differential", "ex"], dir.path());
    exited_with(&out, &[0], "check --differential");
    let err = stderr(&out);
    let note = format!(
        "{}: note: skipped: --differential checks Tile IR programs, and this one has no Tile IR threads\n",
        Path::new("ex/sb.litmus").display()
    );
    assert!(err.contains(&note), "{err}");
    assert!(err.contains("checked 2 files, 0 with errors, 0 unsupported, 1 skipped (no Tile IR threads), 0 violating"), "{err}");
    assert!(stdout(&out).contains("Differential tileir-weaker-than-ptx"), "{}", stdout(&out));
}

#[test]
fn item8_lower_refuses_a_ptx_program() {
    let dir = TempDir::new("i21-lower");
    dir.write("sb.litmus", "PTX SB\n{ x = 0; P0:r0 = 7; }\n P0@cta 0,gpu 0 ;\n st.weak x, r0 ;\nexists (x == 7)\n");
    let out = tcfuzz(&["lower", "sb.litmus"], dir.path());
    exited_with(&out, &[1], "lower");
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "sb.litmus: error: not a Tile IR program: `tcfuzz lower` lowers Tile IR tile-block threads to PTX, and this program has none\n"
    );
}

#[test]
fn item9_the_format_as_documented_bom_cr_comments_before_the_header() {
    let dir = TempDir::new("i21-format");
    let lf = "(* herd comment *)\nPTX t\n{ x = -9223372036854775808; }\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n";
    dir.write("bom.litmus", &format!("\u{feff}{lf}"));
    dir.write("crlf.litmus", &lf.replace('\n', "\r\n"));
    dir.write("cr.litmus", &lf.replace('\n', "\r"));
    let out = tcfuzz(&["parse", "bom.litmus", "crlf.litmus", "cr.litmus"], dir.path());
    exited_with(&out, &[0], "parse");
    assert_eq!(stderr(&out), "parsed 3 files, 0 with errors\n");
    dir.write(
        "count0.litmus",
        "PTX c\n{ bar @ mbarrier cta 0 count 0; }\n P0@cta 0,gpu 0 ;\n mbarrier.arrive.shared::cta.b64 s, [bar] ;\nexists (0 == 0)\n",
    );
    let out = tcfuzz(&["parse", "count0.litmus"], dir.path());
    exited_with(&out, &[1], "parse");
    assert!(stderr(&out).starts_with("count0.litmus:2:3: error: mbarrier `bar` cannot expect 0 arrivals"), "{}", stderr(&out));
}

#[test]
fn item10_fmt_keeps_comments_and_writes_through_a_symlink() {
    let dir = TempDir::new("i21-fmt");
    let src = "// expect ptx: Sometimes\nPTX SB\n{ x = 0; y = 0; } // init\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n// the stores\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ; (* loads *)\nexists (P0:r0 == 0 /\\ P1:r0 == 0)\n";
    dir.write("real/sb.litmus", src);
    let link = dir.path().join("sb.litmus");
    if std::os::unix::fs::symlink("real/sb.litmus", &link).is_err() {
        println!("skipped: cannot make a symbolic link");
        return;
    }
    let out = tcfuzz(&["fmt", "sb.litmus"], dir.path());
    exited_with(&out, &[0], "fmt");
    assert_eq!(stderr(&out), "1 file, 1 reformatted, 0 with errors\n");
    assert!(std::fs::symlink_metadata(&link).expect("still there").file_type().is_symlink(), "the link stays a link");
    let written = std::fs::read_to_string(dir.path().join("real/sb.litmus")).expect("target");
    for comment in ["// expect ptx: Sometimes\n", "} // init\n", " // the stores\n", "; (* loads *)\n"] {
        assert!(written.contains(comment), "{comment:?} lost:\n{written}");
    }
}

#[test]
fn item10_a_file_that_cannot_be_written_is_not_counted_as_reformatted() {
    let dir = TempDir::new("i21-fmt-fail");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(["fmt", "/dev/stdin"])
        .current_dir(dir.path())
        .env_remove("RUST_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tcfuzz");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(SB.as_bytes()).expect("write");
    }
    let out = child.wait_with_output().expect("output");
    exited_with(&out, &[1], "fmt");
    let err = stderr(&out);
    assert!(err.contains("/dev/stdin: error: "), "{err}");
    assert!(err.ends_with("1 file, 0 reformatted, 1 with errors\n"), "{err}");
}

#[test]
fn item11_the_examples_are_canonical() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let out = tcfuzz(&["fmt", "--check", "examples"], examples.parent().expect("repo"));
    exited_with(&out, &[0], "fmt --check examples");
    assert_eq!(stdout(&out), "");
}

#[test]
fn item12_one_voice_errors_summaries_help_and_logs() {
    let dir = TempDir::new("i21-voice");
    dir.write("sb.litmus", SB);
    // `FILE: error:` without a position, the summary on stderr with "1 file".
    for command in ["parse", "check", "fmt"] {
        let out = tcfuzz(&[command, "missing.litmus"], dir.path());
        exited_with(&out, &[1], command);
        assert!(stderr(&out).starts_with("missing.litmus: error: no such file or directory\n"), "{command}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(" 1 file, 1 with errors") || stderr(&out).contains("1 file, 0 reformatted, 1 with errors"),
            "{}",
            stderr(&out)
        );
        assert_eq!(stdout(&out), "", "{command}: summaries go to stderr");
    }
    for command in ["lower", "explain"] {
        let out = tcfuzz(&[command, "missing.litmus"], dir.path());
        exited_with(&out, &[1], command);
        assert!(stderr(&out).starts_with("missing.litmus: error: cannot read: "), "{command}: {}", stderr(&out));
        let help = tcfuzz(&[command, "--help"], dir.path());
        let words = stdout(&help).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("; 2 usage error"), "{command} --help lists exit code 2: {words}");
    }
    // Logs carry no colour codes when stderr is not a terminal.
    let out = tcfuzz(&["-vv", "check", "sb.litmus"], dir.path());
    exited_with(&out, &[0], "check -vv");
    assert!(stderr(&out).contains("checking"), "{}", stderr(&out));
    assert!(!stderr(&out).contains('\u{1b}'), "{}", stderr(&out));
    // selftest names every family `all` runs.
    let help = tcfuzz(&["selftest", "--help"], dir.path());
    for family in ["ptx", "sync", "tileir", "tcgen05", "assume"] {
        assert!(stdout(&help).contains(&format!("\"{family}\"")), "the JSON schema names {family}");
    }
    let words = stdout(&help).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("turns: ptx, sync, tileir, tcgen05, assume"), "{words}");
    // bench: usage errors before anything is printed, and an aligned --list.
    for args in [&["bench", "--family", "nosuch"][..], &["bench", "--family", "sb", "--n", "0"]] {
        let out = tcfuzz(args, dir.path());
        exited_with(&out, &[2], "bench");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let list = tcfuzz(&["bench", "--list"], dir.path());
    let columns: std::collections::BTreeSet<Option<usize>> = stdout(&list)
        .lines()
        .map(|l| l.char_indices().find(|&(i, c)| i > 0 && c != ' ' && l[..i].ends_with("  ")).map(|(i, _)| i))
        .collect();
    assert_eq!(columns.len(), 1, "the second column starts at one offset:\n{}", stdout(&list));
}

#[test]
fn item13_check_compares_the_verdict_with_the_expect_lines() {
    let dir = TempDir::new("i21-expect");
    dir.write("right.litmus", &format!("// expect ptx: Sometimes\n// expect races: none\n// expect hang: no\n{SB}"));
    dir.write("wrong.litmus", &format!("// expect ptx: Never\n// expect races: data\n{SB}"));
    let out = tcfuzz(&["check", "right.litmus", "wrong.litmus"], dir.path());
    exited_with(&out, &[0], "check");
    let text = stdout(&out);
    assert!(text.contains("Expectation matches the header\n"), "{text}");
    assert!(
        text.contains(
            "Expectation DIFFERS from the header: ptx: the condition is Sometimes, expected Never; races: races are none, expected data\n"
        ),
        "{text}"
    );
    assert!(stderr(&out).contains("1 differing from their expectation"), "{}", stderr(&out));
    let out = tcfuzz(&["check", "--expect", "right.litmus", "wrong.litmus"], dir.path());
    exited_with(&out, &[1], "check --expect");
    let out = tcfuzz(&["check", "--expect", "right.litmus"], dir.path());
    exited_with(&out, &[0], "check --expect");
    let json = tcfuzz(&["check", "--json", "wrong.litmus"], dir.path());
    let line: serde_json::Value = serde_json::from_str(stdout(&json).trim()).expect("JSON");
    assert_eq!(line["expectation"]["matches"], false);
    // Every example matches its header.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = tcfuzz(&["check", "--expect", "examples"], &repo);
    exited_with(&out, &[0], "check --expect examples");
    assert!(!stdout(&out).contains("DIFFERS"), "{}", stdout(&out));
}

#[test]
fn item13_explain_gives_the_same_thread_fix_and_misuse_as_a_sentence() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = tcfuzz(&["explain", "examples/mbarrier/bulk-copy-source-generic-write-race.litmus"], &repo);
    exited_with(&out, &[0], "explain");
    assert!(
        stdout(&out).contains(
            "\nNothing orders them either way. What would: fence.proxy.async in this thread between the generic-proxy access and the async-proxy one (§9.7.16.6.5).\n"
        ),
        "{}",
        stdout(&out)
    );
    let out = tcfuzz(&["explain", "examples/tcgen05/alloc-after-relinquish-misuse.litmus"], &repo);
    exited_with(&out, &[0], "explain");
    let text = stdout(&out);
    assert!(!text.contains("Missing: the rule"), "{text}");
    assert!(
        text.contains("\nA CTA may not allocate Tensor Memory after relinquishing its allocation permit: move the tcgen05.relinquish_alloc_permit after the CTA's last tcgen05.alloc (PTX ISA §9.7.16.7.1).\n"),
        "{text}"
    );
}

/// Byte edits and whole shapes that break programs in the ways issue 21 found: deep nesting, wide
/// cells, huge numbers, byte-order marks, CR line endings, comments, quotes.
fn mutate(text: &str, seed: u64) -> String {
    const SHAPES: &[&str] = &[
        "\u{feff}",
        "\r",
        "(*",
        "*)",
        "//",
        "\"",
        "-9223372036854775808",
        "99999999999999999999",
        "((((((((((((",
        "~~~~~~~~",
        "é",
        "|",
        ";",
        "\n",
    ];
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + next() % 4 {
        if bytes.is_empty() {
            break;
        }
        let at = (next() % bytes.len() as u64) as usize;
        match next() % 3 {
            0 => {
                let end = (at + (next() % 8) as usize).min(bytes.len());
                bytes.drain(at..end);
            }
            1 => {
                let shape = SHAPES[(next() % SHAPES.len() as u64) as usize];
                bytes.splice(at..at, shape.bytes());
            }
            _ => bytes[at] = b"|;:,[]<>{}()=~/\\.-0123456789 \nPxyz\"@"[(next() % 36) as usize],
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The bounded property run of the issue's "done means": generated programs of every family,
/// mutated copies of them and the nasty shapes go through `parse`, `fmt` and `check` as a user
/// runs them. No command may crash or abort, and every program `parse` accepts must print (`fmt
/// --stdout`) to text that parses back to it.
#[test]
fn generated_mutated_and_nasty_programs_never_crash_and_round_trip() {
    use tcfuzz_generator::random::{Family, random_program};
    let dir = TempDir::new("i21-property");
    let mut written = Vec::new();
    for seed in 0..100u64 {
        for family in Family::ALL {
            let text = tcfuzz_litmus::print(&random_program(family, seed));
            written.push(dir.write(&format!("p/{}-{seed}.litmus", family.name()), &text));
            written.push(dir.write(&format!("p/{}-{seed}-mutated.litmus", family.name()), &mutate(&text, seed)));
        }
    }
    let name = "w".repeat(70_000);
    let nasty = [
        deep_condition(),
        format!("PTX chain\n{{ x = 0; }}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists ({})\n", vec!["x == 1"; 5000].join(" /\\ ")),
        format!(
            "PTX wide\n{{ {name} = 0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak {name}, 1 | ld.weak r0, {name} ;\nexists (P1:r0 == 1)\n"
        ),
        format!("PTX huge\n{{ x = {}; }}\n P0@cta 0,gpu 0 ;\n st.weak x, 1 ;\nexists (x == 1)\n", "9".repeat(1_000_000)),
        format!("\u{feff}{SB}"),
        SB.replace('\n', "\r"),
        SB.replace('\n', "\r\n"),
        format!("(* before *)\n{}", MP.replace("st.weak x, 1 ", "st.weak x, 1 (* c *)")),
    ];
    for (i, text) in nasty.iter().enumerate() {
        written.push(dir.write(&format!("p/nasty-{i}.litmus"), text));
    }
    let out = tcfuzz_within(&["parse", "--json", "p"], dir.path(), Duration::from_secs(300));
    exited_with(&out, &[0, 1], "parse");
    let accepted: Vec<String> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|v| v["ok"] == true)
        .map(|v| v["file"].as_str().expect("file").to_string())
        .collect();
    let generated = written.iter().filter(|p| !p.to_string_lossy().contains("-mutated") && !p.to_string_lossy().contains("nasty")).count();
    assert!(
        accepted.len() >= generated + 10,
        "every generated program and some mutated ones parse: {} of {}",
        accepted.len(),
        written.len()
    );
    for file in &accepted {
        let original = tcfuzz_litmus::parse(&std::fs::read_to_string(dir.path().join(file)).expect("read")).expect("parse accepted it");
        let out = tcfuzz(&["fmt", "--stdout", file], dir.path());
        exited_with(&out, &[0], "fmt --stdout");
        let printed = stdout(&out);
        let reparsed =
            tcfuzz_litmus::parse(&printed).unwrap_or_else(|e| panic!("{file}: printed program rejected:\n{}\n{printed}", e.render(file)));
        assert!(reparsed.same_as(&original), "{file}: printing changed the program:\n{printed}");
    }
    let out = tcfuzz_within(&["check", "--max-executions", "3000", "p"], dir.path(), Duration::from_secs(600));
    exited_with(&out, &[0, 1, 3], "check");
    assert!(stderr(&out).contains(&format!("checked {} files", written.len())), "{}", stderr(&out));
}
