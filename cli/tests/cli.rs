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
        assert!(stdout(&out).contains("parsed 1 files, 0 with errors"), "{}", stdout(&out));
    }

    #[test]
    fn validation_error_has_position() {
        let dir = TempDir::new("parse-bad");
        dir.write("bad.litmus", BAD);
        let out = tcfuzz(&["parse", "bad.litmus"], dir.path());
        assert_eq!(code(&out), 1);
        let err = stderr(&out);
        assert!(has_position(&err, "bad.litmus", Some(4)), "{err}");
        assert!(stdout(&out).contains("parsed 1 files, 1 with errors"), "{}", stdout(&out));
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
        assert!(stdout(&out).contains("parsed 3 files, 0 with errors"), "{}", stdout(&out));
    }

    #[test]
    fn directory_with_an_error_fails() {
        let dir = TempDir::new("parse-walk-bad");
        dir.write("ex/ok.litmus", SB);
        dir.write("ex/sub/bad.litmus", BAD);
        let out = tcfuzz(&["parse", "ex"], dir.path());
        assert_eq!(code(&out), 1);
        assert!(has_position(&stderr(&out), "ex/sub/bad.litmus", Some(4)), "{}", stderr(&out));
        assert!(stdout(&out).contains("parsed 2 files, 1 with errors"), "{}", stdout(&out));
    }

    #[test]
    fn expands_unexpanded_glob() {
        let dir = TempDir::new("parse-glob");
        dir.write("ex/one.litmus", SB);
        dir.write("ex/sub/two.litmus", MP);
        dir.write("ex/sub/three.txt", GARBAGE);
        let out = tcfuzz(&["parse", "ex/**/*.litmus"], dir.path());
        assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
        assert!(stdout(&out).contains("parsed 2 files, 0 with errors"), "{}", stdout(&out));
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
        assert!(stdout(&out).contains("parsed 2 files, 1 with errors"), "{}", stdout(&out));
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
        assert!(lines[2]["errors"][0]["message"].as_str().unwrap().contains("missing.litmus"));
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

mod placeholders {
    use super::*;

    const COMMANDS: [&str; 10] =
        ["check", "campaign", "coordinator", "worker", "minimize", "report", "corpus", "emit", "bench", "selftest"];

    #[test]
    fn exit_3_with_message() {
        let dir = TempDir::new("placeholders");
        for command in COMMANDS {
            let out = tcfuzz(&[command, "some-arg", "--some-flag", "x"], dir.path());
            assert_eq!(code(&out), 3, "{command}: {}", stderr(&out));
            let expected = format!("error: 'tcfuzz {command}' is not implemented yet (see the ");
            assert!(stderr(&out).contains(&expected), "{command}: {}", stderr(&out));
        }
        let out = tcfuzz(&["check"], dir.path());
        assert_eq!(stderr(&out).trim_end(), "error: 'tcfuzz check' is not implemented yet (see the checker issue)");
    }

    #[test]
    fn listed_in_help() {
        let dir = TempDir::new("help");
        let out = tcfuzz(&["--help"], dir.path());
        assert_eq!(code(&out), 0);
        let help = stdout(&out);
        for command in COMMANDS.iter().chain(&["parse", "fmt"]) {
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
