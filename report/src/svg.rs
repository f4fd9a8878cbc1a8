//! Line charts as self-contained SVG: no fonts to load, no script, deterministic output. Every data
//! point is a `<circle class="point">` with a `<title>` (its values, shown on hover without
//! JavaScript) and `data-x` / `data-y` attributes, so tests and tools can read the data back.

use std::fmt::Write as _;

use tcfuzz_corpus::{Discrepancy, Kind, StatsSample};

use crate::model::Plots;

const W: f64 = 640.0;
const H: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 28.0;
const BOTTOM: f64 = 40.0;
const COLORS: [&str; 8] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

/// One line of a chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// How an axis shows its values.
#[derive(Clone, Copy)]
pub enum Axis {
    Number,
    /// Milliseconds since the epoch, shown as time since the first point in the unit that suits
    /// the span ([`time_unit`]).
    Time,
}

/// The unit a time axis spanning `span_ms` reads in: milliseconds per unit and its suffix, so
/// that a minute-long campaign does not read `0.0h` at every tick.
fn time_unit(span_ms: f64) -> (f64, &'static str) {
    const UNITS: [(f64, &str); 4] = [(1e3, "s"), (6e4, "m"), (3.6e6, "h"), (8.64e7, "d")];
    UNITS.iter().copied().take_while(|(ms, _)| span_ms >= 2.0 * ms).last().unwrap_or(UNITS[0])
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Tick values for `lo..=hi`: about five, at 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| span / s <= 6.0).unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

