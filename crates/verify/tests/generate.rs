//! The pair generator's contract: every pair parses, validates, links and renders; over
//! 2000 seeds every opcode of every profile a flavor uses appears in its stage, and so does
//! every compiler pattern the generator promises; and the same seed gives the same text.
//! Counts are printed (`--nocapture`).

use hoist_asm::ir::{ConstBinding, RegFile, Semantic, SymKind};
use hoist_asm::{Inst, Op, ParseOptions, Profile, Program, Stage};
use hoist_raster::{RenderConfig, render};
use hoist_verify::generate::{D3D9_PROFILES, Flavor, pair, textures};
use std::collections::{BTreeMap, BTreeSet};

const FLAVORS: [Flavor; 2] = [Flavor::Arb, Flavor::D3d9];

fn parse(text: &str, label: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => {
            let errs: Vec<String> = d
                .iter()
                .filter(|x| x.is_error())
                .map(|x| {
                    let at = (x.span.start as usize).min(text.len());
                    let line = text[..at].matches('\n').count();
                    let src = text.lines().nth(line).unwrap_or("");
                    format!("{} {} (line {}: `{src}`)", x.code, x.message, line + 1)
                })
                .collect();
            panic!("{label} does not parse:\n{}\n{text}", errs.join("\n"));
        }
    }
}

fn profiles(flavor: Flavor) -> Vec<Profile> {
    match flavor {
        Flavor::Arb => vec![Profile::ArbVp1, Profile::ArbFp1],
        Flavor::D3d9 => {
            let mut v: Vec<Profile> = D3D9_PROFILES.iter().flat_map(|&(a, b)| [a, b]).collect();
            v.dedup();
            v.sort_by_key(|p| p.id());
            v.dedup();
            v
        }
    }
}

/// Semantic of a vertex output as the executor links it.
fn out_semantic(p: &Program, file: RegFile, index: u16) -> Option<Semantic> {
    let reg = hoist_asm::Reg::new(file, index);
    p.semantic(reg).or(match (file, index) {
        (RegFile::RastOut, 0) => Some(Semantic::Position(0)),
        (RegFile::RastOut, 1) => Some(Semantic::Fog(0)),
        (RegFile::AttrOut, n) if n < 2 => Some(Semantic::Color(n as u8)),
        (RegFile::TexCrdOut, n) => Some(Semantic::TexCoord(n as u8)),
        _ => None,
    })
}

/// Components written per output semantic.
fn written(vp: &Program) -> BTreeMap<Semantic, u8> {
    let mut m: BTreeMap<Semantic, u8> = BTreeMap::new();
    for i in &vp.insts {
        if let Some(d) = &i.dst
            && let Some(s) = out_semantic(vp, d.reg.file, d.reg.index)
        {
            *m.entry(s).or_default() |= d.mask.0 & 15;
        }
    }
    m
}

/// Checks that the pair links: position written, and every component of every interpolant
/// the fragment program reads is written by the vertex program — or none is (an unwritten
/// interpolant, which the generator writes on purpose for the dead-varying pass).
fn check_link(vp: &Program, fp: &Program, label: &str) {
    let w = written(vp);
    let invariant = vp.has_option(&hoist_asm::ir::ArbOption::PositionInvariant);
    assert!(
        invariant || w.get(&Semantic::Position(0)).is_some_and(|&m| m == 15),
        "{label}: the vertex program does not write the whole position"
    );
    for inst in &fp.insts {
        for k in 0..inst.src.len() {
            let s = &inst.src[k];
            if !matches!(s.reg.file, RegFile::Input | RegFile::TexCoord) {
                continue;
            }
            let sem = fp.semantic(s.reg).expect("inputs are declared");
            let reads = inst.reads_of(k).0;
            let have = w.get(&sem).copied().unwrap_or(0);
            let have = if sem == Semantic::Fog(0) && have & 1 != 0 {
                15
            } else {
                have
            };
            assert!(
                reads & !have == 0 || have == 0,
                "{label}: the fragment program reads {sem:?} components {reads:#06b}, the vertex program writes {have:#06b}"
            );
        }
    }
}

