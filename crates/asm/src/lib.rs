//! # hoist-asm: GPU vertex/fragment assembly, one IR for two dialects
//!
//! This crate reads and writes the two assembly languages of programmable GPUs from the
//! Direct3D 9 / OpenGL 2 era and lowers both onto one intermediate representation:
//!
//! - **ARB**: `!!ARBvp1.0` (ARB_vertex_program) and `!!ARBfp1.0` (ARB_fragment_program);
//! - **Direct3D 9**: `vs_1_1`, `vs_2_0`, `vs_2_x`, `vs_3_0`, `ps_2_0`, `ps_2_x`, `ps_3_0`.
//!
//! ## The IR ([`ir`])
//! A [`Program`] is one stage of one profile: declarations in side tables plus a flat list
//! of [`Inst`]ructions (D3D9 flow control appears as `if`/`endif`/... instructions).
//! Every operand names a register as a [`RegFile`] and an index, exactly as D3D9 does:
//!
//! | file | D3D9 | ARB |
//! |---|---|---|
//! | `Temp` | `r#` | `TEMP` names, in declaration order |
//! | `Input` | vertex `v#`; pixel `v0`/`v1` colours | `vertex.*` (index = the attribute-aliasing slot: position 0, weight 1, normal 2, color 3, secondary color 4, fogcoord 5, texcoord[n] 8+n, attrib[n] n); `fragment.color.primary` 0, `.secondary` 1, `fragment.fogcoord` 2 |
//! | `TexCoord` | pixel `t#` | `fragment.texcoord[n]` |
//! | `Misc` | `vPos` 0, `vFace` 1 | `fragment.position` 0 |
//! | `Const` | `c#` (slot = register number) | `PARAM` slots and inline literals, in order of appearance |
//! | `Address` | `a0` | `ADDRESS` names |
//! | `Sampler` | `s#` | `texture[n]` (carried in [`ir::TexRef`]) |
//! | `RastOut` | `oPos` 0, `oFog` 1, `oPts` 2 | `result.position`, `result.fogcoord`, `result.pointsize` |
//! | `AttrOut` | `oD0`, `oD1` | `result.color[.front][.primary|.secondary]` 0/1, `.back` 2/3 |
//! | `TexCrdOut` | `oT#` | `result.texcoord[n]` |
//! | `ColorOut` | `oC#` | `result.color` (`result.color[n]` with ARB_draw_buffers) |
//! | `DepthOut` | `oDepth` | `result.depth` |
//!
//! Each input and output register also has an [`ir::IoDecl`] giving its [`ir::Semantic`];
//! vertex outputs reach fragment inputs by semantic. Constant slots say where their value
//! comes from ([`ir::ConstBinding`]): a literal, a host-set `env`/`local` parameter (a D3D9
//! `c#` without `def` is `Env(#)`), or tracked GL state.
//!
//! Swizzles and write masks are per component ([`ir::Swizzle`], [`ir::WriteMask`]);
//! [`Inst::src_reads`] says exactly which components of which source an instruction reads
//! for a set of destination components, which is what per-component analyses walk.
//!
//! ## Front ends and printers
//! [`parse`] detects the dialect from the header (or takes [`ParseOptions::profile`]),
//! lexes, parses, resolves names and lowers to the IR, reporting every error it can find
//! as a [`Diagnostic`] with a span, message and hint. [`print`] writes a program back in its
//! own dialect; `parse(print(p))` equals `p` up to spans. [`print_with_spans`] also says
//! where each instruction and operand landed in the text ([`Printed`]). Parsing is linear
//! in the input.
//!
//! ## Profiles
//! [`profile::Profile`] says which operations exist where, what they cost in instruction
//! slots (Microsoft's tables for D3D9) and the default [`profile::Limits`]. ARB programs
//! take theirs from an [`ArbTarget`] (R300 by default; [`ParseOptions::with_target`]).
//!
//! ## Layers
//! A module imports only modules below it (`tests/structure.rs` checks that no two import
//! each other, directly or through others):
//!
//! 1. value types: [`span`], [`reg`] (registers, swizzles, masks), [`state`], [`printed`]
//!    (where the printers put instructions and operands);
//! 2. [`ops`], the opcode table, then [`profile`]: availability, slot costs, limits,
//!    register files per profile and operand counts; [`target`], the ARB implementations
//!    whose limits ARB programs may be held to;
//! 3. [`ir`], [`diag`] and [`semantics`];
//! 4. [`checks`]: IR invariants, availability and resource limits, for either dialect;
//! 5. the front ends [`arb`] and [`d3d9`], each with its own errors and operand rules,
//!    run together with the checks;
//! 6. [`validate`] (every check of a program of either dialect) and `translate` (feature
//!    `translate`, for tests and example generation);
//! 7. this root: [`parse`], [`print()`] and [`canonicalize`] by dialect.

