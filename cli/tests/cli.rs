//! Integration tests of the `tcfuzz` binary: run it as a user would and check output and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A valid program, written the way a person would (not canonical: the init state is on one line).
const SB: &str = "PTX SB
{ x = 0; y = 0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;
 ld.relaxed.gpu r0, y | ld.relaxed.gpu r0, x ;
exists (P0:r0 == 0 /\\ P1:r0 == 0)
";

const MP: &str = "PTX MP
{ x = 0; flag = 0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0          ;
 st.weak x, 1           | ld.acquire.gpu r0, flag ;
 st.release.gpu flag, 1 | ld.weak r1, x           ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

/// Semantically invalid: `ld.release` is a qualifier combination the ISA forbids (line 4).
const BAD: &str = "PTX bad
{ x = 0; }
 P0@cta 0,gpu 0 ;
 ld.release.gpu r0, x ;
exists (P0:r0 == 0)
";

/// Not a litmus program at all.
const GARBAGE: &str = "this is not a litmus test\n";

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tcfuzz-cli-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, contents: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tcfuzz(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tcfuzz")).args(args).current_dir(cwd).env_remove("RUST_LOG").output().expect("run tcfuzz")
}

/// `tcfuzz ARGS` in `cwd`, started with its output piped: for tests that signal it as it runs.
fn spawn_tcfuzz(args: &[&str], cwd: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_tcfuzz"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run tcfuzz")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

/// `text` has a line `FILE:LINE:COL: error: ...` for `file` (and `line`, when given).
fn has_position(text: &str, file: &str, line: Option<u32>) -> bool {
    text.lines().any(|l| {
        let Some(rest) = l.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
            return false;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(l), Some(col), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
            return false;
        };
        l.parse::<u32>().is_ok_and(|l| line.is_none_or(|line| line == l)) && col.parse::<u32>().is_ok() && tail.starts_with(" error: ")
    })
}

mod parse {
    use super::*;

    #[test]
    fn valid_file() {
        let dir = TempDir::new("parse-ok");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["parse", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        assert!(stderr(&out).contains("parsed 1 file, 0 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn validation_error_has_position() {
        let dir = TempDir::new("parse-bad");
        dir.write("bad.litmus", BAD);
        let out = tcfuzz(&["parse", "bad.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        let err = stderr(&out);
        assert!(has_position(&err, "bad.litmus", Some(4)), "{err}");
        assert!(stderr(&out).contains("parsed 1 file, 1 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn syntax_error_has_position() {
        let dir = TempDir::new("parse-garbage");
        dir.write("garbage.litmus", GARBAGE);
        let out = tcfuzz(&["parse", "garbage.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "garbage.litmus", None), "{}", stderr(&out));
    }

    #[test]
    fn walks_directories_recursively_in_order() {
        let dir = TempDir::new("parse-walk");
        dir.write("ex/b.litmus", SB);
        dir.write("ex/a/deep/c.litmus", MP);
        dir.write("ex/a/x.litmus", MP);
        dir.write("ex/notes.txt", GARBAGE);
        dir.write("ex/.hidden/h.litmus", GARBAGE);
        let out = tcfuzz(&["parse", "--json", "ex"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let files: Vec<String> =
            stdout(&out).lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["file"].to_string()).collect();
        let expected = ["ex/a/deep/c.litmus", "ex/a/x.litmus", "ex/b.litmus"].map(|f| format!("\"{}\"", Path::new(f).display()));
        assert_eq!(files, expected);
        let out = tcfuzz(&["parse", "ex"], dir.path());
        assert!(stderr(&out).contains("parsed 3 files, 0 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn directory_with_an_error_fails() {
        let dir = TempDir::new("parse-walk-bad");
        dir.write("ex/ok.litmus", SB);
        dir.write("ex/sub/bad.litmus", BAD);
        let out = tcfuzz(&["parse", "ex"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "ex/sub/bad.litmus", Some(4)), "{}", stderr(&out));
        assert!(stderr(&out).contains("parsed 2 files, 1 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn expands_unexpanded_glob() {
        let dir = TempDir::new("parse-glob");
        dir.write("ex/one.litmus", SB);
        dir.write("ex/sub/two.litmus", MP);
        dir.write("ex/sub/three.txt", GARBAGE);
        let out = tcfuzz(&["parse", "ex/**/*.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        assert!(stderr(&out).contains("parsed 2 files, 0 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn glob_matching_nothing_fails() {
        let dir = TempDir::new("parse-glob-none");
        let out = tcfuzz(&["parse", "nothing/**/*.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("nothing/**/*.litmus"), "{}", stderr(&out));
    }

    #[test]
    fn missing_file_names_the_path() {
        let dir = TempDir::new("parse-missing");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["parse", "sb.litmus", "no-such-file.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("no-such-file.litmus"), "{}", stderr(&out));
        assert!(stderr(&out).contains("parsed 2 files, 1 with errors"), "{}", stderr(&out));
    }

    #[test]
    fn json_lines() {
        let dir = TempDir::new("parse-json");
        dir.write("a.litmus", SB);
        dir.write("b.litmus", BAD);
        let out = tcfuzz(&["parse", "--json", "a.litmus", "b.litmus", "missing.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        let lines: Vec<serde_json::Value> =
            stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
        assert_eq!(lines.len(), 3, "{}", stdout(&out));
        for line in &lines {
            for key in ["file", "ok", "threads", "errors"] {
                assert!(line.get(key).is_some(), "no {key} in {line}");
            }
        }
        assert_eq!(lines[0]["file"], "a.litmus");
        assert_eq!(lines[0]["ok"], true);
        assert_eq!(lines[0]["threads"], 2);
        assert_eq!(lines[0]["errors"], serde_json::json!([]));

        assert_eq!(lines[1]["ok"], false);
        let errors = lines[1]["errors"].as_array().unwrap();
        assert!(!errors.is_empty());
        for e in errors {
            assert_eq!(e["line"], 4, "{e}");
            assert!(e["col"].as_u64().unwrap() >= 1, "{e}");
            assert!(e["kind"].as_str().is_some_and(|k| !k.is_empty()), "{e}");
            assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
        }

        assert_eq!(lines[2]["file"], "missing.litmus");
        assert_eq!(lines[2]["ok"], false);
        assert_eq!(lines[2]["errors"][0]["message"], "no such file or directory");
    }

    #[test]
    fn no_paths_is_a_usage_error() {
        let dir = TempDir::new("parse-usage");
        let out = tcfuzz(&["parse"], dir.path());
        assert_eq!(code(&out), 2);
    }

    #[test]
    fn quiet_drops_the_summary() {
        let dir = TempDir::new("parse-quiet");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["-q", "parse", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0);
        assert_eq!(stdout(&out), "");
        assert_eq!(stderr(&out), "");
    }
}

mod fmt {
    use super::*;

    #[test]
    fn check_then_rewrite() {
        let dir = TempDir::new("fmt");
        let path = dir.write("sb.litmus", SB);

        let out = tcfuzz(&["fmt", "--check", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 1, "stderr: {}", stderr(&out));
        assert!(stdout(&out).contains("sb.litmus"), "{}", stdout(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SB, "--check must not write");

        let out = tcfuzz(&["fmt", "--stdout", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let canonical = stdout(&out);
        assert_ne!(canonical, SB);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), SB, "--stdout must not write");

        let out = tcfuzz(&["fmt", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), canonical);

        let out = tcfuzz(&["fmt", "--check", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "canonical form is stable; stdout: {}", stdout(&out));
        let out = tcfuzz(&["parse", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "canonical form parses; stderr: {}", stderr(&out));

        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary files left behind");
    }

    #[test]
    fn unchanged_file_is_not_rewritten() {
        let dir = TempDir::new("fmt-unchanged");
        let path = dir.write("sb.litmus", SB);
        assert_eq!(code(&tcfuzz(&["fmt", "sb.litmus"], dir.path())), 0);
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(code(&tcfuzz(&["fmt", "sb.litmus"], dir.path())), 0);
        let after = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(before, after);
    }

    #[test]
    fn invalid_file_is_reported_and_untouched() {
        let dir = TempDir::new("fmt-bad");
        let path = dir.write("bad.litmus", BAD);
        let out = tcfuzz(&["fmt", "bad.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "bad.litmus", Some(4)), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), BAD);
    }

    #[test]
    fn directory() {
        let dir = TempDir::new("fmt-dir");
        dir.write("ex/a.litmus", SB);
        dir.write("ex/b/c.litmus", MP);
        assert_eq!(code(&tcfuzz(&["fmt", "ex"], dir.path())), 0);
        let out = tcfuzz(&["fmt", "--check", "ex"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}", stdout(&out));
    }

    #[test]
    fn check_and_stdout_conflict() {
        let dir = TempDir::new("fmt-conflict");
        dir.write("sb.litmus", SB);
        assert_eq!(code(&tcfuzz(&["fmt", "--check", "--stdout", "sb.litmus"], dir.path())), 2);
    }
}

mod check {
    use super::*;
    use serde_json::Value;

    /// A barrier whose id is computed at run time: valid, but beyond what the
    /// checker models (line 4).
    const UNSUPPORTED: &str = "PTX dynamic-barrier
{ x = 0; P0:r0 = 0; }
 P0@cta 0,gpu 0 ;
 bar.cta.sync r0, 1 ;
 ld.weak r0, x ;
exists (P0:r0 == 0)
";

    /// Message passing through a release/acquire pair at .gpu scope between two CTAs, with
    /// morally strong data accesses: no race, and the condition never holds.
    const MP_REL_ACQ: &str = "PTX MP+rel+acq
{ x = 0; flag = 0; }
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0          ;
 st.relaxed.gpu x, 1    | ld.acquire.gpu r0, flag ;
 st.release.gpu flag, 1 | ld.relaxed.gpu r1, x    ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

    const JSON_KEYS: [&str; 14] = [
        "file",
        "name",
        "model",
        "states",
        "condition",
        "executions",
        "races",
        "hangs",
        "loop_bound",
        "misuse",
        "caveats",
        "method",
        "expectation",
        "time_ms",
    ];

    /// The `Observation NAME RESULT P N` line of a text verdict: RESULT.
    fn observation(text: &str) -> &str {
        let line = text.lines().find(|l| l.starts_with("Observation ")).unwrap_or_else(|| panic!("no Observation line in:\n{text}"));
        line.split_whitespace().nth(2).unwrap()
    }

    /// Runs `tcfuzz check --json ARGS` on one file and returns its one JSON line.
    fn check_json(dir: &TempDir, args: &[&str]) -> Value {
        let out = tcfuzz(&[&["check", "--json"], args].concat(), dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
        assert_eq!(lines.len(), 1, "{}", stdout(&out));
        lines.into_iter().next().unwrap()
    }

    /// `check -j N` explores on N threads: the verdict of one thread, states and counts alike.
    #[test]
    fn threads_give_the_one_thread_verdict() {
        let dir = TempDir::new("check-threads");
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ptx/IRIW+relaxed-gpu.litmus");
        let file = examples.to_str().expect("path");
        let strip = |mut v: Value| {
            v.as_object_mut().expect("object").remove("time_ms");
            v
        };
        let one = strip(check_json(&dir, &["--duplicates", file]));
        for j in ["2", "3"] {
            assert_eq!(strip(check_json(&dir, &["--duplicates", "-j", j, file])), one, "-j {j}");
        }
        assert_eq!(one["executions"]["duplicates"], 0, "{one}");
        let out = tcfuzz(&["check", "-j", "0", file], dir.path());
        assert_eq!(code(&out), 2, "a usage error: {}", stderr(&out));
        let out = tcfuzz(&["check", "-j", "2", "--oracle", file], dir.path());
        assert_eq!(code(&out), 2, "a usage error: {}", stderr(&out));
    }

    #[test]
    fn message_passing_release_acquire_is_never_under_ptx() {
        let dir = TempDir::new("check-mp");
        dir.write("mp.litmus", MP_REL_ACQ);
        let out = tcfuzz(&["check", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("Test MP+rel+acq\n"), "{text}");
        assert!(text.contains("Model ptx (explorer)"), "ptx is the default model: {text}");
        assert_eq!(observation(&text), "Never", "{text}");
        assert!(text.contains("\nNo\n"), "{text}");
        assert!(text.contains("Condition exists (P1:r0 == 1 /\\ P1:r1 == 0)"), "{text}");
        assert!(text.contains("Races: none"), "{text}");
        assert!(!text.contains("checked 1 file"), "the summary goes to stderr: {text}");
        assert!(stderr(&out).contains("checked 1 file, 0 with errors, 0 unsupported"), "{}", stderr(&out));
    }

    #[test]
    fn races_name_both_accesses() {
        // MP with weak data accesses and no branch on the flag: when the acquire reads 0, nothing
        // orders the weak store of x before the weak load of x (PTX ISA §8.10 "Data races").
        let dir = TempDir::new("check-race");
        dir.write("mp.litmus", MP);
        let out = tcfuzz(&["check", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "a race is a verdict, not an error: {}", stderr(&out));
        let text = stdout(&out);
        assert_eq!(observation(&text), "Never", "{text}");
        assert!(
            text.contains("Races: 1\n  data race: thread P0 #0 (write x) at mp.litmus:4:2 and thread P1 #1 (read x) at mp.litmus:5:"),
            "{text}"
        );

        let line = check_json(&dir, &["mp.litmus"]);
        let races = line["races"].as_array().unwrap();
        assert_eq!(races.len(), 1, "{line}");
        let (first, second) = (&races[0]["first"], &races[0]["second"]);
        assert_eq!((&first["thread"], &first["index"], &first["line"], &first["col"]), (&"P0".into(), &0.into(), &4.into(), &2.into()));
        assert_eq!((&first["access"], &first["location"]), (&"write".into(), &"x".into()));
        assert_eq!((&second["thread"], &second["index"], &second["line"]), (&"P1".into(), &1.into(), &5.into()));
        assert_eq!((&second["access"], &second["location"]), (&"read".into(), &"x".into()));
    }

    #[test]
    fn store_buffering_is_sometimes_under_ptx_and_never_under_sc() {
        let dir = TempDir::new("check-sb");
        dir.write("sb.litmus", SB);
        for (model, expected) in [("ptx", "Sometimes"), ("sc", "Never")] {
            for method in [&[][..], &["--oracle"][..]] {
                let out = tcfuzz(&[&["check", "--model", model, "sb.litmus"], method].concat(), dir.path());
                assert_eq!(code(&out), 0, "{model} {method:?}: {}", stderr(&out));
                let text = stdout(&out);
                assert_eq!(observation(&text), expected, "{model} {method:?}: {text}");
                assert!(text.contains(if expected == "Never" { "\nNo\n" } else { "\nOk\n" }), "{text}");
            }
        }
    }

    #[test]
    fn json_lines_have_the_documented_keys() {
        let dir = TempDir::new("check-json");
        dir.write("sb.litmus", SB);
        let line = check_json(&dir, &["sb.litmus"]);
        let object = line.as_object().unwrap();
        assert_eq!(object.len(), JSON_KEYS.len(), "{line}");
        for key in JSON_KEYS {
            assert!(object.contains_key(key), "no {key} in {line}");
        }
        assert_eq!(line["file"], "sb.litmus");
        assert_eq!(line["name"], "SB");
        assert_eq!(line["model"], "ptx");
        assert_eq!(line["condition"]["text"], "exists (P0:r0 == 0 /\\ P1:r0 == 0)");
        assert_eq!(line["condition"]["result"], "Sometimes");
        assert_eq!(line["condition"]["holds"], true);
        assert_eq!(line["executions"]["blocked"], 0);
        assert_eq!(line["executions"]["duplicates"], Value::Null, "not checked without --duplicates");
        assert_eq!(line["hangs"], serde_json::json!([]));
        assert_eq!(line["misuse"], serde_json::json!([]));
        assert!(line["caveats"].is_array(), "{line}");
        assert!(line["time_ms"].as_f64().is_some_and(|t| t >= 0.0), "{line}");
        let states = line["states"].as_array().unwrap();
        assert_eq!(states.len(), 4, "every pair of values of P0:r0 and P1:r0: {line}");
        for state in states {
            assert_eq!(state["state"]["x"], 1, "{state}");
            assert_eq!(state["state"]["y"], 1, "{state}");
            assert!(state["state"]["P0:r0"].is_i64() && state["state"]["P1:r0"].is_i64(), "{state}");
            assert!(state["executions"].as_u64().is_some_and(|n| n >= 1), "{state}");
        }
    }

    #[test]
    fn explorer_and_oracle_count_the_same_executions() {
        let dir = TempDir::new("check-counts");
        dir.write("sb.litmus", SB);
        dir.write("mp.litmus", MP);
        // SB under SC: each load reads the initial value or the other thread's store, and not both
        // the initial value; one write per location leaves no choice of coherence order.
        let sc = check_json(&dir, &["--model", "sc", "--duplicates", "sb.litmus"]);
        assert_eq!(sc["executions"]["complete"], 3, "{sc}");
        assert_eq!(sc["executions"]["duplicates"], 0, "{sc}");
        for file in ["sb.litmus", "mp.litmus"] {
            for model in ["sc", "ptx"] {
                let explorer = check_json(&dir, &["--model", model, "--duplicates", file]);
                let oracle = check_json(&dir, &["--model", model, "--oracle", file]);
                assert_eq!(explorer["executions"]["duplicates"], 0, "{file} {model}: {explorer}");
                assert_eq!(explorer["executions"]["complete"], oracle["executions"]["complete"], "{file} {model}");
                assert_eq!(explorer["states"], oracle["states"], "{file} {model}");
                assert_eq!(explorer["condition"], oracle["condition"], "{file} {model}");
            }
        }
    }

    /// Load buffering through a `cas` whose later store another thread reads before it writes
    /// the `cas`'s location with what it read: the explorer's verdict carries the `cas` caveat
    /// (it finds all 6 executions here all the same).
    const CAS_LB: &str = "PTX cas-lb
{ x = 0; y = 0; }
 P0@cta 0,gpu 0                   | P1@cta 1,gpu 0       ;
 atom.relaxed.gpu.cas r0, x, 0, 1 | ld.relaxed.gpu r1, y ;
 st.relaxed.gpu y, 1              | st.relaxed.gpu x, r1 ;
 ld.relaxed.gpu r2, x             |                      ;
exists (P0:r0 == 1 /\\ P1:r1 == 1)
";

    #[test]
    fn exact_asks_the_oracle_only_where_the_explorer_has_a_caveat() {
        let dir = TempDir::new("check-exact");
        dir.write("cas.litmus", CAS_LB);
        dir.write("mp.litmus", MP_REL_ACQ);
        let explored = check_json(&dir, &["cas.litmus"]);
        assert_eq!(explored["method"], "explorer", "{explored}");
        // The cas caveat, and the rmw hole's: a revisit the maximality test rejects keeps the
        // cas's read of a write it deletes and leaves the cas's write a hole, which is how that
        // gap can start (`rmw_write_hole_left`) — though here the explorer is exact.
        let caveats: Vec<&str> = explored["caveats"].as_array().map(|c| c.iter().filter_map(|c| c.as_str()).collect()).unwrap_or_default();
        assert_eq!(caveats.len(), 2, "{explored}");
        assert!(caveats[0].contains("a cas fails only because it reads a write"), "{explored}");
        assert!(caveats[1].contains("another atomic rmw that a revisit removed"), "{explored}");
        let exact = check_json(&dir, &["--exact", "cas.litmus"]);
        assert_eq!(exact["method"], "oracle", "{exact}");
        assert_eq!(exact["caveats"], serde_json::json!([]), "{exact}");
        assert_eq!(
            (&exact["executions"]["complete"], &exact["condition"]["result"]),
            (&serde_json::json!(6), &serde_json::json!("Sometimes"))
        );
        // No caveat: the explorer's verdict, as without --exact.
        let plain = check_json(&dir, &["--exact", "mp.litmus"]);
        assert_eq!(plain["method"], "explorer", "{plain}");
        let text = tcfuzz(&["check", "--exact", "cas.litmus"], dir.path());
        assert!(String::from_utf8_lossy(&text.stdout).contains("Model ptx (oracle)"), "{text:?}");
    }

    #[test]
    fn unsupported_instruction_exits_3_and_the_other_files_are_checked() {
        let dir = TempDir::new("check-unsupported");
        dir.write("a.litmus", SB);
        dir.write("b.litmus", UNSUPPORTED);
        let out = tcfuzz(&["check", "--model", "sc", "a.litmus", "b.litmus"], dir.path());
        assert_eq!(code(&out), 3, "stderr: {}", stderr(&out));
        let err = stderr(&out);
        assert!(has_position(&err, "b.litmus", Some(4)), "{err}");
        assert!(err.contains("is not supported by the checker yet"), "{err}");
        assert!(stdout(&out).contains("Test SB\n"), "{}", stdout(&out));
        assert!(stderr(&out).contains("checked 2 files, 0 with errors, 1 unsupported"), "{}", stderr(&out));
    }

    #[test]
    fn parse_errors_exit_1_and_win_over_unsupported() {
        let dir = TempDir::new("check-bad");
        dir.write("bad.litmus", BAD);
        dir.write("garbage.litmus", GARBAGE);
        dir.write("unsupported.litmus", UNSUPPORTED);
        let out = tcfuzz(&["check", "bad.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "bad.litmus", Some(4)), "{}", stderr(&out));

        let out = tcfuzz(&["check", "--json", "garbage.litmus", "unsupported.litmus", "missing.litmus"], dir.path());
        assert_eq!(code(&out), 1, "stderr: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "no JSON line for a file that was not checked");
        let err = stderr(&out);
        assert!(has_position(&err, "garbage.litmus", None), "{err}");
        assert!(has_position(&err, "unsupported.litmus", Some(4)), "{err}");
        assert!(err.contains("missing.litmus"), "{err}");
        assert!(err.contains("checked 3 files, 2 with errors, 1 unsupported"), "{err}");
    }

    #[test]
    fn directories_in_order() {
        let dir = TempDir::new("check-dir");
        dir.write("ex/b.litmus", SB);
        dir.write("ex/a/mp.litmus", MP);
        let out = tcfuzz(&["check", "--json", "--model", "sc", "ex"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let names: Vec<String> = stdout(&out).lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["name"].to_string()).collect();
        assert_eq!(names, ["\"MP\"", "\"SB\""]);
    }

    #[test]
    fn help_documents_the_json_schema() {
        let dir = TempDir::new("check-help");
        let out = tcfuzz(&["check", "--help"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let help = stdout(&out);
        for key in JSON_KEYS {
            assert!(help.contains(&format!("  {key} ")), "{key} missing from:\n{help}");
        }
    }

    #[test]
    fn no_paths_is_a_usage_error() {
        let dir = TempDir::new("check-usage");
        assert_eq!(code(&tcfuzz(&["check"], dir.path())), 2);
        assert_eq!(code(&tcfuzz(&["check", "--model", "tso", "x.litmus"], dir.path())), 2);
    }
}

/// Tile IR message passing with the tokens that make it work (examples/tileir/MP+rel+acq-tokens).
const TILE_MP: &str = "TileIR mp
{ x = [0, 0]; f = [0]; }
P0@tlb 0, dev 0 {
  <t1> = st.relaxed.device x, [1, 2];
  st.release.device f, [1], <t1>;
}
P1@tlb 1, dev 0 {
  rf, <t2> = ld.acquire.device f;
  rx = ld.relaxed.device x, <t2>;
}
exists (1:rf == [1] /\\ 1:rx != [1, 2])
";

/// One weak store whose element list writes element 0 twice: a data race (Tile IR spec §7.12.2).
const TILE_OVERLAP: &str = "TileIR overlap
{ x = [0, 0]; }
P0@tlb 0, dev 0 {
  st.weak x[0, 0], [1, 2];
}
exists (x[0] == 1)
";

/// `tcfuzz check` on Tile IR programs.
mod check_tileir {
    use super::*;

    #[test]
    fn tile_ir_programs_default_to_the_tileir_model() {
        let dir = TempDir::new("check-tileir");
        dir.write("mp.litmus", TILE_MP);
        let out = tcfuzz(&["check", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("Model tileir (explorer)"), "{text}");
        assert!(text.contains("Observation mp Never 0 "), "{text}");
        assert!(text.contains("P1:rf[0]=1; P1:rx[0]=1; P1:rx[1]=2; x[0]=1; x[1]=2; f[0]=1;"), "states in element names: {text}");
        let oracle = tcfuzz(&["check", "--model", "tileir", "--oracle", "mp.litmus"], dir.path());
        assert!(stdout(&oracle).contains("Model tileir (oracle)"), "{}", stdout(&oracle));
    }

    #[test]
    fn races_within_one_tile_block() {
        let dir = TempDir::new("check-tileir-race");
        dir.write("overlap.litmus", TILE_OVERLAP);
        let out = tcfuzz(&["check", "overlap.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.contains("Races: 1\n  data race: thread P0 #0 (write x[0]) at overlap.litmus:4:3 and thread P0 #1 (write x[0])"),
            "{text}"
        );
    }

    #[test]
    /// Issue 21 item 7: the command line does not fit the program; nothing is unsupported.
    fn tileir_model_on_a_ptx_program_is_a_usage_error() {
        let dir = TempDir::new("check-tileir-ptx");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["check", "--model", "tileir", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(
            stderr(&out).starts_with(
                "sb.litmus: error: --model tileir judges Tile IR programs, and this one has no Tile IR threads (use --model ptx or sc)\n"
            ),
            "{}",
            stderr(&out)
        );
        let out = tcfuzz(&["explain", "--model", "tileir", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));
    }
}

/// `tcfuzz check --differential`: the tileir-weaker-than-ptx check.
mod differential {
    use super::*;
    use serde_json::Value;

    #[test]
    fn prints_both_sides() {
        let dir = TempDir::new("differential");
        dir.write("mp.litmus", TILE_MP);
        let out = tcfuzz(&["check", "--differential", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        // Neither side's verdict carries a caveat: the explorer's are exact.
        assert!(text.contains("Model tileir (explorer)"), "{text}");
        assert!(text.contains("Differential tileir-weaker-than-ptx\n"), "{text}");
        assert!(text.contains("  Tile IR (tileir, explorer): Never, 5 states, races none\n"), "{text}");
        assert!(text.contains("  Lowered PTX mp-lowered (ptx, explorer): Never, 5 states, races none\n"), "{text}");
        assert!(text.contains("  Verdict holds\n"), "{text}");
        assert!(
            stderr(&out).contains(
                "checked 1 file, 0 with errors, 0 unsupported, 0 skipped (no Tile IR threads), 0 violating tileir-weaker-than-ptx"
            ),
            "{}",
            stderr(&out)
        );
    }

    #[test]
    fn racy_program_holds_vacuously() {
        let dir = TempDir::new("differential-racy");
        dir.write("overlap.litmus", TILE_OVERLAP);
        let out = tcfuzz(&["check", "--differential", "overlap.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains("  Verdict holds (the Tile IR program has data races"), "{}", stdout(&out));
    }

    #[test]
    fn json_adds_one_object() {
        let dir = TempDir::new("differential-json");
        dir.write("mp.litmus", TILE_MP);
        let out = tcfuzz(&["check", "--differential", "--json", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
        assert_eq!(line.as_object().map(|o| o.len()), Some(15), "{line}");
        assert_eq!(line["model"], "tileir");
        assert_eq!(line["method"], "explorer", "neither side's verdict carries a caveat: {line}");
        let d = &line["differential"];
        assert_eq!(d["check"], "tileir-weaker-than-ptx");
        assert_eq!(d["holds"], true);
        assert_eq!(d["tileir_race_free"], true);
        assert_eq!(d["ptx"]["result"], "Never");
        assert_eq!(d["ptx"]["states"], 5);
        assert_eq!(d["violations"], serde_json::json!([]));
        assert_eq!(d["race_violations"], serde_json::json!([]));
        assert_eq!(d["extra_states"], 0);
        assert_eq!(d["caveats"], serde_json::json!([]));
        // Without --differential the line keeps its 14 keys.
        let plain = tcfuzz(&["check", "--json", "mp.litmus"], dir.path());
        let line: Value = serde_json::from_str(stdout(&plain).trim()).unwrap();
        assert_eq!(line.as_object().map(|o| o.len()), Some(14), "{line}");
    }

    #[test]
    fn conflicts_with_model_and_oracle() {
        let dir = TempDir::new("differential-usage");
        dir.write("mp.litmus", TILE_MP);
        for extra in ["--oracle", "--model=ptx"] {
            let out = tcfuzz(&["check", "--differential", extra, "mp.litmus"], dir.path());
            assert_eq!(code(&out), 2, "{extra}: {}", stderr(&out));
        }
    }
}

mod commands {
    use super::*;

    #[test]
    fn listed_in_help() {
        let dir = TempDir::new("help");
        let out = tcfuzz(&["--help"], dir.path());
        assert_eq!(code(&out), 0);
        let help = stdout(&out);
        for command in [
            "parse",
            "fmt",
            "check",
            "selftest",
            "minimize",
            "corpus",
            "report",
            "emit",
            "gpu",
            "fuzz",
            "campaign",
            "coordinator",
            "worker",
            "status",
        ] {
            assert!(help.contains(&format!("  {command} ")), "{command} missing from:\n{help}");
        }
        assert!(help.contains("Exit codes"), "{help}");
        let out = tcfuzz(&["check", "--help"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }

    #[test]
    fn unknown_command_is_a_usage_error() {
        let dir = TempDir::new("unknown");
        assert_eq!(code(&tcfuzz(&["frobnicate"], dir.path())), 2);
    }
}

mod bench {
    use super::*;

    #[test]
    fn json_rows_carry_the_pinned_counts() {
        let dir = TempDir::new("bench");
        let out = tcfuzz(&["bench", "--family", "n-writers", "--n", "2", "--model", "sc", "--model", "ptx", "--json"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let rows: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).expect("JSON row")).collect();
        assert_eq!(rows.len(), 2);
        for row in &rows {
            for key in ["family", "n", "model", "complete", "blocked", "seconds", "execs_per_s", "ns_per_execution", "peak_rss_kb"] {
                assert!(row.get(key).is_some(), "missing {key} in {row}");
            }
            // (N+2)! = 24 complete executions for N = 2, under SC and under PTX alike.
            assert_eq!(row["complete"], 24, "{row}");
            assert_eq!(row["blocked"], 0, "{row}");
        }
    }

    /// Issue 27 problem 2: a benchmark run kept every distinct final state (readers n has 2^n,
    /// about 650 bytes each at the end), so its memory grew with the execution count.
    #[test]
    fn memory_does_not_grow_with_the_execution_count() {
        let dir = TempDir::new("bench-rss");
        let row = |n: &str| {
            let out = tcfuzz(&["bench", "--family", "readers", "--n", n, "--json"], dir.path());
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let row: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON row");
            let per = row["ns_per_execution"].as_f64().expect("ns_per_execution");
            assert!(per > 0.0, "{row}");
            (row["complete"].as_u64().expect("complete"), row["peak_rss_kb"].as_u64())
        };
        let (small, small_rss) = row("10");
        let (large, large_rss) = row("14");
        // 2^10 and 2^14 executions, each with a final state of its own.
        assert_eq!((small, large), (1 << 10, 1 << 14));
        // Where the OS reports peak RSS (Linux): 16x the executions, within 4 MiB of each other
        // (keeping the states, it was about 10 MiB more for n = 14). Not closer: where the
        // allocator gets transparent huge pages, the resident set moves in steps of 2 MiB with
        // what else the machine is doing (seen under the full test suite: 2.5 MiB apart once,
        // equal when run alone).
        if let (Some(a), Some(b)) = (small_rss, large_rss) {
            assert!(b < a + 4096, "peak RSS {a} KiB for {small} executions, {b} KiB for {large}");
        }
    }

    #[test]
    fn repeat_reports_one_row_per_size() {
        let dir = TempDir::new("bench-repeat");
        let out = tcfuzz(&["bench", "--family", "sb", "--n", "3", "--repeat", "3", "--json"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let rows: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).expect("JSON row")).collect();
        assert_eq!(rows.len(), 1, "{}", stdout(&out));
        // SB with 3 threads under SC: every load reads 0 or 1, all but the all-zero outcome.
        assert_eq!(rows[0]["complete"], 7, "{}", rows[0]);
        assert_eq!(code(&tcfuzz(&["bench", "--family", "sb", "--repeat", "0"], dir.path())), 2);
    }

    #[test]
    fn a_run_beyond_the_limit_is_reported_and_the_others_go_on() {
        let dir = TempDir::new("bench-limit");
        let out = tcfuzz(&["bench", "--family", "readers", "--n", "2", "--n", "3", "--max-executions", "5", "--json"], dir.path());
        assert_eq!(code(&out), 1);
        assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
        assert!(stderr(&out).contains("error: family readers n=3 under sc: too large to check"), "{}", stderr(&out));
    }

    /// `-j 2`: the same counts on two threads as on one, and the ratio of the rates.
    #[test]
    fn threads_report_the_same_counts_and_the_ratio_to_one_thread() {
        let dir = TempDir::new("bench-threads");
        let out = tcfuzz(&["bench", "--family", "n-writers", "--n", "3", "--model", "ptx", "-j", "2", "--json"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let row: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON row");
        // (N+2)! = 120 complete executions for N = 3.
        assert_eq!((row["complete"].as_u64(), row["threads"].as_u64()), (Some(120), Some(2)), "{row}");
        assert!(row["speedup_vs_one_thread"].as_f64().is_some_and(|r| r > 0.0), "{row}");
        let text = stdout(&tcfuzz(&["bench", "--family", "n-writers", "--n", "3", "-j", "2"], dir.path()));
        assert!(text.contains("on 2 threads: ") && text.contains("x the one-thread rate"), "{text}");
    }

    #[test]
    fn unknown_family_names_the_known_ones() {
        let dir = TempDir::new("bench-unknown");
        let out = tcfuzz(&["bench", "--family", "nope"], dir.path());
        assert_eq!(code(&out), 2, "a usage error");
        assert_eq!(stdout(&out), "", "no table header before the error");
        assert!(stderr(&out).contains("unknown family `nope`; known: readers, n-writers, casrot"), "{}", stderr(&out));
    }
}

mod lower {
    use super::*;

    const TILE_MP: &str = "TileIR mp
{ x = [0, 0]; f = [0]; }
P0@tlb 0, dev 0 {
  <t1> = st.relaxed.device x, [1, 2];
  st.release.device f, [1], <t1>;
}
P1@tlb 1, dev 0 {
  rf, <t2> = ld.acquire.device f;
  rx = ld.relaxed.device x, <t2>;
}
exists (1:rf == [1] /\\ 1:rx != [1, 2])
";

    #[test]
    fn prints_a_ptx_program_that_parses() {
        let dir = TempDir::new("lower");
        let f = dir.write("mp.litmus", TILE_MP);
        let out = tcfuzz(&["lower", f.to_str().unwrap()], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("PTX mp-lowered\n"), "{text}");
        assert!(text.contains("st.release.gpu f_0, 1"), "{text}");
        assert!(text.contains("exists (P1:rf_0 == 1 /\\ ~(P1:rx_0 == 1 /\\ P1:rx_1 == 2))"), "{text}");
        let lowered = dir.write("lowered.litmus", &text);
        assert_eq!(code(&tcfuzz(&["parse", lowered.to_str().unwrap()], dir.path())), 0);
    }

    #[test]
    fn invalid_input_exits_1_with_the_position() {
        let dir = TempDir::new("lower-bad");
        dir.write("bad.litmus", BAD);
        let out = tcfuzz(&["lower", "bad.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "bad.litmus", Some(4)), "{}", stderr(&out));
    }
}

mod hangs {
    use super::*;

    /// An mbarrier expecting two arrivals gets one: the waiter hangs in every execution.
    const HANG: &str = "PTX mbarrier-hang
{ x = 0; bar @ mbarrier cta 0 count 2; }
 P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
 st.weak x, 1 | await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;
 mbarrier.arrive.release.cta.shared::cta.b64 _, [bar] | ld.weak r0, x ;
exists (P1:r0 == 1)
";

    #[test]
    fn a_wait_that_never_completes_is_reported_as_a_hang() {
        let dir = TempDir::new("hang");
        dir.write("hang.litmus", HANG);
        let out = tcfuzz(&["check", "hang.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains("Hangs: P1 (on bar)"), "{}", stdout(&out));
        let out = tcfuzz(&["check", "--json", "hang.litmus"], dir.path());
        let line: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON line");
        assert_eq!(line["hangs"], serde_json::json!(["P1 (on bar)"]));
    }
}

mod selftest {
    use super::*;
    use serde_json::Value;

    /// `selftest: N programs, A agree, D disagree, S skipped (seed S)`: (N, A, D, S, seed).
    fn summary(text: &str) -> (u64, u64, u64, u64, u64) {
        let line = text.lines().last().unwrap_or_else(|| panic!("no output"));
        let numbers: Vec<u64> = line.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
        assert!(line.starts_with("selftest: ") && numbers.len() == 5, "not a summary line: {line}");
        (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4])
    }

    /// Explorer = oracle on random programs with tcgen05, TMEM and mbarrier events (issue: the
    /// tcgen05 checker), duplicates 0: 300 programs, a few seconds in a debug build.
    #[test]
    fn tcgen05_programs_agree() {
        let dir = TempDir::new("selftest-tcgen05");
        let out = tcfuzz(&["selftest", "--family", "tcgen05", "--programs", "300", "--seed", "5"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let (n, agree, disagree, _, _) = summary(&stderr(&out));
        assert_eq!((n, disagree), (300, 0), "{}", stderr(&out));
        assert!(agree >= 270, "most programs are small enough for the oracle: {}", stderr(&out));
    }

    /// `--caveats-out` writes the programs the explorer agrees on only within its caveat, with
    /// both counts (proxy seed 7000160: 2,592 of 4,320), and nothing for an exact one.
    #[test]
    fn caveats_out_writes_the_programs_that_miss_executions_within_a_caveat() {
        let dir = TempDir::new("selftest-caveats");
        let args = ["selftest", "--programs", "1", "--family", "proxy", "--model", "ptx", "--caveats-out", "caveats"];
        let out = tcfuzz(&[&args[..], &["--seed", "7000160"]].concat(), dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = std::fs::read_to_string(dir.path().join("caveats/caveat-proxy-7000160.litmus")).expect("the program is written");
        assert!(
            text.starts_with("// tcfuzz selftest: the explorer misses executions its caveat names on this program (family proxy, seed 7000160)\n// ptx: the explorer finds 2592 complete executions, the unrestricted oracle 4320\n"),
            "{text}"
        );
        assert!(tcfuzz_litmus::parse(&text).is_ok(), "{text}");
        let out = tcfuzz(&[&args[..], &["--seed", "1"]].concat(), dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(std::fs::read_dir(dir.path().join("caveats")).expect("dir").count(), 1, "seed 1 is explored exactly");
    }

    #[test]
    fn thirty_programs_agree() {
        let dir = TempDir::new("selftest");
        let out = tcfuzz(&["selftest", "--programs", "30", "--seed", "1"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let text = stderr(&out);
        assert!(text.starts_with("selftest: 30 programs, "), "{text}");
        let (n, agree, disagree, skipped, seed) = summary(&text);
        assert_eq!((n, disagree, seed), (30, 0, 1), "{text}");
        assert_eq!(agree + skipped, 30, "{text}");
        assert!(agree >= 25, "most programs are small enough for the oracle: {text}");
    }

    #[test]
    fn json_ends_with_the_summary_object() {
        let dir = TempDir::new("selftest-json");
        let out = tcfuzz(&["selftest", "--programs", "6", "--seed", "4", "--json"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        let last: Value = serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(last["kind"], "summary", "{last}");
        assert_eq!((&last["programs"], &last["seed"], &last["disagree"]), (&6.into(), &4.into(), &0.into()), "{last}");
        let counted = last["agree"].as_u64().unwrap() + last["skipped"].as_u64().unwrap();
        assert_eq!(counted, 6, "{last}");
        assert_eq!(last["families"], serde_json::json!(["ptx", "sync", "tileir", "tcgen05", "assume", "fenced", "proxy"]));
        for model in ["sc", "ptx", "tileir"] {
            assert!(last["models"][model]["agree"].is_u64(), "{model} in {last}");
        }
        // The explorer's verdicts with a caveat: one of the six programs under PTX (an SC verdict
        // never has one: SC allows no load buffering).
        assert_eq!((&last["models"]["ptx"]["caveated"], &last["models"]["sc"]["caveated"]), (&1.into(), &0.into()), "{last}");
        assert!(last["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{last}");
    }

    /// A comparison past `--deadline-ms` stops, is skipped and named, and its program is written
    /// with `--out`: tileir seed 39052351 has 7,398,400 executions (x[0] and x[1] independent,
    /// 2,720 each), about 45 s in a release build.
    #[test]
    fn a_comparison_past_the_deadline_is_skipped_and_named() {
        let dir = TempDir::new("selftest-deadline");
        let args = ["selftest", "--programs", "1", "--seed", "39052351", "--family", "tileir", "--deadline-ms", "100", "--out", "slow"];
        let out = tcfuzz(&args, dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        assert_eq!(
            stdout(&out),
            "past the deadline: seed 39052351, family tileir, model tileir (100 ms; regenerate: tcfuzz selftest --programs 1 --seed 39052351 --family tileir --model tileir)\n  written to slow/slow-tileir-39052351.litmus\n"
        );
        assert_eq!(stderr(&out), "selftest: 1 program, 0 agree, 0 disagree, 1 skipped, 1 past the deadline (seed 39052351)\n");
        let text = std::fs::read_to_string(dir.path().join("slow/slow-tileir-39052351.litmus")).expect("the program is written");
        assert!(text.starts_with("// tcfuzz selftest: comparing the explorer with the oracle on this program took more than 100 ms under tileir (family tileir, seed 39052351)\n"), "{text}");
        assert!(tcfuzz_litmus::parse(&text).is_ok(), "{text}");

        let out = tcfuzz(&[&args[..9], &["--json"]].concat(), dir.path());
        let lines: Vec<Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect();
        assert_eq!(lines.len(), 2, "{}", stdout(&out));
        assert_eq!(
            (&lines[0]["kind"], &lines[0]["seed"], &lines[0]["model"], &lines[0]["deadline_ms"]),
            (&"past_deadline".into(), &39052351.into(), &"tileir".into(), &100.into())
        );
        assert_eq!((&lines[1]["past_deadline"], &lines[1]["models"]["tileir"]["past_deadline"]), (&1.into(), &1.into()), "{}", lines[1]);
    }

    /// A program's files are written as soon as it (and every earlier one) is done, not at the end
    /// of the run, and Ctrl-C stops the run with a summary of the programs checked (exit 130).
    #[test]
    fn files_are_written_as_the_run_goes_and_ctrl_c_ends_it_with_a_summary() {
        let dir = TempDir::new("selftest-ctrl-c");
        let args = ["selftest", "--programs", "1000000", "--family", "proxy", "--model", "ptx", "--seed", "7000160", "-j", "1"];
        let child = spawn_tcfuzz(&[&args[..], &["--caveats-out", "caveats", "--json"]].concat(), dir.path());
        // Program 0 misses executions within its caveat (as above): its file comes first.
        let file = dir.path().join("caveats/caveat-proxy-7000160.litmus");
        let start = std::time::Instant::now();
        while !file.exists() && start.elapsed() < std::time::Duration::from_secs(120) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(file.exists(), "the first program's file is written while the run goes on");
        // SAFETY: sends SIGINT to the child we started.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
        let out = child.wait_with_output().expect("output");
        assert_eq!(code(&out), 130, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        let last: Value = serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!((&last["kind"], &last["disagree"]), (&"summary".into(), &0.into()), "{last}");
        let programs = last["programs"].as_u64().unwrap_or(0);
        assert!((1..1_000_000).contains(&programs), "{last}");
        assert_eq!(last["agree"].as_u64().unwrap_or(0) + last["skipped"].as_u64().unwrap_or(0), programs, "{last}");
        assert!(last["models"]["ptx"]["within_caveat"].as_u64().is_some_and(|n| n >= 1), "{last}");
    }

    /// With every family, a program's family is a function of its seed: a run split in two checks
    /// the programs of the whole run (the per-model counts add up).
    #[test]
    fn a_run_split_in_two_checks_the_programs_of_the_whole_run() {
        let dir = TempDir::new("selftest-split");
        let models = |seed: &str, n: &str| -> Value {
            let out = tcfuzz(&["selftest", "--programs", n, "--seed", seed, "--json"], dir.path());
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let last: Value = serde_json::from_str(stdout(&out).lines().last().unwrap_or_default()).unwrap();
            last["models"].clone()
        };
        let (whole, first, second) = (models("10", "9"), models("10", "4"), models("14", "5"));
        for model in ["sc", "ptx", "tileir"] {
            for key in ["agree", "skipped", "caveated"] {
                let n = |v: &Value| v[model][key].as_u64().unwrap_or(0);
                assert_eq!(n(&whole), n(&first) + n(&second), "{model} {key}: {whole} vs {first} + {second}");
            }
        }
        // Seeds 10..19 take every family: 10 mod 7 = 3 (tcgen05, ptx only) ... 16 mod 7 = 2 (tileir).
        assert!(whole["tileir"]["agree"].as_u64().is_some_and(|n| n >= 1), "{whole}");
    }

    /// 20 programs of `family` at seed 3 agree under sc and ptx (at least 15 judged under each).
    fn family_agrees_under_sc_and_ptx(family: &str) {
        let dir = TempDir::new(&format!("selftest-{family}"));
        let out = tcfuzz(&["selftest", "--programs", "20", "--seed", "3", "--family", family, "--json"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        let last: Value = serde_json::from_str(text.lines().last().unwrap_or_default()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!((&last["families"], &last["disagree"]), (&serde_json::json!([family]), &0.into()), "{last}");
        for model in ["sc", "ptx"] {
            assert!(last["models"][model]["agree"].as_u64().is_some_and(|n| n >= 15), "{model} in {last}");
        }
    }

    /// Issue 26 item 8: the `fenced` family (relaxed flags with `fence.sc` between them) is a
    /// selftest family of its own, checked under sc and ptx.
    #[test]
    fn the_fenced_family_runs_under_sc_and_ptx() {
        family_agrees_under_sc_and_ptx("fenced");
    }

    /// The `proxy` family (ptx programs with accesses through texture, surface, constant and
    /// generic aliases) runs under sc and ptx; it is what caught the lost load-buffering
    /// executions through a surface alias (166 disagreements in 3,000 programs before the fix).
    #[test]
    fn the_proxy_family_runs_under_sc_and_ptx() {
        family_agrees_under_sc_and_ptx("proxy");
    }

    #[test]
    fn one_family_under_one_model() {
        let dir = TempDir::new("selftest-family");
        let out = tcfuzz(&["selftest", "--programs", "4", "--seed", "7", "--family", "sync", "--model", "sc", "--json"], dir.path());
        assert_eq!(code(&out), 0, "stdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        let last: Value = serde_json::from_str(stdout(&out).lines().last().unwrap_or_default()).unwrap();
        assert_eq!(last["families"], serde_json::json!(["sync"]));
        let models: Vec<&String> = last["models"].as_object().unwrap().keys().collect();
        assert_eq!(models, ["sc"], "{last}");
    }

    #[test]
    fn a_family_and_a_model_that_do_not_meet_are_a_usage_error() {
        let dir = TempDir::new("selftest-usage");
        let out = tcfuzz(&["selftest", "--family", "tileir", "--model", "sc"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        assert!(stderr(&out).contains("the tileir family is not checked under sc"), "{}", stderr(&out));
        assert_eq!(code(&tcfuzz(&["selftest", "--family", "tso"], dir.path())), 2);
    }

    #[test]
    fn out_onto_a_regular_file_fails() {
        let dir = TempDir::new("selftest-out");
        dir.write("taken", "a file");
        let out = tcfuzz(&["selftest", "--programs", "1", "--out", "taken"], dir.path());
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains("--out taken: exists and is not a directory"), "{}", stderr(&out));
    }

    #[test]
    fn exit_code_5_is_documented() {
        let dir = TempDir::new("selftest-help");
        let help = stdout(&tcfuzz(&["--help"], dir.path()));
        assert!(help.contains("  5  (selftest) the DPOR explorer and the exhaustive oracle disagree"), "{help}");
        let help = stdout(&tcfuzz(&["selftest", "--help"], dir.path()));
        assert!(help.contains("5 they disagree on some"), "{help}");
        assert!(help.contains("JSON output (--json)"), "{help}");
    }
}

mod dot {
    use super::*;
    use serde_json::Value;

    /// An example with four outcomes, one witness each.
    fn example() -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ptx/MP+relaxed-gpu-diffcta.litmus").display().to_string()
    }

    /// The `.dot` files in `dir`, sorted.
    fn dot_files(dir: &Path) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> =
            std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "dot")).collect();
        files.sort();
        files
    }

    #[test]
    fn one_graph_per_printed_state() {
        let dir = TempDir::new("dot");
        let out = tcfuzz(&["check", "--dot", "graphs", &example()], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let text = stdout(&out);
        let states: usize = text.lines().find_map(|l| l.strip_prefix("States ")).and_then(|n| n.parse().ok()).unwrap();
        assert_eq!(states, 4, "{text}");
        let files = dot_files(&dir.path().join("graphs"));
        assert_eq!(files.len(), states, "{files:?}");
        for (k, f) in files.iter().enumerate() {
            assert_eq!(f.file_name().unwrap().to_string_lossy(), format!("MP+relaxed-gpu-diffcta-{}.dot", k + 1));
            let dot = std::fs::read_to_string(f).unwrap();
            assert!(dot.starts_with("digraph"), "{}: {dot}", f.display());
            assert!(dot.contains("[label=rf, color=red]"), "{dot}");
        }
        assert!(text.contains(&format!("Witness graphs: 4 files in {}", Path::new("graphs").display())), "{text}");
        // The first state printed is the first graph's: P1 read 0 from both.
        let first = std::fs::read_to_string(&files[0]).unwrap();
        assert!(first.contains("R flag = 0") && first.contains("R x = 0"), "{first}");
    }

    #[test]
    fn json_lists_the_files_only_with_dot() {
        let dir = TempDir::new("dot-json");
        let out = tcfuzz(&["check", "--json", "--dot", "graphs", &example()], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        let files = line["dot_files"].as_array().unwrap();
        assert_eq!(files.len(), line["states"].as_array().unwrap().len(), "{line}");
        for f in files {
            assert!(dir.path().join(f.as_str().unwrap()).is_file(), "{f}");
        }
        let out = tcfuzz(&["check", "--json", &example()], dir.path());
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert!(line.get("dot_files").is_none(), "{line}");
    }

    #[test]
    fn onto_a_regular_file_fails() {
        let dir = TempDir::new("dot-file");
        dir.write("graphs", "not a directory");
        let out = tcfuzz(&["check", "--dot", "graphs", &example()], dir.path());
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert_eq!(stderr(&out).trim_end(), "error: --dot graphs: exists and is not a directory");
        assert_eq!(stdout(&out), "", "nothing is checked");
    }

    #[test]
    fn conflicts_with_differential() {
        let dir = TempDir::new("dot-differential");
        assert_eq!(code(&tcfuzz(&["check", "--differential", "--dot", "graphs", &example()], dir.path())), 2);
    }
}

mod tcgen05 {
    use super::*;

    fn example(name: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/tcgen05").join(name).display().to_string()
    }

    #[test]
    fn explain_shows_the_racing_performs_and_what_would_order_them() {
        let dir = TempDir::new("explain-race");
        let out = tcfuzz(&["explain", &example("pattern3-broken-no-before-thread-sync.litmus")], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("tmem race between P0#1 (tcgen05.cp write of sf"), "{text}");
        assert!(text.contains(">> #1 W sf = 3 [weak] (tcgen05.cp perform)"), "{text}");
        assert!(text.contains("(tcgen05.mma perform)") && text.contains("\nNothing orders them either way. What would: "), "{text}");
    }

    #[test]
    fn object_states_are_shown_in_words() {
        let dir = TempDir::new("tc-states");
        let out = tcfuzz(&["check", &example("commit-multicast-two-ctas.litmus"), &example("alloc-relinquish-dealloc.litmus")], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("empty0=<phase 1, pending 1 of 1>; empty1=<phase 1, pending 1 of 1>;"), "{text}");
        assert!(text.contains("%tmem.alloc@cta0=<no columns allocated, permit relinquished>;"), "{text}");
        // JSON keeps the numbers (scripts compare them).
        let out = tcfuzz(&["check", "--json", &example("commit-multicast-two-ctas.litmus")], dir.path());
        assert!(!stdout(&out).contains("<phase"), "{}", stdout(&out));
    }

    #[test]
    fn explain_shows_the_table_48_hang_and_has_nothing_to_say_about_table_47() {
        let dir = TempDir::new("explain-hang");
        let out = tcfuzz(&["explain", &example("table48-dealloc-nondet-hang.litmus")], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        assert!(stdout(&out).contains("hang: P0, P1 wait(s) forever"), "{}", stdout(&out));
        let out = tcfuzz(&["explain", &example("table47-dealloc-cluster-barrier.litmus")], dir.path());
        assert_eq!(code(&out), 0);
        assert!(stdout(&out).contains("nothing to explain"), "{}", stdout(&out));
    }

    #[test]
    fn json_gives_race_kinds_and_misuse() {
        let dir = TempDir::new("tc-json");
        let out = tcfuzz(&["check", "--json", &example("smem-generic-st-mma-no-proxy-fence.litmus")], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON line");
        assert_eq!(v["races"][0]["kind"], "proxy");
        assert!(v["races"][0]["rule"].as_str().is_some_and(|r| r.contains("fence.proxy.async")));
        let out = tcfuzz(&["check", "--json", &example("alloc-after-relinquish-misuse.litmus")], dir.path());
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON line");
        assert_eq!(v["misuse"][0]["rule"], "alloc-after-relinquish");
        assert_eq!(v["misuse"][0]["section"], "PTX ISA §9.7.16.7.1");
        assert_eq!(v["misuse"][0]["thread"], "P0");
        let out = tcfuzz(&["check", &example("alloc-no-dealloc-exit-misuse.litmus")], dir.path());
        assert!(
            stdout(&out).contains("Misuse: 1\n  exit-with-live-columns: CTA exits with Tensor Memory still allocated"),
            "{}",
            stdout(&out)
        );
        // A race between a bulk copy and a later access of its thread: only a wait on the copy's
        // mbarrier orders it (fence.proxy.async does not), in the JSON and under the race.
        let copy = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/mbarrier/bulk-copy-destination-read-without-wait.litmus")
            .display()
            .to_string();
        let out = tcfuzz(&["check", "--json", &copy], dir.path());
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON line");
        assert!(v["races"][0]["rule"].as_str().is_some_and(|r| r.starts_with("a wait on the bulk copy's mbarrier")), "{v}");
        let out = tcfuzz(&["check", &copy], dir.path());
        assert!(stdout(&out).contains("\n    (what would order them: a wait on the bulk copy's mbarrier"), "{}", stdout(&out));
        assert!(!stdout(&out).contains("proxy races would be ordered by"), "{}", stdout(&out));
    }
}

/// `tcfuzz emit`, `tcfuzz gpu` and `check --compiler` as far as a machine without a GPU goes (the
/// assembler and Tile IR compiler tests are the gpu crate's).
mod gpu {
    use super::*;

    const MP: &str = "PTX MP\n{ x = 0; f = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

    #[test]
    fn emit_prints_a_kernel_for_the_programs_target() {
        let dir = TempDir::new("emit");
        dir.write("mp.litmus", MP);
        let out = tcfuzz(&["emit", "--no-assemble", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains(".target sm_90a\n"), "{}", stdout(&out));
        assert!(stdout(&out).contains("@%lane0 ld.acquire.gpu.global.b32 %w0, [%g1];"), "{}", stdout(&out));
        let out = tcfuzz(&["emit", "--no-assemble", "--out", "mp.ptx", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0);
        assert!(std::fs::read_to_string(dir.path().join("mp.ptx")).expect("written").starts_with("// tcfuzz kernel"));
    }

    #[test]
    fn emit_writes_tile_ir_for_tile_ir_programs() {
        let dir = TempDir::new("emit-tileir");
        dir.write(
            "mp.litmus",
            "TileIR mp\n{ x = [0, 0]; f = [0]; }\nP0@tlb 0, dev 0 {\n  <t1> = st.relaxed.device x, [1, 2];\n  st.release.device f, [1], <t1>;\n}\nexists (f == [1])\n",
        );
        let out = tcfuzz(&["emit", "--no-assemble", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).starts_with("cuda_tile.module @tcfuzz_litmus {\n  entry @tb0("), "{}", stdout(&out));
        assert!(stdout(&out).contains("store_ptr_tko release device %12, %13 token=%8"), "{}", stdout(&out));
        let out = tcfuzz(&["emit", "--target", "sm_70", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 2);
    }

    #[test]
    fn emit_refuses_what_a_kernel_cannot_express_with_exit_3() {
        let dir = TempDir::new("emit-refuse");
        dir.write("two-gpus.litmus", &MP.replace("P1@cta 1,gpu 0", "P1@cta 1,gpu 1").replace(".gpu", ".sys"));
        let out = tcfuzz(&["emit", "two-gpus.litmus"], dir.path());
        assert_eq!(code(&out), 3);
        assert_eq!(stderr(&out).trim_end(), "two-gpus.litmus:3:19: error: cannot emit: P1 runs on gpu 1: a kernel runs on one GPU");
    }

    #[test]
    fn without_a_gpu_gpu_commands_exit_6_and_say_why() {
        if std::path::Path::new("/dev/nvidia0").exists() {
            println!("skipped: this machine has a GPU");
            return;
        }
        let dir = TempDir::new("gpu-none");
        dir.write("mp.litmus", MP);
        let out = tcfuzz(&["gpu", "run", "mp.litmus", "--iterations", "1"], dir.path());
        assert_eq!(code(&out), 6, "{}", stderr(&out));
        assert!(stderr(&out).starts_with("tcfuzz gpu run: no GPU: "), "{}", stderr(&out));
        let out = tcfuzz(&["gpu", "info", "--json"], dir.path());
        assert_eq!(code(&out), 6);
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
        assert!(v["device"].is_null() && v["reason"].as_str().is_some_and(|r| r.starts_with("no GPU: ")), "{v}");
    }

    /// A `--stress-config` that cannot be used stops the run before any GPU is looked for:
    /// exit 1 with the file and the wrong name, or exit 2 beside `--stress`.
    #[test]
    fn gpu_run_names_what_is_wrong_with_a_stress_config() {
        let dir = TempDir::new("gpu-stress-config");
        dir.write("mp.litmus", MP);
        dir.write("typo.json", r#"{"barrier_pct": 0, "permut": true}"#);
        let out = tcfuzz(&["gpu", "run", "mp.litmus", "--stress-config", "typo.json"], dir.path());
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(
            stderr(&out).starts_with("tcfuzz gpu run: --stress-config typo.json: not a JSON object of harness parameters: unknown field `permut`, expected one of"),
            "{}",
            stderr(&out)
        );
        let out = tcfuzz(&["gpu", "run", "mp.litmus", "--stress-config", "missing.json"], dir.path());
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(stderr(&out).starts_with("tcfuzz gpu run: cannot read --stress-config missing.json: "), "{}", stderr(&out));
        dir.write("ok.json", r#"{"barrier_pct": 0}"#);
        let out = tcfuzz(&["gpu", "run", "mp.litmus", "--stress-config", "ok.json", "--stress", "on"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));
    }

    #[test]
    fn gpu_run_refuses_a_program_the_model_says_may_hang() {
        let dir = TempDir::new("gpu-hang");
        dir.write(
            "hang.litmus",
            "PTX hang\n{ bar @ mbarrier cta 0 gpu 0 count 2; }\n P0@cta 0,gpu 0 ;\n mbarrier.arrive.release.cta.shared::cta.b64 s, [bar] ;\n await mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [bar], 0 ;\nexists (true)\n",
        );
        let out = tcfuzz(&["gpu", "run", "hang.litmus"], dir.path());
        assert_eq!(code(&out), 3, "{}", stderr(&out));
        assert!(stderr(&out).contains("the model says the program may hang (P0"), "{}", stderr(&out));
    }

    #[test]
    fn check_compiler_skips_programs_without_tile_ir_threads() {
        let dir = TempDir::new("compiler-ptx");
        dir.write("mp.litmus", MP);
        let out = tcfuzz(&["check", "--compiler", "mp.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(
            stderr(&out).contains("mp.litmus: note: skipped: --compiler checks Tile IR programs, and this one has no Tile IR threads"),
            "{}",
            stderr(&out)
        );
    }
}

mod minimize {
    use super::*;

    #[test]
    fn a_racy_program_shrinks_to_the_racing_pair() {
        let dir = TempDir::new("minimize");
        dir.write("mp.litmus", MP);
        let out = tcfuzz(&["minimize", "--kind", "race", "mp.litmus", "--out", "min.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("minimized mp.litmus: 2 threads, 4 instructions, 2 locations → 2 threads, 2 instructions, 1 location in "),
            "{err}"
        );
        assert!(stdout(&out).is_empty(), "--out writes the file, not stdout");
        let min = std::fs::read_to_string(dir.path().join("min.litmus")).unwrap();
        assert!(
            min.starts_with(
                "// minimized by `tcfuzz minimize --kind race` from mp.litmus (2 threads, 4 instructions, 2 locations), keeping: data\n"
            ),
            "{min}"
        );
        // The result is a valid program that still races.
        let out = tcfuzz(&["check", "--json", "min.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains("\"kind\":\"data\""), "{}", stdout(&out));
    }

    #[test]
    fn json_reports_sizes_and_the_program() {
        let dir = TempDir::new("minimize-json");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["minimize", "--json", "--budget", "30s", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(v["kind"], "verdict");
        assert_eq!(v["original"]["instructions"], 4);
        // SB's weak outcome needs all four accesses (and keeps `Sometimes`).
        assert_eq!(v["minimized"]["instructions"], 4);
        assert_eq!(v["budget_exhausted"], false);
        assert!(v["program"].as_str().unwrap().contains("exists"), "{v}");
    }

    #[test]
    fn a_program_without_the_property_is_an_input_error() {
        let dir = TempDir::new("minimize-none");
        dir.write("sb.litmus", SB);
        let out = tcfuzz(&["minimize", "--kind", "race", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert_eq!(stderr(&out).trim_end(), "error: sb.litmus: nothing to keep: the program has no race");
        let out = tcfuzz(&["minimize", "--kind", "explorer-vs-oracle", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("the explorer and the oracle agree on it"), "{}", stderr(&out));
        let out = tcfuzz(&["minimize", "--kind", "explorer-misses", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        assert_eq!(
            stderr(&out).trim_end(),
            "error: sb.litmus: nothing to keep: the explorer misses no execution on it that a caveat allows (or the oracle cannot judge it)"
        );
        let out = tcfuzz(&["minimize", "--kind", "tileir-weaker-than-ptx", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 2, "a PTX program for a Tile IR check is a usage error: {}", stderr(&out));
        let out = tcfuzz(&["minimize", "--budget", "soon", "sb.litmus"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));
    }

    /// `selftest --family ptx` seed 69079626: the explorer finds 11 of the oracle's 12
    /// executions, a miss its `cas` caveat names (load buffering through the register P1's `cas`
    /// compares with). `explorer-misses` keeps that gap, with that caveat, in a smaller program.
    #[test]
    fn a_miss_within_a_caveat_shrinks_with_its_caveat() {
        let dir = TempDir::new("minimize-misses");
        dir.write(
            "lb.litmus",
            "PTX random-ptx-69079626
{ x = 0; y = 0; z = 0; }
 P0@cta 1,gpu 0       | P1@cta 0,gpu 0            ;
 ld.relaxed.sys r0, x | ld.relaxed.cta r0, y      ;
 st.relaxed.gpu y, r0 | st x, 2                   ;
 st y, 2              | atom.cta.cas r1, z, r0, 2 ;
                      | st.release.cluster x, r1  ;
                      | st.weak x, 1              ;
                      | fence.acq_rel.cluster     ;
exists (true)
",
        );
        let out = tcfuzz(&["minimize", "--kind", "explorer-misses", "--json", "lb.litmus"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(v["kind"], "explorer-misses");
        assert!(v["minimized"]["instructions"].as_u64().unwrap() < 9, "{v}");
        dir.write("min.litmus", v["program"].as_str().unwrap());
        let count = |extra: &[&str]| {
            let out = tcfuzz(&[&["check", "--json", "min.litmus"][..], extra].concat(), dir.path());
            let v: serde_json::Value = serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
            (v["executions"]["complete"].as_u64().unwrap(), v["caveats"].as_array().unwrap().len())
        };
        let ((explorer, caveats), (oracle, _)) = (count(&[]), count(&["--oracle"]));
        assert!(explorer < oracle, "explorer {explorer}, oracle {oracle}");
        assert_eq!(caveats, 1);
    }
}

mod corpus {
    use super::*;
    use tcfuzz_corpus::{Corpus, Finding, Kind, Side};

    fn make(dir: &Path) {
        let c = Corpus::open(dir).unwrap();
        for (i, program) in [MP, SB].iter().enumerate() {
            let f = Finding {
                kind: Kind::ExplorerVsOracle,
                signature: format!("oracle-only state #{i}"),
                campaign: 1,
                seen_ms: 1_700_000_000_000,
                program: program.to_string(),
                sides: [Side { name: "explorer".into(), verdict: "Ok".into() }, Side { name: "oracle".into(), verdict: "No".into() }],
            };
            c.record_discrepancy(&f).unwrap();
        }
    }

    #[test]
    fn ls_show_check_export_import() {
        let dir = TempDir::new("corpus");
        make(&dir.path().join("c"));
        let out = tcfuzz(&["corpus", "ls", "--corpus", "c"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let ls = stdout(&out);
        assert!(
            ls.contains("explorer-vs-oracle             1  2023-11-14 22:13:20  2023-11-14 22:13:20  1          no   oracle-only state #0"),
            "{ls}"
        );
        assert!(
            ls.ends_with("c: 2 discrepancies, 0 coverage seeds, 0 campaigns, 0 coverage features, 0 jobs (0 queued, 0 leased, 0 done)\n"),
            "{ls}"
        );

        let out = tcfuzz(&["corpus", "ls", "--json", "--corpus", "c"], dir.path());
        let lines: Vec<serde_json::Value> = stdout(&out).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[1]["signature"], "oracle-only state #1");
        assert_eq!(lines[2]["discrepancies"], 2);

        let out = tcfuzz(&["corpus", "show", "--corpus", "c", "explorer-vs-oracle", "oracle-only state #0"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stdout(&out).contains("--- program:\nPTX MP"), "{}", stdout(&out));
        let out = tcfuzz(&["corpus", "show", "--corpus", "c", "explorer-vs-oracle", "nope"], dir.path());
        assert_eq!(code(&out), 1);
        let out = tcfuzz(&["corpus", "show", "--corpus", "c", "explorer-vs-orakel", "x"], dir.path());
        assert_eq!(code(&out), 2, "{}", stderr(&out));

        let out = tcfuzz(&["corpus", "check", "--corpus", "c"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(stdout(&out), "checked 4 records in 13 trees of c: ok\n");

        let out = tcfuzz(&["corpus", "export", "--corpus", "c", "out"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(stdout(&out), "exported 2 discrepancies, 0 seeds, 0 campaigns, 0 coverage features, 0 jobs to out\n");
        let out = tcfuzz(&["corpus", "import", "--corpus", "c2", "out"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let out = tcfuzz(&["corpus", "export", "--corpus", "c2", "out2"], dir.path());
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
        assert_eq!(read("out/corpus.json"), read("out2/corpus.json"));
    }

    #[test]
    fn a_damaged_corpus_fails_check_with_the_tree_and_key() {
        let dir = TempDir::new("corpus-damaged");
        make(&dir.path().join("c"));
        let db = dir.path().join("c/db");
        let len = std::fs::metadata(&db).unwrap().len();
        std::fs::OpenOptions::new().write(true).open(&db).unwrap().set_len(len / 2).unwrap();
        let out = tcfuzz(&["corpus", "check", "--corpus", "c"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("acknowledged records are missing; the database file was truncated or damaged"), "{}", stderr(&out));
        let out = tcfuzz(&["corpus", "ls", "--corpus", "nowhere"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("nowhere: no corpus here"), "{}", stderr(&out));
    }
}

/// Issue 23: seed-pool epochs through kill -9 of the coordinator and of workers.
#[path = "cli/epochs.rs"]
mod epochs;
#[cfg(unix)]
#[path = "cli/genmc_bench.rs"]
mod genmc_bench;
/// Issue 21: the CLI as a user meets it.
#[path = "cli/issue21.rs"]
mod issue21;
/// Issue 23: `--max-message-bytes` from the CLI.
#[path = "cli/message_limit.rs"]
mod message_limit;
#[path = "cli/refused_reports.rs"]
mod refused_reports;
#[path = "cli/services.rs"]
mod services;
#[path = "cli/trace.rs"]
mod trace;