#[test]
fn every_pair_parses_validates_links_and_renders() {
    let cfg = RenderConfig {
        width: 16,
        height: 16,
        ..Default::default()
    };
    for flavor in FLAVORS {
        let mut per_profile: BTreeMap<String, usize> = BTreeMap::new();
        let (mut insts_vp, mut insts_fp, mut covered) = (0usize, 0usize, 0u64);
        let n = 3000;
        for seed in 0..n {
            let p = pair(seed, flavor);
            let vp = parse(&p.vp, &format!("{} vp", p.label));
            let fp = parse(&p.fp, &format!("{} fp", p.label));
            assert_eq!(vp.stage(), Stage::Vertex, "{}", p.label);
            assert_eq!(fp.stage(), Stage::Fragment, "{}", p.label);
            check_link(&vp, &fp, &p.label);
            let r = render(Some(&vp), Some(&fp), &cfg)
                .unwrap_or_else(|e| panic!("{} does not render: {e}\n{}\n{}", p.label, p.vp, p.fp));
            covered += r.stats.fragment_invocations;
            insts_vp += vp.insts.len();
            insts_fp += fp.insts.len();
            *per_profile
                .entry(format!("{}+{}", vp.profile, fp.profile))
                .or_default() += 1;
        }
        println!(
            "{flavor:?}: {n} pairs parse, validate, link and render; mean {:.1} vertex and {:.1} fragment instructions; {:.0}% of pixels shaded; {per_profile:?}",
            insts_vp as f64 / n as f64,
            insts_fp as f64 / n as f64,
            100.0 * covered as f64 / (n * 256) as f64
        );
        assert!(
            covered > n * 200,
            "{flavor:?}: the quads leave most pixels unshaded"
        );
    }
}

/// Ops a profile offers that the generator must produce: all but flow control and predication.
fn expected_ops(p: Profile) -> BTreeSet<Op> {
    Op::all()
        .filter(|&op| p.has(op) && !op.is_flow() && !matches!(op, Op::Setp(_)))
        .collect()
}

#[test]
fn every_opcode_of_every_profile_appears() {
    let mut seen: BTreeMap<Profile, BTreeMap<Op, usize>> = BTreeMap::new();
    for flavor in FLAVORS {
        for seed in 0..2000 {
            let p = pair(seed, flavor);
            for text in [&p.vp, &p.fp] {
                let prog = parse(text, &p.label);
                let m = seen.entry(prog.profile).or_default();
                for i in &prog.insts {
                    *m.entry(i.op).or_default() += 1;
                }
            }
        }
    }
    let mut missing = Vec::new();
    for flavor in FLAVORS {
        for prof in profiles(flavor) {
            let counts = seen.get(&prof).cloned().unwrap_or_default();
            let want = expected_ops(prof);
            let row: Vec<String> = want
                .iter()
                .map(|op| {
                    format!(
                        "{}={}",
                        op_name(*op, prof),
                        counts.get(op).copied().unwrap_or(0)
                    )
                })
                .collect();
            println!("{prof} ({} ops): {}", want.len(), row.join(" "));
            for op in want {
                if !counts.contains_key(&op) {
                    missing.push(format!("{prof}: {op:?}"));
                }
            }
            for op in counts.keys() {
                assert!(prof.has(*op), "{prof} produced {op:?}, which it lacks");
            }
        }
    }
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

fn op_name(op: Op, p: Profile) -> &'static str {
    let i = op.info();
    if p.dialect() == hoist_asm::Dialect::Arb {
        i.arb
    } else {
        i.d3d
    }
    .unwrap_or("?")
}

/// The patterns a program shows (names as listed in the generator's brief).
fn patterns(p: &Program, text: &str) -> BTreeSet<String> {
    let mut s = BTreeSet::new();
    for (n, i) in p.insts.iter().enumerate() {
        modifier_patterns(i, &mut s);
        gpgpu_patterns(p, i, &mut s);
        sequence_patterns(p, n, &mut s);
    }
    output_patterns(p, &mut s);
    declaration_patterns(p, &mut s);
    text_patterns(p, text, &mut s);
    s
}

fn add(s: &mut BTreeSet<String>, k: &str) {
    s.insert(k.to_string());
}