fn number(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v.abs() >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// A line chart of `series`; `x_axis` says how x values read.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, x_axis: Axis, series: &[Series]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    );
    let pts: Vec<(f64, f64)> = series.iter().flat_map(|s| s.points.iter().copied()).collect();
    if pts.is_empty() {
        let _ = write!(s, r#"<text x="{}" y="{}" text-anchor="middle" class="empty">no data yet</text></svg>"#, W / 2.0, H / 2.0);
        return s;
    }
    let (mut x0, mut x1) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts.iter().fold(0f64, |a, p| a.max(p.1));
    let y0 = 0.0f64.min(pts.iter().fold(f64::MAX, |a, p| a.min(p.1)));
    if x1 <= x0 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let y1 = if y1 <= y0 { y0 + 1.0 } else { y1 * 1.05 };
    let origin = x0;
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    let py = |y: f64| H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM);
    let (unit_ms, unit) = time_unit(x1 - x0);
    let show_x = |x: f64| match x_axis {
        Axis::Number => number(x),
        Axis::Time => format!("{}{unit}", number((x - origin) / unit_ms)),
    };
    // Axes and ticks.
    let _ = write!(s, r##"<g class="axes" stroke="#888" fill="none"><path d="M{LEFT} {TOP}V{}H{}"/></g>"##, H - BOTTOM, W - RIGHT);
    let _ = write!(s, r##"<g class="ticks" font-size="11" fill="#555">"##);
    for t in ticks(y0, y1) {
        let _ = write!(s, r#"<text x="{}" y="{:.1}" text-anchor="end">{}</text>"#, LEFT - 6.0, py(t) + 4.0, number(t));
        let _ = write!(s, r##"<path d="M{LEFT} {:.1}H{}" stroke="#eee"/>"##, py(t), W - RIGHT);
    }
    let xt = match x_axis {
        Axis::Number => ticks(x0, x1),
        Axis::Time => ticks(0.0, (x1 - x0) / unit_ms).into_iter().map(|u| x0 + u * unit_ms).collect(),
    };
    for t in xt {
        let _ = write!(s, r#"<text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#, px(t), H - BOTTOM + 16.0, show_x(t));
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text><text x="12" y="{}" transform="rotate(-90 12 {})" text-anchor="middle">{}</text></g>"#,
        (LEFT + W - RIGHT) / 2.0,
        H - 6.0,
        escape(x_label),
        (TOP + H - BOTTOM) / 2.0,
        (TOP + H - BOTTOM) / 2.0,
        escape(y_label)
    );
    // Lines, points and the legend.
    for (i, se) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let path: Vec<String> = se.points.iter().map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = write!(
            s,
            r#"<g class="series" data-name="{}"><polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            escape(&se.name),
            path.join(" ")
        );
        for &(x, y) in &se.points {
            let _ = write!(
                s,
                r#"<circle class="point" cx="{:.1}" cy="{:.1}" r="3" fill="{c}" data-x="{x}" data-y="{y}"><title>{}: {} at {}</title></circle>"#,
                px(x),
                py(y),
                escape(&se.name),
                number(y),
                show_x(x)
            );
        }
        let _ = write!(
            s,
            r#"<rect x="{}" y="{}" width="10" height="10" fill="{c}"/><text x="{}" y="{}" font-size="11">{}</text></g>"#,
            LEFT + 8.0 + 150.0 * (i % 4) as f64,
            6.0 + 12.0 * (i / 4) as f64,
            LEFT + 22.0 + 150.0 * (i % 4) as f64,
            15.0 + 12.0 * (i / 4) as f64,
            escape(&se.name)
        );
    }
    s.push_str("</svg>");
    s
}

/// The report's four plots.
pub fn plots(discrepancies: &[Discrepancy], campaigns: &[(String, Vec<StatsSample>)]) -> Plots {
    // Discrepancies over time: the cumulative count per kind at each first sighting.
    let mut by_kind = Vec::new();
    for kind in Kind::ALL {
        let mut times: Vec<u64> = discrepancies.iter().filter(|d| d.kind == kind).map(|d| d.first_seen_ms).collect();
        if times.is_empty() {
            continue;
        }
        times.sort_unstable();
        let points = times.iter().enumerate().map(|(i, t)| (*t as f64, (i + 1) as f64)).collect();
        by_kind.push(Series { name: kind.name().into(), points });
    }
    let per_interval = |f: &dyn Fn(&StatsSample, &StatsSample) -> Option<f64>| -> Vec<Series> {
        campaigns
            .iter()
            .map(|(name, s)| Series {
                name: name.clone(),
                points: s.windows(2).filter_map(|w| f(&w[0], &w[1]).map(|y| (w[1].at_ms as f64, y))).collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let throughput = per_interval(&|a, b| {
        let dt = b.at_ms.checked_sub(a.at_ms).filter(|d| *d > 0)? as f64 / 1000.0;
        Some(b.programs.saturating_sub(a.programs) as f64 / dt)
    });
    let executions = per_interval(&|a, b| {
        let programs = b.programs.checked_sub(a.programs).filter(|p| *p > 0)?;
        Some(b.executions.saturating_sub(a.executions) as f64 / programs as f64)
    });
    let coverage: Vec<Series> = campaigns
        .iter()
        .map(|(name, s)| Series { name: name.clone(), points: s.iter().map(|x| (x.programs as f64, x.coverage_features as f64)).collect() })
        .filter(|s| !s.points.is_empty())
        .collect();
    Plots {
        discrepancies_over_time: line_chart(
            "Discrepancies over time, by kind",
            "time since the first",
            "discrepancies",
            Axis::Time,
            &by_kind,
        ),
        throughput_over_time: line_chart("Throughput", "time since the first sample", "programs / s", Axis::Time, &throughput),
        coverage_growth: line_chart("Coverage growth", "programs checked", "coverage features", Axis::Number, &coverage),
        executions_per_program: line_chart(
            "Executions per program (mean over each sampling interval)",
            "time since the first sample",
            "executions / program",
            Axis::Time,
            &executions,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_axes_read_in_a_unit_that_suits_the_span() {
        assert_eq!(time_unit(30_000.0), (1e3, "s"));
        assert_eq!(time_unit(10.0 * 60_000.0), (6e4, "m"));
        assert_eq!(time_unit(5.0 * 3.6e6), (3.6e6, "h"));
        assert_eq!(time_unit(9.0 * 8.64e7), (8.64e7, "d"));
        let chart = line_chart("t", "x", "y", Axis::Time, &[Series { name: "a".into(), points: vec![(0.0, 1.0), (90_000.0, 2.0)] }]);
        assert!(chart.contains(">0s<") && chart.contains(">80s<"), "{chart}");
    }

    #[test]
    fn ticks_are_round_numbers_covering_the_range() {
        assert_eq!(ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks(0.0, 7300.0), [0.0, 2000.0, 4000.0, 6000.0]);
    }

    #[test]
    fn every_point_is_a_circle_with_its_values_and_names_are_escaped() {
        let svg = line_chart("t", "x", "y", Axis::Number, &[Series { name: "<a&b>".into(), points: vec![(1.0, 2.0), (3.0, 4.0)] }]);
        assert_eq!(svg.matches(r#"class="point""#).count(), 2);
        assert!(svg.contains(r#"data-x="3" data-y="4""#), "{svg}");
        assert!(svg.contains("&lt;a&amp;b&gt;") && !svg.contains("<a&b>"), "{svg}");
        assert!(line_chart("t", "x", "y", Axis::Number, &[]).contains("no data yet"));
    }
}
