//! Inline SVG charts for the HTML report: horizontal bars, a histogram, a heatmap and a
//! line. Each returns one `<svg>` element as a string; every piece of text in it goes
//! through [`esc`], since labels and names come from imported data. Colours come from
//! the page's stylesheet by class, except the heatmap's cell fills.

use super::html::fixed;
use std::fmt::Write;

/// Escapes text for HTML and SVG content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One bar: its label, its length and the text written after it.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub note: String,
    /// A stylesheet class for the bar's colour.
    pub class: &'static str,
}

/// Horizontal bars, scaled to the largest value (or to `max` when given).
pub fn bars(title: &str, bars: &[Bar], max: Option<f64>) -> String {
    let (label_w, bar_w, row_h) = (150.0, 200.0, 26.0);
    let width = label_w + bar_w + 90.0;
    let height = row_h * bars.len() as f64 + 8.0;
    let top = max
        .unwrap_or_else(|| bars.iter().map(|b| b.value).fold(0.0, f64::max))
        .max(f64::MIN_POSITIVE);
    let mut s = open(title, width, height);
    for (i, b) in bars.iter().enumerate() {
        let y = 4.0 + row_h * i as f64;
        let w = (b.value / top * bar_w).max(0.0);
        let _ = write!(
            s,
            r#"<text class="label" x="{x}" y="{ty}" text-anchor="end">{label}</text><rect class="{class}" x="{label_w}" y="{by}" width="{w:.1}" height="{bh}" rx="2"/><text class="note" x="{nx:.1}" y="{ty}">{note}</text>"#,
            x = label_w - 8.0,
            ty = y + 17.0,
            label = esc(&shorten(&b.label, 26)),
            class = b.class,
            by = y + 3.0,
            bh = row_h - 8.0,
            nx = label_w + w + 6.0,
            note = esc(&b.note),
        );
    }
    s.push_str("</svg>");
    s
}