/// Modifiers, swizzles, masks, relative addressing and texture targets of one instruction.
fn modifier_patterns(i: &Inst, s: &mut BTreeSet<String>) {
    let checks = [
        (i.sat, "_sat"),
        (i.pp, "_pp"),
        (i.src.iter().any(|x| x.negate), "negate"),
        (i.src.iter().any(|x| x.abs), "_abs"),
        (i.src.iter().any(|x| x.rel.is_some()), "relative addressing"),
        (
            i.src.iter().any(|x| x.swizzle.is_replicate()),
            "replicate swizzle",
        ),
        (
            i.dst.as_ref().is_some_and(|d| !d.mask.is_all()),
            "write mask",
        ),
        (
            matches!(i.op, Op::Dp3 | Op::Dp4 | Op::Dph)
                && i.src
                    .iter()
                    .any(|x| !x.swizzle.is_identity() && !x.swizzle.is_replicate()),
            "swizzled dot product",
        ),
    ];
    for (hit, k) in checks {
        if hit {
            add(s, k);
        }
    }
    if let Some(t) = i.tex {
        add(s, &format!("target {:?}", t.target));
    }
}

/// The movable work of GPGPU fragment programs: address arithmetic on interpolants and
/// literals, uniform helpers, dot products with parameters, uniform selectors.
fn gpgpu_patterns(p: &Program, i: &Inst, s: &mut BTreeSet<String>) {
    if p.stage() == Stage::Vertex {
        return;
    }
    let reads = |f: RegFile| i.src.iter().any(|x| x.reg.file == f);
    let interp = reads(RegFile::TexCoord)
        || (reads(RegFile::Input) && matches!(p.profile, Profile::ArbFp1 | Profile::Ps3_0));
    let literal =
        |x: &hoist_asm::Src| x.reg.file == RegFile::Const && p.literal(x.reg.index).is_some();
    let offset = |x: &hoist_asm::Src| {
        literal(x)
            && p.literal(x.reg.index).is_some_and(|v| {
                v.iter().filter(|c| **c != 0.0).count() == 1
                    && v.iter().any(|c| c.abs() < 0.05 && *c != 0.0)
            })
    };
    let checks = [
        (
            i.op == Op::Add && interp && i.src.iter().any(offset),
            "neighbour offset from interpolant",
        ),
        (
            i.op == Op::Mad && interp && i.src.iter().any(literal),
            "scaled coordinates (MAD)",
        ),
        (
            i.op == Op::Rcp && i.src[0].reg.file == RegFile::Const,
            "uniform helper RCP of a constant",
        ),
        (
            matches!(i.op, Op::Dp3 | Op::Dp4 | Op::Dph | Op::Dp2add)
                && interp
                && reads(RegFile::Const),
            "dot product of interpolant and parameter",
        ),
        (
            matches!(i.op, Op::Lrp | Op::Cmp | Op::CmpGe) && i.src[0].reg.file == RegFile::Const,
            "LRP/CMP with uniform selector",
        ),
    ];
    for (hit, k) in checks {
        if hit {
            add(s, k);
        }
    }
}

/// Patterns spanning instructions: partial writes read wider, dot products into an
/// output's components in reverse order, `mov r.xy, t#` feeding `texld r, r, s#`.
fn sequence_patterns(p: &Program, n: usize, s: &mut BTreeSet<String>) {
    let i = &p.insts[n];
    let d = i.dst.as_ref();
    if let Some(d) = d
        && d.reg.file == RegFile::Temp
        && !d.mask.is_all()
        && p.insts[n + 1..].iter().take(12).any(|j| {
            (0..j.src.len()).any(|k| j.src[k].reg == d.reg && j.reads_of(k).0 & !d.mask.0 != 0)
        })
    {
        add(s, "partial temp write then wider read");
    }
    if n + 2 < p.insts.len() && d.is_some_and(|d| d.reg.file.is_output()) {
        let w = &p.insts[n..n + 3];
        let same = w.iter().all(|j| {
            matches!(j.op, Op::Dp3 | Op::Dp4 | Op::Dph)
                && j.dst.as_ref().map(|x| x.reg) == d.map(|x| x.reg)
        });
        let masks: Vec<u8> = w.iter().map(|j| j.dst_lanes().0).collect();
        if same
            && masks[0] > masks[1]
            && masks[1] > masks[2]
            && masks.iter().all(|m| m.count_ones() == 1)
        {
            add(s, "reverse-order dot products into an output");
        }
    }
    if i.op == Op::Tex
        && p.dialect() == hoist_asm::Dialect::D3d9
        && let Some(c) = i.src.first()
        && c.reg.file == RegFile::Temp
        && d.is_some_and(|d| d.reg == c.reg)
        && p.insts[..n].iter().rev().take(4).any(|j| {
            j.op == Op::Mov
                && j.dst
                    .as_ref()
                    .is_some_and(|x| x.reg == c.reg && !x.mask.is_all())
                && j.src[0].reg.file == RegFile::TexCoord
        })
    {
        add(s, "mov r.xy, t# feeding texld r, r, s#");
    }
}

