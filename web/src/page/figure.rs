//! Figures for slides: the annotated optimized code, the dependence graph and the three
//! images with the verdict as self-contained SVG (every colour and font inline, generic
//! font families only, pictures embedded as data URIs), which the page also rasterizes to
//! PNG. Plain text in, text out: tested natively.

use crate::page::highlight::{self, Kind};
use crate::worker::dag::{Class, Dag, NODE_H, NODE_W};
use hoist_asm::Dialect;
use hoist_opt::annotate::{Annotated, Mark};
use std::fmt::Write;

const MONO: &str = "ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace";
const SANS: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
const CODE_SIZE: f32 = 16.0;
const CHAR_W: f32 = CODE_SIZE * 0.62;
const LINE_H: f32 = CODE_SIZE * 1.5;

/// Text escaped for XML.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => o.push(c),
        }
    }
    o
}

fn open(w: f32, h: f32, bg: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\
         <rect width=\"{w}\" height=\"{h}\" fill=\"{bg}\"/>"
    )
}

fn token_colour(k: Kind) -> &'static str {
    match k {
        Kind::Comment => "#7f8aa3",
        Kind::Header => "#c792ea",
        Kind::Keyword => "#c792ea",
        Kind::Opcode => "#82aaff",
        Kind::Register => "#f0b27a",
        Kind::Number => "#f78c6c",
        Kind::Swizzle => "#89ddff",
        Kind::Ident => "#dfe6f1",
        Kind::Punct => "#9aa4b2",
    }
}

/// The colour of byte `at` of the text, from its token.
fn colour_at(toks: &[highlight::Token], at: usize) -> &'static str {
    toks.iter()
        .find(|t| t.range.contains(&at))
        .map_or("#dfe6f1", |t| token_colour(t.kind))
}

/// One line of code as `<tspan>`s: runs of one colour, changed operands underlined.
fn code_line(
    text: &str,
    base: usize,
    toks: &[highlight::Token],
    changed: &[std::ops::Range<usize>],
) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let mut style: Option<(&str, bool)> = None;
    let flush = |out: &mut String, run: &mut String, style: Option<(&str, bool)>| {
        if let Some((c, u)) = style.filter(|_| !run.is_empty()) {
            let deco = if u {
                " text-decoration=\"underline\" font-weight=\"700\""
            } else {
                ""
            };
            let _ = write!(out, "<tspan fill=\"{c}\"{deco}>{}</tspan>", esc(run));
        }
        run.clear();
    };
    for (i, ch) in text.char_indices() {
        let s = (
            colour_at(toks, base + i),
            changed.iter().any(|r| r.contains(&i)),
        );
        if style != Some(s) {
            flush(&mut out, &mut run, style);
            style = Some(s);
        }
        run.push(ch);
    }
    flush(&mut out, &mut run, style);
    out
}

/// The annotated program as the paper's Figure 5: `→` moved, `+` added, changed operands
/// underlined, with a title line.
/// The smallest height a code figure of `lines` lines is shown at: its type no smaller
/// than 12 px.
pub fn code_min_height(lines: usize) -> f32 {
    (70.0 + lines as f32 * LINE_H) * 12.0 / CODE_SIZE
}

pub fn code_svg(title: &str, a: &Annotated, dialect: Dialect) -> String {
    let text = a.text.trim_end_matches('\n');
    let toks = highlight::tokens(text, dialect);
    let widest = a
        .lines
        .iter()
        .map(|l| l.text.chars().count())
        .max()
        .unwrap_or(0);
    let w = 40.0 + (widest as f32 + 6.0) * CHAR_W;
    let w = w.max(title.chars().count() as f32 * 10.0 + 40.0);
    let h = 70.0 + a.lines.len() as f32 * LINE_H;
    let mut s = open(w, h, "#1b2130");
    let _ = write!(
        s,
        "<text x=\"20\" y=\"34\" font-family=\"{SANS}\" font-size=\"18\" font-weight=\"600\" fill=\"#e6ebf5\">{}</text>",
        esc(title)
    );
    let mut base = 0;
    for (i, l) in a.lines.iter().enumerate() {
        let y = 64.0 + i as f32 * LINE_H;
        let (glyph, gc) = match l.mark {
            Mark::Moved => ("→", "#7fd1b9"),
            Mark::Added => ("+", "#ffcb6b"),
            Mark::None => ("", "#000"),
        };
        if !glyph.is_empty() {
            let _ = write!(
                s,
                "<text x=\"20\" y=\"{y}\" font-family=\"{MONO}\" font-size=\"{CODE_SIZE}\" font-weight=\"700\" fill=\"{gc}\">{glyph}</text>"
            );
        }
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{y}\" font-family=\"{MONO}\" font-size=\"{CODE_SIZE}\" xml:space=\"preserve\">{}</text>",
            20.0 + 3.0 * CHAR_W,
            code_line(&l.text, base, &toks, &l.changed_spans)
        );
        base += l.text.len() + 1;
    }
    s.push_str("</svg>");
    s
}