/// Columns over token counts 1..=`max_tokens` (longer ones in the last column, marked +),
/// scaled to `top` so two histograms drawn with the same `top` compare by eye.
pub fn histogram(title: &str, counts: &[(usize, u64)], max_tokens: usize, top: u64) -> String {
    let (left, bottom, plot_w, plot_h) = (40.0, 26.0, 420.0, 140.0);
    let width = left + plot_w + 10.0;
    let height = plot_h + bottom + 10.0;
    let mut bins = vec![0u64; max_tokens.max(1)];
    for &(tokens, count) in counts {
        let i = tokens.clamp(1, bins.len()) - 1;
        bins[i] += count;
    }
    let top = top.max(1) as f64;
    let col = plot_w / bins.len() as f64;
    let mut s = open(title, width, height);
    let base = 10.0 + plot_h;
    let _ = write!(
        s,
        r#"<line class="axis" x1="{left}" y1="{base}" x2="{x2}" y2="{base}"/><text class="tick" x="{tx}" y="14" text-anchor="end">{top}</text><text class="tick" x="{tx}" y="{base}" text-anchor="end">0</text>"#,
        x2 = left + plot_w,
        tx = left - 4.0,
        top = top as u64,
    );
    for (i, &count) in bins.iter().enumerate() {
        let h = count as f64 / top * plot_h;
        let x = left + col * i as f64;
        let tokens = i + 1;
        if count > 0 {
            let _ = write!(
                s,
                r#"<rect class="col" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}"><title>{tokens}{plus} tokens: {count}</title></rect>"#,
                y = base - h,
                w = (col - 1.5).max(1.0),
                plus = if tokens == bins.len() { "+" } else { "" },
            );
        }
        if tokens == 1 || tokens % 5 == 0 || tokens == bins.len() {
            let _ = write!(
                s,
                r#"<text class="tick" x="{cx:.1}" y="{ty}" text-anchor="middle">{tokens}{plus}</text>"#,
                cx = x + col / 2.0,
                ty = base + 16.0,
                plus = if tokens == bins.len() { "+" } else { "" },
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A square matrix of values in [-1, 1] (null: not defined), names on both axes.
pub fn heatmap(
    title: &str,
    names: &[String],
    value: impl Fn(usize, usize) -> Option<f64>,
) -> String {
    let n = names.len();
    let cell = if n > 12 { 28.0 } else { 48.0 };
    let label_w = 90.0;
    let width = label_w + cell * n as f64 + 10.0;
    let height = label_w + cell * n as f64 + 10.0;
    let mut s = open(title, width, height);
    for (i, name) in names.iter().enumerate() {
        let c = label_w + cell * i as f64 + cell / 2.0;
        let _ = write!(
            s,
            r#"<text class="label" x="{x}" y="{c:.1}" text-anchor="end" dominant-baseline="middle">{name}</text><text class="label" transform="translate({c:.1},{y}) rotate(-45)">{name}</text>"#,
            x = label_w - 8.0,
            y = label_w - 8.0,
            name = esc(&shorten(name, 14)),
        );
    }
    for i in 0..n {
        for j in 0..n {
            let x = label_w + cell * j as f64;
            let y = label_w + cell * i as f64;
            let v = value(i, j);
            let (fill, text) = match v {
                Some(v) => (kappa_colour(v), fixed(v, 2)),
                None => ("#eef0f3".to_string(), "–".to_string()),
            };
            let ink = if v.is_some_and(|v| v > 0.55) {
                "#ffffff"
            } else {
                "#1d2433"
            };
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{w:.1}" fill="{fill}"><title>{a} – {b}: {text}</title></rect>"#,
                w = cell - 2.0,
                a = esc(&names[i]),
                b = esc(&names[j]),
            );
            if cell >= 40.0 {
                let _ = write!(
                    s,
                    r#"<text x="{cx:.1}" y="{cy:.1}" text-anchor="middle" dominant-baseline="middle" class="cell" style="fill:{ink}">{text}</text>"#,
                    cx = x + cell / 2.0 - 1.0,
                    cy = y + cell / 2.0 - 1.0,
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

/// From pale to deep blue as kappa goes from 0 to 1; shades of red below 0.
fn kappa_colour(v: f64) -> String {
    let v = v.clamp(-1.0, 1.0);
    let mix = |from: [f64; 3], to: [f64; 3], t: f64| {
        let c: Vec<u8> = (0..3)
            .map(|k| (from[k] + (to[k] - from[k]) * t).round() as u8)
            .collect();
        format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
    };
    let pale = [238.0, 242.0, 248.0];
    if v >= 0.0 {
        mix(pale, [31.0, 78.0, 160.0], v)
    } else {
        mix(pale, [196.0, 64.0, 52.0], -v)
    }
}

/// A line over points (x ascending) with y in [`lo`, `hi`]; x labels at both ends.
pub fn line(
    title: &str,
    points: &[(f64, f64)],
    lo: f64,
    hi: f64,
    x_labels: (&str, &str),
) -> String {
    let (left, bottom, plot_w, plot_h) = (44.0, 24.0, 520.0, 150.0);
    let width = left + plot_w + 16.0;
    let height = plot_h + bottom + 14.0;
    let mut s = open(title, width, height);
    let base = 10.0 + plot_h;
    let (x0, x1) = match (points.first(), points.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => (a.0, b.0),
        (Some(a), _) => (a.0 - 1.0, a.0 + 1.0),
        _ => (0.0, 1.0),
    };
    let span = if hi > lo { hi - lo } else { 1.0 };
    let px = |x: f64| left + (x - x0) / (x1 - x0) * plot_w;
    let py = |y: f64| base - (y.clamp(lo, hi) - lo) / span * plot_h;
    let mut ticks = vec![lo, 0.0, 0.5, hi];
    ticks.retain(|&t| t >= lo && t <= hi);
    ticks.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    for tick in ticks {
        let _ = write!(
            s,
            r#"<line class="grid" x1="{left}" y1="{y:.1}" x2="{x2}" y2="{y:.1}"/><text class="tick" x="{tx}" y="{ty:.1}" text-anchor="end">{label}</text>"#,
            y = py(tick),
            label = fixed(tick, 1),
            x2 = left + plot_w,
            tx = left - 6.0,
            ty = py(tick) + 4.0,
        );
    }
    let path: Vec<String> = points
        .iter()
        .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
        .collect();
    let _ = write!(s, r#"<polyline class="line" points="{}"/>"#, path.join(" "));
    for &(x, y) in points {
        let _ = write!(
            s,
            r#"<circle class="dot" cx="{:.1}" cy="{:.1}" r="3"><title>{}</title></circle>"#,
            px(x),
            py(y),
            fixed(y, 3)
        );
    }
    let _ = write!(
        s,
        r#"<text class="tick" x="{left}" y="{ty}">{a}</text><text class="tick" x="{x2}" y="{ty}" text-anchor="end">{b}</text>"#,
        ty = base + 18.0,
        x2 = left + plot_w,
        a = esc(x_labels.0),
        b = esc(x_labels.1),
    );
    s.push_str("</svg>");
    s
}

fn open(title: &str, width: f64, height: f64) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = esc(title)
    )
}

/// At most `n` characters, with an ellipsis when cut.
fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(n - 1).collect();
        out.push('…');
        out
    }
}