/// Outputs written one component at a time; the position by `MOV` or `m4x4`.
fn output_patterns(p: &Program, s: &mut BTreeSet<String>) {
    let mut single: BTreeMap<hoist_asm::Reg, usize> = BTreeMap::new();
    for d in p.insts.iter().filter_map(|i| i.dst.as_ref()) {
        let scalar = matches!(
            (d.reg.file, d.reg.index),
            (RegFile::RastOut, 1 | 2) | (RegFile::DepthOut, _)
        );
        if d.reg.file.is_output() && d.mask.count() == 1 && !scalar {
            *single.entry(d.reg).or_default() += 1;
        }
    }
    if single.values().any(|&c| c >= 2) {
        add(s, "output written per component");
    }
    let is_pos = |r: hoist_asm::Reg| {
        r.file.is_output()
            && (r == hoist_asm::Reg::new(RegFile::RastOut, 0)
                || p.semantic(r) == Some(Semantic::Position(0)))
    };
    for i in &p.insts {
        let Some(d) = &i.dst else { continue };
        if i.op == Op::Mov && is_pos(d.reg) && i.src[0].reg.file == RegFile::Input {
            add(s, "position by MOV");
        }
        if i.op == Op::M4x4 && d.reg.file.is_output() {
            add(s, "m4x4 into an output");
        }
    }
}

/// Constant bindings, ARB names and options, declared inputs and outputs.
fn declaration_patterns(p: &Program, s: &mut BTreeSet<String>) {
    let d3d = p.dialect() == hoist_asm::Dialect::D3d9;
    for c in &p.consts {
        match &c.binding {
            ConstBinding::Env(_) if !d3d => add(s, "program.env"),
            ConstBinding::Local(_) => add(s, "program.local"),
            ConstBinding::State(hoist_asm::state::StateRef::Matrix(..)) => add(s, "state.matrix"),
            ConstBinding::State(_) => add(s, "state.* (non-matrix)"),
            ConstBinding::Literal(_) if d3d => add(s, "def"),
            _ => {}
        }
    }
    for sym in &p.symbols {
        match sym.kind {
            SymKind::Param { array: true, .. } => add(s, "PARAM array"),
            SymKind::Attrib(_) => add(s, "ATTRIB alias"),
            SymKind::Output(_) => add(s, "OUTPUT alias"),
            _ => {}
        }
    }
    for o in &p.options {
        add(s, &format!("OPTION {o:?}"));
    }
    for io in &p.io {
        let out = io.reg.file.is_output();
        match (out, io.semantic) {
            (false, Semantic::Generic(_)) => add(s, "in attrib[n]"),
            (false, sem) => add(s, &format!("in {}", sem_name(sem))),
            (true, sem) => add(s, &format!("out {}", sem_name(sem))),
        }
        if d3d && !io.mask.is_all() && !out && p.stage() == Stage::Fragment {
            add(s, "partial dcl");
        }
        if io.interp != hoist_asm::ir::Interp::Perspective {
            add(s, "dcl _centroid");
        }
        for (file, name) in [
            (RegFile::TexCrdOut, "result.texcoord"),
            (RegFile::AttrOut, "result.color"),
        ] {
            if io.reg.file == file {
                add(s, &format!("{name}[{}]", io.reg.index));
            }
        }
    }
    let units: BTreeSet<u8> = p
        .insts
        .iter()
        .filter_map(|i| i.tex.map(|t| t.unit))
        .collect();
    if units.len() >= 2 {
        add(s, "several texture units");
    }
}

