//! Instruction help: what an opcode computes, in our own words from the
//! ARB_vertex_program / ARB_fragment_program specifications and Microsoft's Direct3D 9
//! assembly reference, with the profile's slot cost (`Profile::slots`, the crate's table)
//! and the restrictions that profile puts on it. [`lookup`] takes a mnemonic as written
//! (`MAD_SAT`, `texld`, `if_lt`, `sincos_pp`, `dcl_texcoord0`) and the program's profile.

use hoist_asm::ops::{Class, Cond, Shape};
use hoist_asm::profile::SwizzleRule;
use hoist_asm::{Dialect, Op, Profile, Stage};

/// Help for one mnemonic in one profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Help {
    /// The mnemonic without modifiers, as the dialect spells it.
    pub name: String,
    /// What it computes.
    pub what: String,
    /// Its cost in the program's profile (and in the other stage's, when given).
    pub cost: String,
    /// Restrictions of the profile, and what the written modifiers do.
    pub notes: Vec<String>,
}

impl Help {
    /// All of it as plain text (a tooltip or a help line).
    pub fn text(&self) -> String {
        let mut s = format!("{} — {}\n{}", self.name, self.what, self.cost);
        for n in &self.notes {
            s.push_str("\n• ");
            s.push_str(n);
        }
        s
    }
}

