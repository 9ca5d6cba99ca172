//! The emitter's state for one stage and what every instruction needs: register names,
//! exact float literals, operand expressions (swizzles, `_abs`, negation, relative
//! addressing) and the masked, predicated, saturated store.

use crate::error::Error;
use crate::iface::Scan;
use hoist_asm::ir::{RegFile, TexTarget};
use hoist_asm::{Inst, Program, Reg, Src, Stage, Swizzle, WriteMask};
use std::fmt::Write;

/// One stage being written.
pub(crate) struct Ctx<'a> {
    pub p: &'a Program,
    pub scan: &'a Scan,
    /// The pair's texture bindings (index = binding pair k).
    pub textures: &'a [(u8, TexTarget)],
    /// Loop iteration cap (the executor's `Caps::max_loop_iterations`).
    pub max_loop: u32,
    pub out: String,
    pub depth: usize,
    /// Instruction being written (for errors).
    pub at: usize,
}

impl<'a> Ctx<'a> {
    /// `v` or `f`: the prefix of this stage's names.
    pub fn s(&self) -> char {
        match self.p.stage() {
            Stage::Vertex => 'v',
            Stage::Fragment => 'f',
        }
    }

    pub fn fragment(&self) -> bool {
        self.p.stage() == Stage::Fragment
    }

    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::at(self.p.stage(), self.at, msg)
    }

    pub fn line(&mut self, text: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// The private variable holding register `r` of this stage.
    pub fn reg(&self, r: Reg) -> String {
        reg_name(self.s(), r)
    }

    /// The constant table's element `i` (`vc.c[i]` / `fc.c[i]`).
    pub fn konst(&self, i: &str) -> String {
        format!("{}c.c[{i}]", self.s())
    }

    /// The integer block of this stage.
    pub fn ints(&self) -> String {
        format!("{}i", self.s())
    }
}

/// The private variable of register `r` in stage `s` (`f_r0`, `v_ao1`, `f_aL`).
pub(crate) fn reg_name(s: char, r: Reg) -> String {
    let tag = match r.file {
        RegFile::Temp => "r",
        RegFile::Input => "v",
        RegFile::TexCoord => "t",
        RegFile::Const => "c",
        RegFile::ConstInt => "i",
        RegFile::ConstBool => "b",
        RegFile::Address => "a",
        RegFile::Sampler => "s",
        RegFile::Loop => return format!("{s}_aL"),
        RegFile::Predicate => "p",
        RegFile::Label => "l",
        RegFile::Misc => "m",
        RegFile::RastOut => "ro",
        RegFile::AttrOut => "ao",
        RegFile::TexCrdOut => "to",
        RegFile::Output => "o",
        RegFile::ColorOut => "oc",
        RegFile::DepthOut => "od",
    };
    format!("{s}_{tag}{}", r.index)
}

/// Files that hold values in private variables.
pub(crate) fn is_storage(f: RegFile) -> bool {
    !matches!(
        f,
        RegFile::Const | RegFile::ConstInt | RegFile::ConstBool | RegFile::Sampler | RegFile::Label
    )
}

/// Whether `v` is written exactly as a WGSL constant (zero or a normal finite f32: WGSL
/// constants may not be infinite or NaN, and subnormal ones may be flushed).
pub(crate) fn literal_ok(v: f32) -> bool {
    v == 0.0 || v.is_normal()
}

/// The exact WGSL spelling of an f32 constant (`literal_ok` values only): Rust's shortest
/// round-trip decimal with the `f` suffix.
pub(crate) fn f32_lit(v: f32) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0.0f"
        } else {
            "0.0f"
        }
        .to_string();
    }
    // The shortest decimal of FLT_MAX lies above it; a strict parser (Tint) refuses it.
    if v.abs() == f32::MAX {
        return if v < 0.0 {
            "-0x1.fffffep+127f"
        } else {
            "0x1.fffffep+127f"
        }
        .to_string();
    }
    format!("{v:?}f")
}

pub(crate) fn vec4_lit(v: [f32; 4]) -> String {
    format!(
        "vec4f({}, {}, {}, {})",
        f32_lit(v[0]),
        f32_lit(v[1]),
        f32_lit(v[2]),
        f32_lit(v[3])
    )
}

/// `.yzxw` (empty for the identity).
pub(crate) fn swz(s: Swizzle) -> String {
    if s.is_identity() {
        return String::new();
    }
    let mut t = String::from(".");
    for c in s.comps() {
        t.push(['x', 'y', 'z', 'w'][c as usize]);
    }
    t
}

/// `vec4<bool>(...)` of a write mask.
pub(crate) fn mask_lit(m: WriteMask) -> String {
    let b: Vec<&str> = (0..4)
        .map(|c| if m.has(c) { "true" } else { "false" })
        .collect();
    format!("vec4<bool>({})", b.join(", "))
}

fn modifiers(e: String, s: &Src) -> String {
    let e = if s.abs { format!("abs({e})") } else { e };
    if s.negate { format!("-({e})") } else { e }
}