/// Spellings only the text shows.
fn text_patterns(p: &Program, text: &str, s: &mut BTreeSet<String>) {
    if p.stage() != Stage::Vertex {
        return;
    }
    if text.contains("state.matrix.mvp.row[") && !text.contains("PARAM mvp") {
        add(s, "position by DP4 rows of state.matrix.mvp");
    }
    if text.contains("PARAM mvp[4] = { state.matrix.mvp };") {
        add(s, "PARAM mvp[4] = { state.matrix.mvp }");
    }
}

fn sem_name(s: Semantic) -> String {
    format!("{s:?}")
        .split('(')
        .next()
        .unwrap_or("?")
        .to_string()
}

/// Patterns every flavor must show in at least one of 2000 pairs, per profile.
fn promised(flavor: Flavor, p: Profile) -> Vec<String> {
    let mut v: Vec<&str> = vec![
        "write mask",
        "replicate swizzle",
        "negate",
        "swizzled dot product",
        "partial temp write then wider read",
    ];
    let vs = p.stage() == Stage::Vertex;
    match (flavor, vs) {
        (Flavor::Arb, true) => v.extend([
            "position by DP4 rows of state.matrix.mvp",
            "PARAM mvp[4] = { state.matrix.mvp }",
            "position by MOV",
            "OPTION PositionInvariant",
            "output written per component",
            "reverse-order dot products into an output",
            "PARAM array",
            "state.matrix",
            "state.* (non-matrix)",
            "program.env",
            "program.local",
            "ATTRIB alias",
            "OUTPUT alias",
            "relative addressing",
            "out Color",
            "out Fog",
            "out PointSize",
            "out TexCoord",
            "result.color[1]",
            "in attrib[n]",
            "in Normal",
            "in Color",
            "in TexCoord",
            "in Fog",
            "in BlendWeight",
        ]),
        (Flavor::Arb, false) => v.extend([
            "_sat",
            "OPTION PrecisionHintFastest",
            "OPTION PrecisionHintNicest",
            "target T1D",
            "target T2D",
            "target T3D",
            "target Cube",
            "target Rect",
            "in WindowPos",
            "in Color",
            "in TexCoord",
            "in Fog",
            "state.* (non-matrix)",
            "program.env",
            "program.local",
            "out Color",
            "out Depth",
            "neighbour offset from interpolant",
            "scaled coordinates (MAD)",
            "uniform helper RCP of a constant",
            "dot product of interpolant and parameter",
            "LRP/CMP with uniform selector",
            "several texture units",
            "output written per component",
        ]),
        (Flavor::D3d9, true) => {
            v.extend([
                "def",
                "relative addressing",
                "output written per component",
                "reverse-order dot products into an output",
                "m4x4 into an output",
                "position by MOV",
                "out TexCoord",
                "out Color",
            ]);
            if p == Profile::Vs3_0 {
                v.extend(["_sat", "_abs"]);
            }
        }
        (Flavor::D3d9, false) => {
            v.extend([
                "_pp",
                "def",
                "target T2D",
                "target Cube",
                "target T3D",
                "neighbour offset from interpolant",
                "scaled coordinates (MAD)",
                "dot product of interpolant and parameter",
                "LRP/CMP with uniform selector",
                "several texture units",
                "partial dcl",
                "in TexCoord",
                "in Color",
                "out Color",
                "out Depth",
                "_sat",
            ]);
            if p == Profile::Ps3_0 {
                v.extend([
                    "_abs",
                    "in WindowPos",
                    "in Fog",
                    "output written per component",
                ]);
            } else {
                v.push("mov r.xy, t# feeding texld r, r, s#");
            }
        }
    }
    v.into_iter().map(String::from).collect()
}

