//! The command lines in `deploy/` are ones this `tcfuzz` accepts: every `args:` or `command:` list
//! of the compose file and the Kubernetes manifests is run as `tcfuzz ARGS... --help`, which clap
//! answers with exit 0 only when every flag before `--help` exists and every value parses. A flag
//! renamed in the CLI and not in a manifest fails here, not in a cluster at night.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Every `.yaml` file under `dir`, sorted.
fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("read deploy/").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml") {
            out.push(path);
        }
    }
}

/// The one-line `args: [...]` / `command: [...]` lists of a manifest, as (line number, argv).
fn command_lines(text: &str) -> Vec<(usize, Vec<String>)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.trim_start().strip_prefix("args:").or_else(|| line.trim_start().strip_prefix("command:"))?;
            let argv: Vec<String> =
                serde_json::from_str(rest.trim()).unwrap_or_else(|e| panic!("line {}: not a one-line list: {e}", i + 1));
            Some((i + 1, argv))
        })
        .collect()
}

#[test]
fn every_deploy_command_line_is_accepted_by_tcfuzz() {
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy");
    let mut files = Vec::new();
    yaml_files(&deploy, &mut files);
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read manifest");
        for (line, argv) in command_lines(&text) {
            let out = Command::new(env!("CARGO_BIN_EXE_tcfuzz")).args(&argv).arg("--help").output().expect("run tcfuzz");
            assert!(
                out.status.success(),
                "{}:{line}: `tcfuzz {}` is not accepted:\n{}",
                file.display(),
                argv.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    // compose: coordinator and worker; k8s: coordinator, worker, GPU worker, report CronJob.
    assert!(checked >= 6, "only {checked} command lines found under deploy/");
}

#[test]
fn a_misspelt_flag_is_caught() {
    let out = Command::new(env!("CARGO_BIN_EXE_tcfuzz")).args(["fuzz", "--corpuss", "x", "--help"]).output().expect("run tcfuzz");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}
