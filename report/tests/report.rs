//! Reports of a real on-disk corpus: what they say, that the plots carry the corpus's data, that
//! nothing from a program can break out of the HTML, and the diff between two reports. The
//! browser test renders the HTML in Debian's Chromium where it is installed.

use std::path::Path;

use tcfuzz_corpus::{Campaign, CampaignState, Corpus, Finding, GpuTotals, Kind, Side, StatsSample};
use tcfuzz_report::{Format, Options, build, record, render, write};

const T0: u64 = 1_795_400_000_000;
const HOUR: u64 = 3_600_000;

const RACY: &str = "PTX racy\n\"a doc string with </pre><script>alert(1)</script>\"\n{ x = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, x ;\nexists (P1:r0 == 1)\n";
const MP: &str = "PTX mp\n{ x = 0; f = 0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.relaxed.gpu r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";

fn finding(kind: Kind, signature: &str, campaign: u64, seen_ms: u64, program: &str) -> Finding {
    Finding {
        kind,
        signature: signature.into(),
        campaign,
        seen_ms,
        program: program.into(),
        sides: [
            Side { name: "tileir".into(), verdict: "Never <b>".into() },
            Side { name: "ptx (tileiras)".into(), verdict: "Sometimes".into() },
        ],
    }
}

/// A corpus with one campaign of five samples, three discrepancies (one seen twice) and coverage.
fn corpus(dir: &Path) -> Corpus {
    let c = Corpus::open(dir).expect("corpus opens");
    let mut u = c.update().expect("update");
    let id = u
        .put_campaign(&Campaign {
            id: 0,
            name: "nightly".into(),
            seed: 7,
            config: "{}".into(),
            created_ms: T0,
            state: CampaignState::Finished,
        })
        .expect("campaign");
    for i in 0..5u64 {
        let s = StatsSample {
            at_ms: T0 + i * HOUR,
            programs: 1000 * i,
            executions: 25_000 * i,
            too_large: i,
            discrepancies_new: 0,
            discrepancies_total: i.min(3),
            coverage_features: 10 * i + i * i,
            gpu: GpuTotals { ran: 10 * i, instances: 1000 * i, unsupported: i, failed: 0, given_up: 0 },
        };
        u.add_stats(id, &s).expect("stats");
    }
    u.add_coverage(&["ld.relaxed.gpu".into(), "st.release.gpu".into(), "race:data".into()], T0).expect("coverage");
    u.commit().expect("commit");
    for f in [
        finding(Kind::CompilerLowering, "extra-state:ld.acquire", id, T0 + HOUR, MP),
        finding(Kind::CompilerLowering, "extra-state:ld.acquire", id, T0 + 3 * HOUR, MP),
        finding(Kind::PatternBroken, "mbarrier-pc:data-race", id, T0 + 2 * HOUR, RACY),
        finding(Kind::ExplorerVsOracle, "oracle-extra-state:ld,st", id, T0 + 4 * HOUR, RACY),
    ] {
        c.record_discrepancy(&f).expect("recorded");
    }
    c
}

