//! Printer: canonical Direct3D 9 assembly for a program.
//!
//! Layout: the version line, `def`/`defi`/`defb` by register number, `dcl` lines for the
//! declarations that need one (in `io` order), sampler declarations, then one instruction
//! per line with its trailing comment. Floats print in Rust's shortest round-trip form, so
//! `parse(print(p))` reproduces every literal bit for bit (NaN and infinities print as
//! `nan`/`inf`, which the front end accepts as an extension).

use super::regs::{self, op_name, reg_name};
use crate::ir::*;
use crate::printed::{InstSpans, Operands, Printed, Role};
use crate::profile::Profile;
use std::fmt::Write;
use std::ops::Range;

pub fn print(p: &Program) -> String {
    print_with_spans(p).text
}

/// Prints a program with the line and operand spans of every instruction.
pub fn print_with_spans(p: &Program) -> Printed {
    let mut out = String::new();
    out.push_str(p.profile.header());
    out.push('\n');
    for (i, c) in p.consts.iter().enumerate() {
        if let ConstBinding::Literal(l) = &c.binding {
            let v = l.value;
            let _ = writeln!(
                out,
                "def c{i}, {}, {}, {}, {}",
                float(v[0]),
                float(v[1]),
                float(v[2]),
                float(v[3])
            );
        }
    }
    for (i, c) in p.int_consts.iter().enumerate() {
        if let Some(v) = c {
            let _ = writeln!(out, "defi i{i}, {}, {}, {}, {}", v[0], v[1], v[2], v[3]);
        }
    }
    for (i, c) in p.bool_consts.iter().enumerate() {
        if let Some(v) = c {
            let _ = writeln!(out, "defb b{i}, {v}");
        }
    }
    for d in &p.io {
        if d.explicit || regs::requires_dcl(d.reg, p.profile) {
            out.push_str(&dcl_line(p, d));
            out.push('\n');
        }
    }
    for s in &p.samplers {
        let t = regs::target_word(s.target).unwrap_or("2d");
        let _ = writeln!(out, "dcl_{t} s{}", sampler_index(p.stage(), s.unit));
    }
    let first = out.matches('\n').count();
    let mut insts = Vec::with_capacity(p.insts.len());
    for (line, inst) in (first..).zip(&p.insts) {
        let (text, dst, src) = inst_line_spans(p, inst);
        out.push_str(&text);
        out.push('\n');
        insts.push(InstSpans { line, dst, src });
    }
    Printed { text: out, insts }
}

fn float(v: f32) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v}")
    }
}

fn dcl_line(p: &Program, d: &IoDecl) -> String {
    let mut s = String::from("dcl");
    let ps2 = matches!(p.profile, Profile::Ps2_0 | Profile::Ps2_x);
    let plain = matches!(d.reg.file, RegFile::Misc) || (ps2 && d.reg.file.is_input());
    if !plain && let Some((u, i)) = regs::semantic_usage(d.semantic) {
        s.push('_');
        s.push_str(u);
        if i != 0 {
            let _ = write!(s, "{i}");
        }
    }
    if d.interp == Interp::Centroid {
        s.push_str("_centroid");
    }
    if d.pp {
        s.push_str("_pp");
    }
    s.push(' ');
    s.push_str(&reg_name(d.reg));
    if !d.mask.is_all() && !d.mask.is_empty() {
        s.push('.');
        s.push_str(&mask_text(d.mask));
    }
    s
}

pub fn mask_text(m: WriteMask) -> String {
    m.iter().map(|c| COMP_NAMES[c as usize]).collect()
}

/// Shortest spelling of a swizzle (the last letter repeats), empty for the identity.
pub fn swizzle_text(s: Swizzle) -> String {
    if s.is_identity() {
        return String::new();
    }
    let c = s.comps();
    let mut n = 4;
    while n > 1 && c[n - 1] == c[n - 2] {
        n -= 1;
    }
    c[..n].iter().map(|&k| COMP_NAMES[k as usize]).collect()
}