/// What an operation computes, in words.
pub fn what(op: Op) -> &'static str {
    use Op::*;
    match op {
        Abs => "absolute value of each component",
        Add => "adds the two sources component by component",
        Arl => {
            "loads the address register A0.x with floor(source.x), for relative addressing of parameters"
        }
        Mova => {
            "loads the address register a0 with each source component rounded to the nearest integer, for relative addressing of constants"
        }
        Cmp => "per component: source0 < 0 ? source1 : source2 (a NaN in source0 picks source2)",
        CmpGe => "per component: source0 >= 0 ? source1 : source2 (a NaN in source0 picks source2)",
        Cnd => "per component: source0 > 0.5 ? source1 : source2",
        Cos => "cosine of source.x (radians), written to every enabled component",
        Sin => "sine of source.x (radians), written to every enabled component",
        Dp2add => {
            "source0.x·source1.x + source0.y·source1.y + source2 (a replicated scalar), written to every enabled component"
        }
        Dp3 => {
            "three-component dot product source0.xyz·source1.xyz, written to every enabled component"
        }
        Dp4 => "four-component dot product of the sources, written to every enabled component",
        Dph => "homogeneous dot product: source0.xyz·source1.xyz + source1.w",
        Dst => {
            "distance vector for attenuation: (1, source0.y·source1.y, source0.z, source1.w), from (·, d², d², ·) and (·, 1/d, ·, 1/d)"
        }
        Ex2 => "2 raised to source.x, full precision, written to every enabled component",
        Exp => {
            "partial-precision 2^x: x = 2^floor(s), y = s − floor(s), z = an approximation of 2^s, w = 1 (vs_2_0 and later: a replicated approximation of 2^s)"
        }
        Flr => "largest integer not greater than each component",
        Frc => "fractional part of each component: x − floor(x)",
        Kil => "discards the fragment if any component of the source is negative",
        Texkil => "discards the pixel if any of the x, y, z components of the source is negative",
        Lg2 => "base-2 logarithm of |source.x|, full precision, written to every enabled component",
        Log => {
            "partial-precision log2: x = exponent of |s|, y = mantissa in [1, 2), z = an approximation of log2|s|, w = 1 (vs_2_0 and later: a replicated approximation)"
        }
        Lit => {
            "lighting coefficients from (n·l, n·h, ·, power): (1, max(n·l, 0), n·l > 0 ? max(n·h, 0)^power : 0, 1), the power clamped to ±128"
        }
        Lrp => "linear interpolation per component: source0·source1 + (1 − source0)·source2",
        Mad => "multiply and add per component: source0·source1 + source2",
        Max => "larger of the two sources, per component",
        Min => "smaller of the two sources, per component",
        Mov => "copies the source (with its swizzle and negation) to the destination",
        Mul => "multiplies the two sources component by component",
        Nrm => "normalizes the xyz vector: source · 1/sqrt(source.xyz·source.xyz)",
        Pow => "|source0.x| raised to source1.x (approximate), written to every enabled component",
        Rcp => "reciprocal 1/source.x, written to every enabled component (1/0 gives +infinity)",
        Rsq => "reciprocal square root 1/sqrt(|source.x|), written to every enabled component",
        Scs => "cosine of source.x into x and sine into y (z and w undefined)",
        Sincos => {
            "cosine of source (a replicated scalar, radians) into x and sine into y; only x and y may be written"
        }
        Sge => "per component: 1.0 if source0 >= source1, else 0.0",
        Slt => "per component: 1.0 if source0 < source1, else 0.0",
        Sgn => "sign of each component: −1, 0 or 1",
        Sub => "subtracts source1 from source0 component by component",
        Swz => {
            "extended swizzle: each component picks a source component, 0 or 1, each optionally negated"
        }
        Xpd => "cross product of source0.xyz and source1.xyz (w is undefined)",
        M4x4 => "transforms a 4-vector by a 4×4 matrix: four dp4 with consecutive constant rows",
        M4x3 => {
            "transforms a 4-vector by a 4×3 matrix: three dp4 with consecutive rows (writes xyz)"
        }
        M3x4 => "transforms a 3-vector by a 3×4 matrix: four dp3 with consecutive rows",
        M3x3 => {
            "transforms a 3-vector by a 3×3 matrix: three dp3 with consecutive rows (writes xyz)"
        }
        M3x2 => "transforms a 3-vector by a 3×2 matrix: two dp3 with consecutive rows (writes xy)",
        Tex => "samples a texture at the coordinate, filtered",
        Txb => "samples a texture with a level-of-detail bias taken from the coordinate's w",
        Txp => "projective sample: the coordinate is divided by its w before sampling",
        Texldd => {
            "samples a texture with explicit screen-space gradients (source2 = d/dx, source3 = d/dy)"
        }
        Texldl => {
            "samples a texture at the mip level given in the coordinate's w (no derivatives needed)"
        }
        Dsx => {
            "rate of change of the source across the screen's x direction (between neighbouring pixels)"
        }
        Dsy => {
            "rate of change of the source across the screen's y direction (between neighbouring pixels)"
        }
        Nop => "does nothing",
        If => "runs the block up to else/endif when the boolean constant (or predicate) is true",
        Ifc(_) => {
            "runs the block up to else/endif when the comparison of the two scalar sources holds"
        }
        Else => "starts the block run when the matching if did not",
        Endif => "ends an if block",
        Loop => {
            "repeats up to endloop: the integer constant gives (count, start, step) of the loop counter aL"
        }
        Endloop => "ends a loop block",
        Rep => "repeats the block up to endrep as many times as the integer constant's x",
        Endrep => "ends a rep block",
        Break => "leaves the innermost loop or rep",
        Breakc(_) => {
            "leaves the innermost loop or rep when the comparison of the two scalar sources holds"
        }
        Breakp => "leaves the innermost loop or rep when the chosen predicate component is true",
        Call => "calls the subroutine at a label",
        Callnz => {
            "calls the subroutine at a label when the boolean constant (or predicate) is true"
        }
        Label => "marks the start of a subroutine",
        Ret => "returns from a subroutine (or ends the main program)",
        Setp(_) => {
            "per component: sets the predicate register p0 to the comparison of the two sources"
        }
    }
}

/// Help for directives the parsers accept besides operations: the directive's name and
/// what it does.
fn directive(word: &str, dialect: Dialect) -> Option<(String, &'static str)> {
    let w = match dialect {
        Dialect::D3d9 => word.split('_').next().unwrap_or(""),
        Dialect::Arb => word,
    };
    let what = match (dialect, w) {
        (Dialect::D3d9, "def") => "defines a float constant register c# with four literal values",
        (Dialect::D3d9, "defi") => "defines an integer constant register i# (loop and rep counts)",
        (Dialect::D3d9, "defb") => "defines a boolean constant register b# (static if and callnz)",
        (Dialect::D3d9, "dcl") => {
            "declares an input or output register's meaning (dcl_texcoord0, dcl_position) or a sampler's texture type (dcl_2d, dcl_cube, dcl_volume)"
        }
        (Dialect::Arb, "TEMP") => "declares temporary registers",
        (Dialect::Arb, "PARAM") => {
            "declares a parameter: a constant, program.env/local or a state binding"
        }
        (Dialect::Arb, "ATTRIB") => "names an input attribute binding",
        (Dialect::Arb, "OUTPUT") => "names an output binding",
        (Dialect::Arb, "ALIAS") => "gives another name to a declared variable",
        (Dialect::Arb, "ADDRESS") => "declares an address register (vertex programs)",
        (Dialect::Arb, "OPTION") => {
            "enables a program option (ARB_position_invariant, ARB_fog_*, ARB_precision_hint_*)"
        }
        (Dialect::Arb, "END") => "ends the program",
        _ => return None,
    };
    Some((w.to_string(), what))
}