pub mod arb;
pub mod checks;
pub mod d3d9;
pub mod diag;
pub mod hash;
pub mod ir;
pub mod ops;
pub mod printed;
pub mod profile;
pub mod reg;
pub mod semantics;
pub mod sort;
pub mod span;
pub mod state;
pub mod target;
#[cfg(feature = "translate")]
pub mod translate;
pub mod validate;

pub use diag::{Code, Diagnostic, Parsed, Severity};
pub use ir::{Dialect, Dst, Inst, Program, Reg, RegFile, Span, Src, Stage, Swizzle, WriteMask};
pub use ops::Op;
pub use printed::{InstSpans, Printed};
pub use profile::{Limits, Profile};
pub use target::ArbTarget;

/// Options for [`parse`].
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// Parse as this profile instead of detecting it from the header.
    pub profile: Option<Profile>,
    /// Limits to enforce instead of the profile's defaults.
    pub limits: Option<Limits>,
}

impl ParseOptions {
    /// These options with the limits of `target` for the program's profile (forced, or
    /// detected from `source`), unless limits are already set. D3D9 programs keep their
    /// profile's limits ([`Profile::limits_for`]).
    pub fn with_target(mut self, source: &str, target: ArbTarget) -> ParseOptions {
        if self.limits.is_none() {
            let profile = self.profile.or_else(|| detect_profile(source));
            self.limits = profile.map(|p| p.limits_for(target));
        }
        self
    }
}

/// The smallest target above `current` under whose limits the ARB program `source` parses
/// without errors, if any (for a hint when it exceeds `current`'s). `None` for D3D9.
pub fn fitting_target(
    source: &str,
    profile: Option<Profile>,
    current: ArbTarget,
) -> Option<ArbTarget> {
    let p = profile.or_else(|| detect_profile(source))?;
    if p.dialect() != Dialect::Arb {
        return None;
    }
    ArbTarget::ALL
        .into_iter()
        .filter(|t| *t > current)
        .find(|t| {
            let opts = ParseOptions {
                profile: Some(p),
                limits: Some(p.limits_for(*t)),
            };
            !diag::has_errors(&parse(source, &opts).diagnostics)
        })
}

/// Detects the profile from a program's header: the first token that is not a comment or
/// blank (`!!ARBvp1.0`, `!!ARBfp1.0`, `vs_2_0`, `ps.2.0`, ...).
pub fn detect_profile(source: &str) -> Option<Profile> {
    let mut rest = source.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if rest.starts_with(';') || rest.starts_with("//") || rest.starts_with('#') {
            rest = rest.find('\n').map_or("", |i| &rest[i + 1..]);
        } else if rest.starts_with("/*") {
            rest = rest.find("*/").map_or("", |i| &rest[i + 2..]);
        } else {
            break;
        }
    }
    if let Some(r) = rest.strip_prefix("!!") {
        return if r.starts_with("ARBvp1.0") {
            Some(Profile::ArbVp1)
        } else if r.starts_with("ARBfp1.0") {
            Some(Profile::ArbFp1)
        } else {
            None
        };
    }
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect::<String>()
        .to_ascii_lowercase()
        .replace('.', "_");
    Profile::ALL
        .into_iter()
        .find(|p| p.dialect() == Dialect::D3d9 && p.header() == word)
}

/// Parses a program of either dialect.
pub fn parse(source: &str, opts: &ParseOptions) -> Parsed {
    let profile = match opts.profile.or_else(|| detect_profile(source)) {
        Some(p) => p,
        None => {
            let end = source.find('\n').unwrap_or(source.len()).min(64);
            let mut end = end;
            while !source.is_char_boundary(end) {
                end -= 1;
            }
            return Parsed {
                program: None,
                diagnostics: vec![
                    Diagnostic::error(
                        diag::code!("E0001"),
                        "cannot tell which assembly language this is",
                        Span::new(0, end),
                    )
                    .with_label("expected a program header here")
                    .with_hint(
                        "start the program with `!!ARBvp1.0`, `!!ARBfp1.0`, `vs_1_1`, `vs_2_0`, \
                         `ps_2_0` or another vs_*/ps_* version",
                    ),
                ],
            };
        }
    };
    let limits = opts.limits.clone().unwrap_or_else(|| profile.limits());
    match profile.dialect() {
        Dialect::Arb => arb::parse(source, profile, &limits),
        Dialect::D3d9 => d3d9::parse(source, profile, &limits),
    }
}