impl Ctx<'_> {
    /// The value of a source operand as a `vec4f` expression; statements it needs first
    /// (relative reads) go to `pre`. `row` offsets the register (matrix macros' rows).
    pub fn src(&mut self, s: &Src, row: u16, pre: &mut Vec<String>) -> Result<String, Error> {
        if let Some(rel) = &s.rel {
            return self.relative(s, rel, row, pre);
        }
        let reg = Reg::new(s.reg.file, s.reg.index.saturating_add(row));
        match reg.file {
            RegFile::Const => {
                if let Some(v) = self.p.literal(reg.index) {
                    let mut w = [0.0f32; 4];
                    for (c, x) in w.iter_mut().enumerate() {
                        let mut y = v[s.swizzle.get(c as u8) as usize];
                        if s.abs {
                            y = y.abs();
                        }
                        if s.negate {
                            y = -y;
                        }
                        *x = y;
                    }
                    if w.iter().all(|&x| literal_ok(x)) {
                        return Ok(vec4_lit(w));
                    }
                }
                let e = format!("{}{}", self.konst(&reg.index.to_string()), swz(s.swizzle));
                Ok(modifiers(e, s))
            }
            f if is_storage(f) => Ok(modifiers(format!("{}{}", self.reg(reg), swz(s.swizzle)), s)),
            f => Err(self.err(format!("{f:?} is not a data operand"))),
        }
    }

    /// A relative read: register `index + addr + offset`; outside `lo..hi` it reads
    /// (0, 0, 0, 0) whatever the modifiers say (the executor's gather).
    fn relative(
        &mut self,
        s: &Src,
        rel: &hoist_asm::ir::RelAddr,
        row: u16,
        pre: &mut Vec<String>,
    ) -> Result<String, Error> {
        let n = format!("{}_{}", self.at, pre.len());
        let addr = format!(
            "{}.{}",
            self.reg(rel.reg),
            ['x', 'y', 'z', 'w'][rel.comp as usize & 3]
        );
        let base = i32::from(s.reg.index) + i32::from(row) + i32::from(rel.offset);
        let (lo, hi, arr) = match s.reg.file {
            RegFile::Const => (i32::from(rel.lo), i32::from(rel.hi), None),
            f if is_storage(f) => {
                let size = i32::from(self.scan.size(f));
                let regs: Vec<String> =
                    (0..size).map(|i| self.reg(Reg::new(f, i as u16))).collect();
                if regs.is_empty() {
                    return Ok("vec4f(0.0f)".into());
                }
                (
                    i32::from(rel.lo).min(size),
                    i32::from(rel.hi).min(size),
                    Some(format!("array<vec4f, {size}>({})", regs.join(", "))),
                )
            }
            f => return Err(self.err(format!("{f:?} cannot be read relatively"))),
        };
        if hi <= lo {
            return Ok("vec4f(0.0f)".into());
        }
        pre.push(format!("let ri{n} = {base} + i32({addr});"));
        let idx = format!("u32(clamp(ri{n}, {lo}, {}))", hi - 1);
        let elem = match arr {
            None => self.konst(&idx),
            Some(a) => {
                pre.push(format!("var ra{n} = {a};"));
                format!("ra{n}[{idx}]")
            }
        };
        let v = modifiers(format!("{elem}{}", swz(s.swizzle)), s);
        Ok(format!(
            "select(vec4f(0.0f), {v}, ri{n} >= {lo} && ri{n} < {hi})"
        ))
    }

    /// Stores `value` (a `vec4f` expression) into the destination of `ins` under `mask`,
    /// saturated with `_SAT`, only where the predicate holds.
    pub fn store(&mut self, ins: &Inst, value: &str, mask: WriteMask) -> Result<(), Error> {
        let Some(d) = &ins.dst else {
            return Ok(());
        };
        if d.rel.is_some() {
            return Err(self.err(
                "relative destination addressing is not supported (the executor refuses it too)",
            ));
        }
        if mask.is_empty() {
            return Ok(());
        }
        let dst = self.reg(d.reg);
        let v = if ins.sat {
            format!("sat4({value})")
        } else {
            value.to_string()
        };
        let mut cond = if mask.is_all() {
            None
        } else {
            Some(mask_lit(mask))
        };
        if let Some(pr) = &ins.pred {
            let p = self.reg(Reg::new(RegFile::Predicate, 0));
            let test = format!("({p}{} != vec4f(0.0f))", swz(pr.swizzle));
            let test = if pr.negate { format!("!{test}") } else { test };
            cond = Some(match cond {
                Some(m) => format!("{m} & {test}"),
                None => test,
            });
        }
        let line = match cond {
            None => format!("{dst} = {v};"),
            Some(c) => format!("{dst} = select({dst}, {v}, {c});"),
        };
        self.line(&line);
        Ok(())
    }
}

/// Appends `text` formatted into `out` (write! to a String cannot fail).
pub(crate) fn push(out: &mut String, text: std::fmt::Arguments) {
    let _ = out.write_fmt(text);
}