fn rel_text(reg: Reg, rel: &RelAddr) -> String {
    let prefix = match reg.file {
        RegFile::Const => "c",
        RegFile::Input => "v",
        RegFile::Output => "o",
        _ => "?",
    };
    let idx = match rel.reg.file {
        RegFile::Loop => "aL".to_string(),
        _ => format!("a{}.{}", rel.reg.index, COMP_NAMES[(rel.comp & 3) as usize]),
    };
    if reg.index == 0 {
        format!("{prefix}[{idx}]")
    } else {
        format!("{prefix}[{idx} + {}]", reg.index)
    }
}

pub fn src_text(s: &Src) -> String {
    let mut t = String::new();
    if s.negate {
        t.push(if s.reg.file == RegFile::Predicate {
            '!'
        } else {
            '-'
        });
    }
    match &s.rel {
        Some(rel) => t.push_str(&rel_text(s.reg, rel)),
        None => t.push_str(&reg_name(s.reg)),
    }
    if s.abs {
        t.push_str("_abs");
    }
    let sw = swizzle_text(s.swizzle);
    if !sw.is_empty() {
        t.push('.');
        t.push_str(&sw);
    }
    t
}

pub fn dst_text(d: &Dst) -> String {
    let mut t = match &d.rel {
        Some(rel) => rel_text(d.reg, rel),
        None => reg_name(d.reg),
    };
    let scalar = matches!(
        (d.reg.file, d.reg.index),
        (RegFile::RastOut, 1 | 2) | (RegFile::DepthOut, _)
    );
    let default = if scalar { WriteMask::X } else { WriteMask::ALL };
    if d.mask != default && !d.mask.is_empty() {
        t.push('.');
        t.push_str(&mask_text(d.mask));
    }
    t
}

pub fn inst_line(p: &Program, i: &Inst) -> String {
    inst_line_spans(p, i).0
}

/// An instruction's line and the byte ranges of its destination and sources in it.
fn inst_line_spans(p: &Program, i: &Inst) -> (String, Option<Range<usize>>, Vec<Range<usize>>) {
    let mut line = String::new();
    if let Some(pr) = &i.pred {
        line.push('(');
        if pr.negate {
            line.push('!');
        }
        line.push_str("p0");
        let sw = swizzle_text(pr.swizzle);
        if !sw.is_empty() {
            line.push('.');
            line.push_str(&sw);
        }
        line.push_str(") ");
    }
    line.push_str(&op_name(i.op, p.profile));
    if i.sat {
        line.push_str("_sat");
    }
    if i.pp {
        line.push_str("_pp");
    }
    // texldd: dst, src0, s#, grad x, grad y.
    let mut ops = Operands::default();
    if let Some(d) = &i.dst {
        ops.push(Role::Dst, dst_text(d));
    }
    for (k, s) in i.src.iter().enumerate() {
        ops.push(Role::Src, src_text(s));
        if k == 0 && i.op.is_texture() {
            let unit = i.tex.map_or(0, |t| sampler_index(p.stage(), t.unit));
            ops.push(Role::Other, format!("s{unit}"));
        }
    }
    let (dst, src) = ops.write(&mut line);
    if let Some(c) = &i.comment {
        let c: String = c
            .chars()
            .map(|ch| if ch == '\n' || ch == '\r' { ' ' } else { ch })
            .collect();
        line.push_str(" ; ");
        line.push_str(c.trim());
    }
    (line, dst, src)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_swizzles() {
        assert_eq!(swizzle_text(Swizzle::IDENTITY), "");
        assert_eq!(swizzle_text(Swizzle::splat(2)), "z");
        assert_eq!(swizzle_text(Swizzle::new(0, 1, 1, 1)), "xy");
        assert_eq!(swizzle_text(Swizzle::new(3, 2, 1, 0)), "wzyx");
        assert_eq!(float(0.1), "0.1");
        assert_eq!(float(-0.0), "-0");
        assert_eq!(float(f32::NEG_INFINITY), "-inf");
    }
}