#[test]
fn every_promised_pattern_appears() {
    let mut missing = Vec::new();
    for flavor in FLAVORS {
        let mut seen: BTreeMap<Profile, BTreeMap<String, usize>> = BTreeMap::new();
        let mut pairs: BTreeMap<String, usize> = BTreeMap::new();
        for seed in 0..2000 {
            let p = pair(seed, flavor);
            let mut profs = Vec::new();
            for text in [&p.vp, &p.fp] {
                let prog = parse(text, &p.label);
                profs.push(prog.profile.to_string());
                let m = seen.entry(prog.profile).or_default();
                for k in patterns(&prog, text) {
                    *m.entry(k).or_default() += 1;
                }
            }
            *pairs.entry(profs.join("+")).or_default() += 1;
        }
        println!("{flavor:?} profile pairs: {pairs:?}");
        if flavor == Flavor::D3d9 {
            for (a, b) in D3D9_PROFILES {
                if !pairs.contains_key(&format!("{a}+{b}")) {
                    missing.push(format!("profile pair {a}+{b}"));
                }
            }
        }
        for prof in profiles(flavor) {
            let got = seen.get(&prof).cloned().unwrap_or_default();
            let row: Vec<String> = got.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            println!("{prof}: {}", row.join(", "));
            for k in promised(flavor, prof) {
                if !got.contains_key(&k) {
                    missing.push(format!("{prof}: {k}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "patterns never generated: {missing:?}");
}

#[test]
fn same_seed_same_text_and_seeds_differ() {
    for flavor in FLAVORS {
        let mut distinct = BTreeSet::new();
        for seed in [0, 1, 2, 17, 99, 12345, u64::MAX] {
            let a = pair(seed, flavor);
            let b = pair(seed, flavor);
            assert_eq!(a, b, "seed {seed} is not deterministic");
            distinct.insert(a.fp.clone());
        }
        assert_eq!(
            distinct.len(),
            7,
            "{flavor:?}: different seeds gave equal programs"
        );
    }
}

/// CPU time this thread has used (Linux `schedstat`), so that the rate below does not
/// depend on how busy the machine is; `None` elsewhere.
#[test]
fn values_stay_mostly_finite() {
    for flavor in FLAVORS {
        let n = 1000;
        let (mut all_bad, mut some_bad, mut bad_px, mut px, mut varied) = (0, 0, 0u64, 0u64, 0);
        for seed in 0..n {
            let p = pair(seed, flavor);
            let vp = parse(&p.vp, &p.label);
            let fp = parse(&p.fp, &p.label);
            let mut cfg = RenderConfig {
                width: 16,
                height: 16,
                textures: textures(&fp),
                ..Default::default()
            };
            for (k, stage) in [
                (0u16, &mut cfg.params.vertex),
                (1, &mut cfg.params.fragment),
            ] {
                for i in 0..32u16 {
                    let v = |j: u16| ((i * 7 + j * 3 + k) % 9) as f32 / 4.0 - 1.0;
                    stage.env.insert(i, [v(0), v(1), v(2), v(3)]);
                    stage.local.insert(i, [v(1), v(2), v(3), v(0)]);
                }
            }
            let img = render(Some(&vp), Some(&fp), &cfg).expect("renders").image;
            let st = img.stats();
            px += img.pixels.len() as u64;
            bad_px += st.nonfinite;
            if st.nonfinite as usize == img.pixels.len() {
                all_bad += 1;
            }
            if st.nonfinite > 0 {
                some_bad += 1;
            }
            if (0..4).any(|c| st.max[c] > st.min[c]) {
                varied += 1;
            }
        }
        println!(
            "{flavor:?}: {:.2}% non-finite pixels; of {n} pairs {some_bad} have some, {all_bad} have no finite pixel; {varied} images vary",
            100.0 * bad_px as f64 / px as f64
        );
        assert!(
            all_bad * 50 <= n,
            "{flavor:?}: {all_bad} pairs of {n} are entirely NaN/Inf"
        );
        assert!(
            varied * 2 >= n,
            "{flavor:?}: only {varied} of {n} images vary"
        );
    }
}

#[test]
fn textures_cover_every_sampled_unit() {
    for seed in 0..200 {
        let p = pair(seed, Flavor::Arb);
        let fp = parse(&p.fp, &p.label);
        let t = textures(&fp);
        for i in &fp.insts {
            if let Some(r) = i.tex {
                assert!(
                    t.contains_key(&r.unit),
                    "{}: unit {} has no texture",
                    p.label,
                    r.unit
                );
            }
        }
    }
}
