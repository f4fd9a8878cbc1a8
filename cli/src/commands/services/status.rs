//! `tcfuzz status`: a running coordinator's campaigns and workers.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use serde_json::json;
use tcfuzz_proto::v1;

use super::connection::Connection;
use crate::exit::UsageError;

/// Show a running coordinator's campaigns (state, programs, programs/s, jobs queued/leased/done,
/// discrepancies) and the workers alive (heard from within one lease period).
///
/// --json: one object {"campaigns": [{"id", "name", "state", "programs", "executions",
/// "too_large", "programs_per_s", "jobs_queued", "jobs_leased", "jobs_done",
/// "discrepancies_new", "discrepancies_total", "coverage_features", "minimizations",
/// "minimized", "elapsed_ms", "error", "jobs_failed", "failed_jobs": [{"job", "reason",
/// "at_ms"}], "gpu": {"ran", "instances", "unsupported", "failed", "given_up"}}], "workers":
/// [{"id", "name", "cores", "gpu_arch", "leases", "last_seen_ms"}]} ("gpu": what the workers'
/// GPU oracle did: programs run on a GPU and their test instances, programs it could not run
/// there, runs that failed, programs not run after a worker gave its GPU up).
/// ("gpu_arch" empty for a worker without `--gpu`). A failed job's results were refused by the
/// coordinator: done, not retried, its programs not counted.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub connection: Connection,

    /// One campaign only.
    #[arg(long, value_name = "ID")]
    pub campaign: Option<u64>,

    /// JSON output (see above).
    #[arg(long)]
    pub json: bool,
}

pub fn state_name(state: i32) -> &'static str {
    match v1::CampaignState::try_from(state) {
        Ok(v1::CampaignState::Running) => "running",
        Ok(v1::CampaignState::Stopped) => "stopped",
        Ok(v1::CampaignState::Finished) => "finished",
        _ => "unknown",
    }
}

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let status = super::runtime()?.block_on(async {
        let target = args.connection.target(Duration::from_secs(10))?.ok_or_else(|| UsageError("give --coordinator URL".into()))?;
        let mut admin = target.admin()?;
        let r = admin.campaign_status(v1::CampaignStatusRequest { campaign: args.campaign.unwrap_or(0) }).await;
        r.map(tonic::Response::into_inner)
            .map_err(|s| anyhow::anyhow!("{}: {}", super::campaign::code_name(s.code()), s.message()))
            .context("status")
    })?;
    if args.json {
        let campaigns: Vec<_> = status
            .campaigns
            .iter()
            .map(|c| {
                let s = c.stats.unwrap_or_default();
                json!({
                    "id": c.id, "name": c.name, "state": state_name(c.state), "programs": s.programs, "executions": s.executions,
                    "too_large": s.too_large, "programs_per_s": c.programs_per_s, "jobs_queued": c.jobs_queued,
                    "jobs_leased": c.jobs_leased, "jobs_done": c.jobs_done, "discrepancies_new": c.discrepancies_new,
                    "discrepancies_total": c.discrepancies_total, "coverage_features": c.coverage_features,
                    "minimizations": c.minimizations, "minimized": c.minimized, "elapsed_ms": c.elapsed_ms, "error": c.error,
                    "jobs_failed": c.jobs_failed,
                    "failed_jobs": c.failed_jobs.iter().map(|f| json!({"job": f.job_id, "reason": f.reason, "at_ms": f.failed_unix_ms})).collect::<Vec<_>>(),
                    "gpu": gpu_json(&s),
                })
            })
            .collect();
        let workers: Vec<_> = status
            .workers
            .iter()
            .map(|w| {
                json!({"id": w.worker_id, "name": w.name, "cores": w.cores, "gpu_arch": w.gpu_arch, "leases": w.leases, "last_seen_ms": w.last_seen_unix_ms})
            })
            .collect();
        println!("{}", json!({"campaigns": campaigns, "workers": workers}));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} campaigns, {} workers alive ({} cores)",
        status.campaigns.len(),
        status.workers.len(),
        status.workers.iter().map(|w| w.cores).sum::<u32>()
    );
    for c in &status.campaigns {
        let s = c.stats.unwrap_or_default();
        println!(
            "campaign {} `{}`: {}, {} programs ({:.0}/s), jobs {} queued / {} leased / {} done ({} failed), discrepancies {} new / {} total{}{}",
            c.id,
            c.name,
            state_name(c.state),
            s.programs,
            c.programs_per_s,
            c.jobs_queued,
            c.jobs_leased,
            c.jobs_done,
            c.jobs_failed,
            c.discrepancies_new,
            c.discrepancies_total,
            gpu_text(&s).map_or(String::new(), |g| format!("; {g}")),
            if c.error.is_empty() { String::new() } else { format!(" (error: {})", c.error) }
        );
    }
    for c in &status.campaigns {
        for f in &c.failed_jobs {
            println!("campaign {} failed job {}: {}", c.id, f.job_id, f.reason.replace('\n', " "));
        }
    }
    for w in &status.workers {
        let gpu = if w.gpu_arch.is_empty() { String::new() } else { format!(", a GPU ({})", w.gpu_arch) };
        println!("worker {} `{}`: {} cores{gpu}, {} leases", w.worker_id, w.name, w.cores, w.leases);
    }
    Ok(ExitCode::SUCCESS)
}

/// A campaign's GPU totals, as `--json` shows them.
pub(super) fn gpu_json(s: &v1::Stats) -> serde_json::Value {
    json!({"ran": s.gpu_ran, "instances": s.gpu_instances, "unsupported": s.gpu_unsupported, "failed": s.gpu_failed, "given_up": s.gpu_given_up})
}

/// A campaign's GPU totals in words, if its workers' GPU oracle did anything.
pub(super) fn gpu_text(s: &v1::Stats) -> Option<String> {
    (s.gpu_ran + s.gpu_unsupported + s.gpu_failed + s.gpu_given_up > 0).then(|| {
        format!(
            "GPU: {} programs ran ({} instances), {} could not run there, {} failed, {} not run (GPU given up)",
            s.gpu_ran, s.gpu_instances, s.gpu_unsupported, s.gpu_failed, s.gpu_given_up
        )
    })
}