fn class_colours(c: Class) -> (&'static str, &'static str) {
    match c {
        Class::Input => ("#eef1f5", "#98a2b3"),
        Class::Moved => ("#d3f0e6", "#1f7a66"),
        Class::Fixed => ("#fbd9d3", "#c0392b"),
        Class::NonLinear => ("#fde7c2", "#b7791f"),
        Class::Depends => ("#e4e7ec", "#667085"),
        Class::Other => ("#dde7fb", "#3b63b8"),
    }
}

/// The dependence graph with its colour legend below.
pub fn dag_svg(d: &Dag) -> String {
    let legend_h = 24.0 * Class::ALL.len().div_ceil(2) as f32 + 16.0;
    let w = d.width.max(620.0);
    let h = d.height + legend_h;
    let mut s = open(w, h, "#ffffff");
    s.push_str(
        "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">\
         <path d=\"M0,0 L10,5 L0,10 z\" fill=\"#9aa4b2\"/></marker></defs>",
    );
    for e in &d.edges {
        let _ = write!(
            s,
            "<path d=\"{}\" fill=\"none\" stroke=\"#9aa4b2\" stroke-width=\"1.3\" marker-end=\"url(#a)\"/>",
            e.path
        );
    }
    for n in &d.nodes {
        let (fill, stroke) = class_colours(n.class);
        let _ = write!(
            s,
            "<g transform=\"translate({},{})\"><title>{}</title><rect width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"6\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.2\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{MONO}\" font-size=\"11.5\" fill=\"#1d2430\">{}</text></g>",
            n.x,
            n.y,
            esc(&n.title),
            NODE_W / 2.0,
            NODE_H / 2.0 + 4.0,
            esc(&n.label)
        );
    }
    for (i, c) in Class::ALL.iter().enumerate() {
        let (fill, stroke) = class_colours(*c);
        let x = 12.0 + (i % 2) as f32 * 300.0;
        let y = d.height + 8.0 + (i / 2) as f32 * 24.0;
        let _ = write!(
            s,
            "<rect x=\"{x}\" y=\"{y}\" width=\"14\" height=\"14\" rx=\"3\" fill=\"{fill}\" stroke=\"{stroke}\"/>\
             <text x=\"{}\" y=\"{}\" font-family=\"{SANS}\" font-size=\"13\" fill=\"#344054\">{}</text>",
            x + 20.0,
            y + 12.0,
            esc(c.legend())
        );
    }
    s.push_str("</svg>");
    s
}

/// One picture of [`images_svg`]: its caption and a data URI (`data:image/png;base64,…`).
pub struct Picture<'a> {
    pub caption: &'a str,
    pub uri: &'a str,
}