/// The operation a mnemonic (with its modifiers) names, and its modifiers.
fn parse_word(word: &str, dialect: Dialect) -> Option<(Op, Vec<String>)> {
    match dialect {
        Dialect::Arb => {
            let up = word.to_ascii_uppercase();
            let (base, sat) = match up.strip_suffix("_SAT") {
                Some(b) => (b.to_string(), true),
                None => (up, false),
            };
            let op = hoist_asm::arb::arb_ops().find(|(_, n)| *n == base)?.0;
            Some((op, if sat { vec!["SAT".into()] } else { Vec::new() }))
        }
        Dialect::D3d9 => {
            let low = word.to_ascii_lowercase();
            let mut parts = low.split('_');
            let base = parts.next()?;
            let mut mods: Vec<String> = parts.map(str::to_string).collect();
            let mut op = if base == "texkil" {
                Op::Texkil
            } else {
                hoist_asm::d3d9::regs::MNEMONICS
                    .iter()
                    .find(|(n, _)| *n == base)?
                    .1
            };
            let cond = mods
                .first()
                .and_then(|m| Cond::ALL.into_iter().find(|c| c.suffix() == m));
            match (op, cond) {
                (Op::If, Some(c)) => op = Op::Ifc(c),
                (Op::Break, Some(c)) => op = Op::Breakc(c),
                (Op::Setp(_), Some(c)) => op = Op::Setp(c),
                _ => {}
            }
            if cond.is_some() {
                mods.remove(0);
            }
            Some((op, mods))
        }
    }
}

/// The spelling of `op` in `dialect`.
pub fn spelled(op: Op, dialect: Dialect) -> String {
    let i = op.info();
    let base = match dialect {
        Dialect::Arb => i.arb.or(i.d3d),
        Dialect::D3d9 if op == Op::Texkil => Some("texkill"),
        Dialect::D3d9 => i.d3d.or(i.arb),
    }
    .unwrap_or("?");
    match op {
        Op::Ifc(c) | Op::Breakc(c) | Op::Setp(c) => format!("{base}_{}", c.suffix()),
        _ => base.to_string(),
    }
}

/// "N slots in P", or that P lacks it.
fn cost_in(op: Op, p: Profile) -> String {
    let unit = if p.dialect() == Dialect::Arb {
        "instruction"
    } else {
        "slot"
    };
    match p.slots(op) {
        Some(n) => format!(
            "{n} {unit}{} in {}",
            if n == 1 { "" } else { "s" },
            p.header()
        ),
        None => format!("not available in {}", p.header()),
    }
}

fn cost(op: Op, p: Profile, other: Option<Profile>) -> String {
    let mut s = format!("Cost: {}", cost_in(op, p));
    if op.info().class == Class::Tex && p.limits().max_tex_slots.is_some() {
        s.push_str(" (counted against the texture-instruction limit)");
    }
    if let Some(o) = other.filter(|o| o.stage() != p.stage()) {
        let moved = if p.stage() == Stage::Fragment {
            "moved to the vertex program"
        } else {
            "in the fragment program"
        };
        s.push_str(&format!("; {moved}: {}", cost_in(op, o)));
    }
    s
}

