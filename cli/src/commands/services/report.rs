//! The Markdown report at the end of `tcfuzz campaign`, read through the Admin service (so it is
//! the same embedded and remote): throughput, discrepancies, minimized programs.

use std::fmt::Write;

use anyhow::Context;
use tcfuzz_proto::connect::Admin;
use tcfuzz_proto::v1;

use super::status::state_name;

/// Discrepancies shown in full (with their program) at most.
const SHOWN: usize = 20;

fn kind_name(kind: i32) -> String {
    v1::DiscrepancyKind::try_from(kind)
        .map(|k| k.as_str_name().trim_start_matches("DISCREPANCY_KIND_").to_lowercase().replace('_', "-"))
        .unwrap_or_else(|_| format!("kind {kind}"))
}

pub async fn markdown(admin: &mut Admin, info: &v1::CampaignInfo, request: &v1::CreateCampaignRequest) -> anyhow::Result<String> {
    let mut found = Vec::new();
    let mut page_token = String::new();
    loop {
        let r = v1::ListDiscrepanciesRequest { kind: 0, campaign: info.id, limit: 1000, page_token };
        let page = admin
            .list_discrepancies(r)
            .await
            .map_err(|s| anyhow::anyhow!("{}", s.message()))
            .context("listing discrepancies")?
            .into_inner();
        found.extend(page.discrepancies);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    let s = info.stats.unwrap_or_default();
    let seconds = info.elapsed_ms as f64 / 1000.0;
    let per_s = |n: u64| if seconds > 0.0 { n as f64 / seconds } else { 0.0 };
    let mut md = String::new();
    let _ = writeln!(md, "# tcfuzz campaign {} `{}`\n", info.id, info.name);
    let _ = writeln!(
        md,
        "- state: {}{}",
        state_name(info.state),
        if info.error.is_empty() { String::new() } else { format!(" ({})", info.error) }
    );
    let _ = writeln!(
        md,
        "- seed {}, {} programs per job, generator config: {}",
        info.seed,
        request.job_programs,
        if request.config.trim().is_empty() { "default" } else { "given" }
    );
    let _ = writeln!(
        md,
        "- {} programs in {seconds:.1} s: {:.0} programs/s, {:.0} executions/s ({} executions)",
        s.programs,
        per_s(s.programs),
        per_s(s.executions),
        s.executions
    );
    let _ = writeln!(md, "- {} programs over the per-program budget of {} ms", s.too_large, request.program_budget_ms);
    if let Some(g) = super::status::gpu_text(&s) {
        let _ = writeln!(md, "- {g}");
    }
    let _ = writeln!(
        md,
        "- discrepancies: {} new signatures, {} findings; coverage features first reached: {}",
        info.discrepancies_new, info.discrepancies_total, info.coverage_features
    );
    let _ = writeln!(md, "- minimization jobs: {}, minimized programs: {}", info.minimizations, info.minimized);
    if info.jobs_failed > 0 {
        // Jobs whose results the coordinator refused: their programs are not counted above.
        let _ = writeln!(md, "- failed jobs (results refused, programs not recorded): {}", info.jobs_failed);
        for f in &info.failed_jobs {
            let _ = writeln!(md, "  - job {}: {}", f.job_id, f.reason.replace('\n', " "));
        }
    }
    let _ = writeln!(md);
    if found.is_empty() {
        let _ = writeln!(md, "No discrepancy found.");
        return Ok(md);
    }
    let _ = writeln!(md, "## Discrepancies\n\n| kind | signature | count | minimized |\n|---|---|---|---|");
    for d in &found {
        let _ = writeln!(
            md,
            "| {} | `{}` | {} | {} |",
            kind_name(d.kind),
            d.signature.replace('|', "\\|"),
            d.count,
            if d.is_minimized { "yes" } else { "no" }
        );
    }
    for d in found.iter().take(SHOWN) {
        let full = admin
            .get_discrepancy(v1::GetDiscrepancyRequest { kind: d.kind, signature: d.signature.clone() })
            .await
            .map_err(|s| anyhow::anyhow!("{}", s.message()))
            .context("reading a discrepancy")?
            .into_inner();
        let _ = writeln!(md, "\n### {} `{}`\n", kind_name(full.kind), full.signature);
        for side in &full.sides {
            let _ = writeln!(md, "- {}: {}", side.name, side.verdict.lines().next().unwrap_or(""));
        }
        let (label, program) =
            if full.is_minimized { ("Minimized program", &full.minimized) } else { ("Program (not minimized)", &full.program) };
        let _ = writeln!(md, "\n{label}:\n\n```\n{}\n```", program.trim_end());
    }
    if found.len() > SHOWN {
        let _ = writeln!(md, "\n{} more: `tcfuzz corpus ls --corpus DIR`.", found.len() - SHOWN);
    }
    Ok(md)
}