/// The original and optimized renders and the heat map side by side, `w`×`h` each, with
/// the verdict above them.
pub fn images_svg(pictures: &[Picture], w: u32, h: u32, verdict: &str, detail: &str) -> String {
    let scale = (256.0 / w.max(h).max(1) as f32).max(1.0);
    let (pw, ph) = (w as f32 * scale, h as f32 * scale);
    let total_w = 20.0 + pictures.len() as f32 * (pw + 20.0);
    let total_w = total_w.max(esc(detail).chars().count() as f32 * 7.5 + 40.0);
    let total_h = 80.0 + ph + 40.0;
    let mut s = open(total_w, total_h, "#ffffff");
    let _ = write!(
        s,
        "<text x=\"20\" y=\"32\" font-family=\"{SANS}\" font-size=\"20\" font-weight=\"700\" fill=\"#101828\">{}</text>\
         <text x=\"20\" y=\"56\" font-family=\"{SANS}\" font-size=\"13\" fill=\"#475467\">{}</text>",
        esc(verdict),
        esc(detail)
    );
    for (i, p) in pictures.iter().enumerate() {
        let x = 20.0 + i as f32 * (pw + 20.0);
        let _ = write!(
            s,
            "<image x=\"{x}\" y=\"72\" width=\"{pw}\" height=\"{ph}\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"{}\"/>\
             <rect x=\"{x}\" y=\"72\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#d0d5dd\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{SANS}\" font-size=\"14\" fill=\"#344054\">{}</text>",
            esc(p.uri),
            x + pw / 2.0,
            72.0 + ph + 24.0,
            esc(p.caption)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig3() -> crate::worker::analysis::Analysis {
        let e = crate::doc::examples::find("paper/fig3").unwrap();
        crate::worker::analysis::analyze(&crate::doc::examples::load(e))
    }

    /// Well-formed enough for a strict reader: balanced tags, no raw `<` or `&` in text.
    fn well_formed(s: &str) {
        assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(s.ends_with("</svg>"));
        for tag in ["svg", "text", "g", "tspan", "defs", "marker", "title"] {
            let opens =
                s.matches(&format!("<{tag}>")).count() + s.matches(&format!("<{tag} ")).count();
            let closes = s.matches(&format!("</{tag}>")).count();
            assert_eq!(opens, closes, "<{tag}> balanced");
        }
        for (i, _) in s.match_indices('&') {
            let rest = &s[i..];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                    .iter()
                    .any(|e| rest.starts_with(e)),
                "bare & at {i}"
            );
        }
        assert!(
            !s.contains("class="),
            "styles are inline: no stylesheet needed"
        );
    }

    #[test]
    fn the_code_figure_has_every_line_and_mark() {
        let a = fig3();
        let o = a.optimized.as_ref().unwrap();
        let s = code_svg("Fragment program (ps_2_0)", &o.fp, Dialect::D3d9);
        well_formed(&s);
        let moved = o.fp.lines.iter().filter(|l| l.mark == Mark::Moved).count();
        let added = o.fp.lines.iter().filter(|l| l.mark == Mark::Added).count();
        assert_eq!(s.matches(">→</text>").count(), moved);
        assert_eq!(s.matches(">+</text>").count(), added);
        let changed: usize = o.fp.lines.iter().map(|l| l.changed_spans.len()).sum();
        assert!(changed == 0 || s.contains("text-decoration=\"underline\""));
        let vs = code_svg("Vertex program", &o.vp, Dialect::D3d9);
        assert!(
            vs.matches(">→</text>").count() > 0,
            "fig3 moves work to the vertex program"
        );
        for l in &o.vp.lines {
            let first = l.text.split_whitespace().next().unwrap_or("");
            assert!(vs.contains(&esc(first)), "{first}");
        }
    }

    #[test]
    fn the_graph_figure_has_every_node_and_the_legend() {
        let a = fig3();
        let d = a.optimized.as_ref().unwrap().dag.as_ref().clone().unwrap();
        let s = dag_svg(&d);
        well_formed(&s);
        assert_eq!(s.matches("<g transform").count(), d.nodes.len());
        assert_eq!(s.matches("marker-end").count(), d.edges.len());
        for c in Class::ALL {
            assert!(s.contains(&esc(c.legend())));
        }
    }

    #[test]
    fn the_images_figure_embeds_the_pictures_and_the_verdict() {
        let p = [
            Picture {
                caption: "original",
                uri: "data:image/png;base64,AAA=",
            },
            Picture {
                caption: "optimized",
                uri: "data:image/png;base64,BBB=",
            },
            Picture {
                caption: "difference",
                uri: "data:image/png;base64,CCC=",
            },
        ];
        let s = images_svg(&p, 64, 32, "bit-identical", "max |Δ| = 0 <ok> & done");
        well_formed(&s);
        assert_eq!(s.matches("<image ").count(), 3);
        assert!(s.contains("bit-identical") && s.contains("&lt;ok&gt; &amp; done"));
    }
}