/// Restrictions `p` puts on `op`.
fn restrictions(op: Op, p: Profile) -> Vec<String> {
    let mut out = Vec::new();
    let shape = op.info().shape;
    let scalar = matches!(shape, Shape::Scalar);
    match (p.dialect(), scalar) {
        (Dialect::Arb, true) => out.push(
            "scalar: each source must select one component (e.g. .x); the result goes to every enabled component".into(),
        ),
        (Dialect::D3d9, true) => out.push(
            "scalar: each source needs a replicate swizzle (.x, .y, .z or .w); the result is replicated".into(),
        ),
        _ => {}
    }
    if p.ps2_0_swizzle_rule() == SwizzleRule::Always && op.info().class != Class::Flow {
        out.push(
            "ps_2_0 source swizzles: none, a replicate (.x .y .z .w), .yzxw, .zxyw or .wzyx only"
                .into(),
        );
    }
    if op.is_texture() {
        match p {
            Profile::ArbFp1 => out.push(format!(
                "a read whose coordinate depends on an earlier texture result starts a new texture indirection (at most {} here)",
                p.limits().max_tex_indirections.unwrap_or(4)
            )),
            Profile::Ps2_0 | Profile::Ps2_x => out.push(
                "the coordinate is a t# or r# register and the sampler an s# declared with dcl_*; texture reads that depend on earlier texture results may nest at most 4 deep".into(),
            ),
            _ => {}
        }
        if p.stage() == Stage::Fragment {
            out.push(
                "fragment-only: texture reads cannot move to the vertex program here (C2)".into(),
            );
        }
    }
    match op {
        Op::Sincos if matches!(p, Profile::Vs2_0 | Profile::Vs2_x | Profile::Ps2_0 | Profile::Ps2_x) => out.push(
            "2_0/2_x models take two extra constant sources with the series coefficients (D3DSINCOSCONST1/2); the destination mask is .x, .y or .xy".into(),
        ),
        Op::Sincos => out.push("the destination mask is .x, .y or .xy".into()),
        Op::Kil | Op::Texkil | Op::Dsx | Op::Dsy => {
            out.push("fragment-only: it cannot run per vertex (C1)".into())
        }
        Op::M4x4 | Op::M4x3 | Op::M3x4 | Op::M3x3 | Op::M3x2 => out.push(
            "the destination may not be the source register; the matrix rows are consecutive registers from source1".into(),
        ),
        Op::Dp2add => out.push("source2 needs a replicate swizzle".into()),
        Op::Pow if p.dialect() == Dialect::D3d9 => {
            out.push("both sources need replicate swizzles".into())
        }
        Op::Mova if p == Profile::Vs1_1 => {
            out.push("vs_1_1 writes the address register with mov a0.x, source".into())
        }
        _ => {}
    }
    out
}

/// What the modifiers written after a mnemonic do.
fn modifiers(mods: &[String]) -> Vec<String> {
    mods.iter()
        .filter_map(|m| match m.as_str() {
            "SAT" | "sat" => Some("_sat: the result is clamped to [0, 1]".to_string()),
            "pp" => Some("_pp: partial precision (16-bit float) is allowed".to_string()),
            _ => None,
        })
        .collect()
}

/// Help for `word` (an opcode with its modifiers, or a directive) in a program of `profile`;
/// `other` is the other stage's profile, whose cost is shown too.
pub fn lookup(word: &str, profile: Profile, other: Option<Profile>) -> Option<Help> {
    let dialect = profile.dialect();
    if let Some((op, mods)) = parse_word(word, dialect) {
        let mut notes = restrictions(op, profile);
        notes.extend(modifiers(&mods));
        let mut name = spelled(op, dialect);
        if matches!(op, Op::Setp(_)) && !word.contains('_') {
            name = "setp".into();
            notes.push("needs a comparison: setp_gt, _ge, _lt, _le, _eq or _ne".into());
        }
        return Some(Help {
            name,
            what: what(op).to_string(),
            cost: cost(op, profile, other),
            notes,
        });
    }
    let (name, what) = directive(word, dialect)?;
    Some(Help {
        name,
        what: what.to_string(),
        cost: "Cost: none (a declaration, not an instruction)".into(),
        notes: Vec::new(),
    })
}

/// The word (letters, digits, `_`) around byte `at` of `line`, with its byte range.
pub fn word_at(line: &str, at: usize) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let is_w = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    if at >= b.len() || !is_w(b[at]) {
        return None;
    }
    let start = (0..at)
        .rev()
        .take_while(|&i| is_w(b[i]))
        .last()
        .unwrap_or(at);
    let end = (at..b.len()).find(|&i| !is_w(b[i])).unwrap_or(b.len());
    Some((start, end))
}

/// The opcode (first word of an instruction) of a source line, if the line has one; ARB
/// comments start with `#`, D3D9 ones with `;` or `//`.
pub fn line_opcode(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    let w = &t[..end];
    (!w.is_empty()).then_some(w)
}