#[test]
fn the_report_lists_what_is_new_with_totals_plots_and_reproduction_commands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = corpus(&dir.path().join("corpus"));
    let r = build(&c, &Options { now_ms: T0 + 5 * HOUR, since_ms: None }).expect("builds");
    assert_eq!(r.totals.campaigns, 1);
    assert_eq!(r.totals.programs, 4000);
    assert_eq!(r.totals.executions, 100_000);
    assert_eq!(r.totals.discrepancies, 3);
    assert_eq!(r.totals.coverage_features, 3);
    assert!((r.totals.campaign_hours - 4.0).abs() < 1e-9);
    assert_eq!(r.totals.gpu, GpuTotals { ran: 40, instances: 4000, unsupported: 4, failed: 0, given_up: 0 });
    assert_eq!(r.diff.new, 3);
    let kinds: Vec<(&str, u64)> = r.kinds.iter().map(|k| (k.kind.as_str(), k.total)).collect();
    assert_eq!(kinds, [("compiler-lowering", 1), ("explorer-vs-oracle", 1), ("pattern-broken", 1)]);
    let cl = r.discrepancies.iter().find(|d| d.kind == "compiler-lowering").expect("listed");
    assert_eq!(cl.count, 2);
    assert_eq!(cl.reproduce, format!("tcfuzz check --compiler {}", cl.file));
    assert_eq!((cl.original_size.threads, cl.original_size.instructions), (2, 4));

    let html = render(&r, Format::Html).expect("html");
    for section in [r#"id="new""#, r#"id="totals""#, r#"id="plots""#, r#"id="discrepancies""#, r#"id="campaigns""#] {
        assert!(html.contains(section), "{section}");
    }
    assert!(
        html.contains("tileiras&#x27; lowering allows an outcome or race the Tile IR program forbids")
            || html.contains("tileiras' lowering")
    );
    // The plots carry the corpus's numbers: coverage 0, 11, 24, 39, 56 at 0..4000 programs.
    assert!(html.contains(r#"data-x="4000" data-y="56""#), "coverage point missing");
    // Throughput: 1000 programs per hour.
    assert!(html.contains(&format!(r#"data-y="{}""#, 1000.0 / 3600.0)), "throughput point missing");
    assert_eq!(html.matches(r#"class="point""#).count(), 3 + 4 + 5 + 4);
    // Nothing from a program or verdict becomes markup; no script, no fetch.
    assert!(!html.contains("<script") && !html.contains("Never <b>"), "unescaped program or verdict text");
    assert!(html.contains("Never &lt;b&gt;"));
    assert!(html.contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    for bad in ["http://", "https://", "src=", "<link", "@import"] {
        let hits =
            html.matches(bad).count() - if bad == "http://" { html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count() } else { 0 };
        assert_eq!(hits, 0, "{bad} in the HTML");
    }

    let md = render(&r, Format::Markdown).expect("md");
    assert!(md.contains("- **1 new**, 1 in all: **compiler-lowering**"), "{md}");
    assert!(md.contains("Reproduce: `tcfuzz check --compiler programs/compiler-lowering-"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&render(&r, Format::Json).expect("json")).expect("valid JSON");
    assert_eq!(json["schema"], 1);
    assert_eq!(json["totals"]["programs"], 4000);
    assert_eq!(json["totals"]["gpu"]["ran"], 40);
    assert!(md.contains("On GPUs: 40 programs ran (4000 test instances), 4 could not run there, 0 failed"), "{md}");
    assert!(html.contains("<dt>programs run on GPUs</dt><dd>40 (4,000 instances;"), "GPU totals missing from the HTML");
    assert_eq!(json["discrepancies"].as_array().map(Vec::len), Some(3));
}

#[test]
fn the_second_report_diffs_against_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = corpus(&dir.path().join("corpus"));
    let first = build(&c, &Options { now_ms: T0 + 5 * HOUR, since_ms: None }).expect("builds");
    let mut u = c.update().expect("update");
    u.put_report(&record(&first));
    // The first report listed one that is no longer in the corpus (as after a reset).
    u.put_report(&tcfuzz_corpus::ReportRecord {
        at_ms: T0 + 5 * HOUR,
        listed: [record(&first).listed, vec!["sync-redundant/old".into()]].concat(),
    });
    u.commit().expect("commit");
    c.record_discrepancy(&finding(Kind::GpuForbiddenOutcome, "MP:r0=1,r1=0", 1, T0 + 6 * HOUR, MP)).expect("recorded");
    let second = build(&c, &Options { now_ms: T0 + 7 * HOUR, since_ms: None }).expect("builds");
    assert_eq!(second.previous_ms, Some(T0 + 5 * HOUR));
    assert_eq!((second.diff.new, second.diff.gone, second.diff.still_open), (1, 1, 3));
    assert_eq!(second.diff.gone_list, ["sync-redundant/old"]);
    // New means first seen after the previous report; it is listed first.
    assert!(second.discrepancies[0].new && second.discrepancies[0].kind == "gpu-forbidden-outcome");
    assert_eq!(second.discrepancies.iter().filter(|d| d.new).count(), 1);
    assert_eq!(c.reports().expect("reports").len(), 1, "one report at T0 + 5h (the second put replaced the first)");
}

#[test]
fn writing_puts_every_program_beside_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = corpus(&dir.path().join("corpus"));
    let r = build(&c, &Options { now_ms: T0 + 5 * HOUR, since_ms: None }).expect("builds");
    let out = dir.path().join("out");
    let files = write(&r, &out, &Format::ALL).expect("written");
    assert_eq!(files.len(), 3 + 3);
    for e in &r.discrepancies {
        let text = std::fs::read_to_string(out.join(&e.file)).expect("program file");
        assert!(tcfuzz_litmus::parse(&text).is_ok(), "{} does not parse", e.file);
    }
}

fn chromium() -> Option<&'static str> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().find(|p| Path::new(p).exists());
    if found.is_none() {
        println!("skipped: Debian's chromium is not installed (apt-get install chromium; .ci/run does)");
    }
    found
}

/// What Chromium made of a page: the DOM, its console messages, and the URLs it requested (from
/// the net log), Chromium's own background traffic to Google's hosts left out.
struct Rendered {
    dom: String,
    console: Vec<String>,
    requests: Vec<String>,
}

fn render_in_chromium(chromium: &str, page: &Path, scratch: &Path) -> Rendered {
    let netlog = scratch.join("net.json");
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", scratch.join("profile").display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    let console = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .map(str::to_string)
        .collect();
    let log = std::fs::read_to_string(&netlog).unwrap_or_default();
    let mut requests: Vec<String> = log
        .split("\"url\":")
        .skip(1)
        .filter_map(|rest| rest.trim_start().strip_prefix('"').and_then(|r| r.split('"').next()).map(str::to_string))
        .filter(|u| {
            let host = u.split("://").nth(1).and_then(|r| r.split(['/', ':', '?']).next()).unwrap_or("");
            !["google.com", "googleapis.com", "gstatic.com"].iter().any(|g| host == *g || host.ends_with(&format!(".{g}")))
        })
        .collect();
    requests.sort();
    requests.dedup();
    Rendered { dom: String::from_utf8_lossy(&output.stdout).into_owned(), console, requests }
}

/// Debian's Chromium renders the report: every section and plot is in the DOM, and the page logs
/// no console message and requests nothing. Skipped, with the reason printed, where Chromium is
/// not installed (`.ci/run` installs it).
#[test]
fn chromium_renders_the_report_without_errors_or_requests() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let c = corpus(&dir.path().join("corpus"));
    let r = build(&c, &Options { now_ms: T0 + 5 * HOUR, since_ms: None }).expect("builds");
    let out = dir.path().join("out");
    write(&r, &out, &[Format::Html]).expect("written");
    let page = render_in_chromium(chromium, &out.join("report.html"), dir.path());
    for section in [r#"id="new""#, r#"id="totals""#, r#"id="plots""#, r#"id="discrepancies""#, r#"id="campaigns""#] {
        assert!(page.dom.contains(section), "{section} missing from the rendered DOM");
    }
    assert_eq!(page.dom.matches("<svg").count(), 4, "four plots");
    assert_eq!(page.dom.matches(r#"class="point""#).count(), 16, "every data point rendered");
    assert!(page.dom.contains(r#"data-x="4000" data-y="56""#));
    assert_eq!(page.console, Vec::<String>::new());
    assert_eq!(page.requests, Vec::<String>::new());
}

/// The detector itself: a page with a script error and an image from the network is caught.
#[test]
fn chromium_check_sees_console_errors_and_requests() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("bad.html");
    std::fs::write(&page, r#"<html><body><img src="http://example.invalid/x.png"><script>console.error("boom")</script></body></html>"#)
        .expect("written");
    let r = render_in_chromium(chromium, &page, dir.path());
    assert!(r.console.iter().any(|l| l.contains("boom")), "{:?}", r.console);
    assert_eq!(r.requests, ["http://example.invalid/x.png"]);
}
