//! Issue 23: `--max-message-bytes`, the largest request the coordinator takes from a worker, set
//! from the CLI: out of range it is a usage error; a coordinator started with it tells
//! registering workers, and refuses a larger request; an embedded campaign's workers are told it.

use std::time::Duration;

use serde_json::Value;
use tcfuzz_proto::connect::Target;
use tcfuzz_proto::v1;

use super::services::{Coordinator, TOKEN};
use super::*;

/// The smallest limit the coordinator accepts (`tcfuzz_coordinator::MIN_MESSAGE_BYTES`).
const SMALL: u64 = 256 << 10;

#[test]
fn max_message_bytes_out_of_range_is_a_usage_error_and_nothing_starts() {
    let dir = TempDir::new("message-limit-range");
    let cases = [("coordinator", "262143"), ("coordinator", "16777217"), ("campaign", "1000"), ("campaign", "0")];
    for (command, n) in cases {
        let out = tcfuzz(&[command, "--corpus", "c", "--max-message-bytes", n], dir.path());
        assert_eq!(code(&out), 2, "{command} --max-message-bytes {n}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).trim_end(),
            format!(
                "error: --max-message-bytes {n}: not in 262144..=16777216 (256 KiB to 16 MiB; a result with one largest program must fit)"
            )
        );
        assert!(!dir.path().join("c").exists(), "{command}: no corpus made");
    }
    // Both ends of the range are taken (the campaign is refused later, for another reason).
    for n in ["262144", "16777216"] {
        let out = tcfuzz(&["campaign", "--corpus", "c", "--max-message-bytes", n, "--workers", "0"], dir.path());
        assert_eq!(stderr(&out).trim_end(), "error: --workers 0: give at least one worker");
    }
}

#[test]
fn a_coordinator_tells_registering_workers_its_message_limit_and_refuses_larger_requests() {
    let dir = TempDir::new("message-limit-register");
    let c = Coordinator::start_with(&dir, "127.0.0.1:0", "30s", &["--max-message-bytes", &SMALL.to_string()]);
    let target = Target { url: c.url.clone(), token: Some(TOKEN.into()), timeout: Some(Duration::from_secs(10)), ..Target::default() };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (registered, too_large) = rt.block_on(async {
        let mut client = target.coordinator().unwrap();
        let version = tcfuzz_proto::protocol_version().to_string();
        let registered =
            client.register(v1::RegisterRequest { cores: 1, version, name: "probe".into(), ..Default::default() }).await.unwrap();
        // Over the limit by its worker id alone: refused as it is decoded, before any check.
        let big = v1::ReportResultsRequest { worker_id: "w".repeat(SMALL as usize + 1000), ..Default::default() };
        (registered.into_inner(), client.report_results(big).await.unwrap_err())
    });
    // The probe's connection closed, so that the coordinator's graceful stop need not wait for it.
    drop(rt);
    assert_eq!(registered.max_message_bytes, SMALL);
    assert_eq!(too_large.code(), tonic::Code::OutOfRange, "{too_large:?}");
    assert!(too_large.message().contains(&format!("the limit is: {SMALL} bytes")), "{too_large:?}");
    c.stop();
}

#[test]
fn an_embedded_campaign_tells_its_workers_the_limit_it_is_given() {
    let dir = TempDir::new("message-limit-campaign");
    let config = dir.write("quiet.json", super::services::QUIET_CONFIG);
    let limit = SMALL.to_string();
    let args = ["-v", "campaign", "--corpus", "c", "--config", config.to_str().unwrap(), "--programs", "6", "--workers", "2"];
    let out = tcfuzz(&[&args[..], &["--job-programs", "3", "--max-message-bytes", &limit, "--json"]].concat(), dir.path());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let log = stderr(&out);
    // The worker's line (the coordinator's says "worker registered").
    let registered: Vec<&str> = log.lines().filter(|l| l.trim_start().starts_with("INFO registered ")).collect();
    assert_eq!(registered.len(), 2, "{log}");
    for line in registered {
        assert!(line.contains(&format!("max_message_bytes={SMALL}")), "{line}");
    }
    let summary: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!((summary["programs"].as_u64(), summary["jobs_failed"].as_u64()), (Some(6), Some(0)), "{summary}");
}