/// Prints a program in its own dialect.
pub fn print(program: &Program) -> String {
    match program.dialect() {
        Dialect::Arb => arb::print(program),
        Dialect::D3d9 => d3d9::print(program),
    }
}

/// The dialect's operand rules for one instruction in the context of `program` (it need not
/// be part of it): errors only. ARB has no per-instruction operand restrictions beyond what
/// its parser enforces, so this is empty for ARB programs.
pub fn check_inst(program: &Program, inst: &Inst) -> Vec<Diagnostic> {
    match program.dialect() {
        Dialect::Arb => Vec::new(),
        Dialect::D3d9 => d3d9::check_inst(program, inst)
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect(),
    }
}

/// Puts a program's side tables in the order its front end produces, so that a program a
/// pass edited satisfies `parse(print(p)) == p` (ARB: declarations sorted by register;
/// D3D9: explicit `dcl`s first, then implicit registers in order of first use, the dense
/// constant table, `num_temps` = highest `r#` + 1, and `a0` counted when something uses it).
pub fn canonicalize(program: &mut Program) {
    match program.dialect() {
        Dialect::Arb => {
            crate::sort::by_key(&mut program.io, |d| d.reg);
            // `SWZ` sources carry no swizzle or sign in the text: fold both into the
            // component selectors (the constant selectors 0 and 1 keep their own sign).
            for inst in &mut program.insts {
                if let (Some(e), Some(s)) = (&mut inst.ext_swizzle, inst.src.first_mut()) {
                    for (sel, neg) in e.sel.iter_mut().zip(&mut e.neg) {
                        if let ir::ExtSel::Comp(c) = sel {
                            *c = s.swizzle.get(*c);
                            *neg ^= s.negate;
                        }
                    }
                    s.swizzle = Swizzle::IDENTITY;
                    s.negate = false;
                }
            }
        }
        Dialect::D3d9 => {
            d3d9::canonicalize(program);
            let mut hi = 0;
            for i in &program.insts {
                let regs = i
                    .dst
                    .iter()
                    .map(|d| d.reg)
                    .chain(i.src.iter().map(|s| s.reg));
                for r in regs.filter(|r| r.file == RegFile::Temp) {
                    hi = hi.max(r.index + 1);
                }
            }
            program.num_temps = hi;
            let uses_a0 = program.insts.iter().any(|i| {
                let dst = i
                    .dst
                    .iter()
                    .flat_map(|d| [Some(d.reg), d.rel.map(|r| r.reg)]);
                let src = i
                    .src
                    .iter()
                    .flat_map(|s| [Some(s.reg), s.rel.map(|r| r.reg)]);
                dst.chain(src).flatten().any(|r| r.file == RegFile::Address)
            });
            program.num_addrs = u16::from(uses_a0);
        }
    }
}

/// Prints a program with, for each instruction, the 0-based line it is printed on and the
/// byte ranges of its operands in that line. (The ARB printer may place `PARAM`
/// declarations between instructions to keep the parser's slot numbering; D3D9 writes
/// declarations first and one instruction per line.)
pub fn print_with_spans(program: &Program) -> Printed {
    match program.dialect() {
        Dialect::Arb => arb::print_with_spans(program),
        Dialect::D3d9 => d3d9::print_with_spans(program),
    }
}

/// Prints a program and returns, for each instruction, the 0-based line it is printed on.
pub fn print_with_lines(program: &Program) -> (String, Vec<usize>) {
    let p = print_with_spans(program);
    let lines = p.insts.iter().map(|i| i.line).collect();
    (p.text, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_headers_after_comments() {
        assert_eq!(detect_profile("!!ARBvp1.0\nEND"), Some(Profile::ArbVp1));
        assert_eq!(
            detect_profile("\u{feff}  !!ARBfp1.0"),
            Some(Profile::ArbFp1)
        );
        assert_eq!(
            detect_profile("; hi\n// x\n/* y */ ps_2_0\n"),
            Some(Profile::Ps2_0)
        );
        assert_eq!(detect_profile("VS.1.1\nmov oPos, v0"), Some(Profile::Vs1_1));
        assert_eq!(detect_profile("ps_1_4"), None);
        assert_eq!(detect_profile("!!ARBvp2.0"), None);
        assert_eq!(detect_profile(""), None);
    }

    #[test]
    fn unknown_header_is_a_diagnostic_not_a_panic() {
        let p = parse("\u{0}\u{1}garbage é", &ParseOptions::default());
        assert!(p.program.is_none());
        assert_eq!(p.diagnostics[0].code, "E0001");
    }
}
