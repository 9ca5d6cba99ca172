//! Text filetests, one directory per pass: `tests/filetests/<pass>/*.test`.
//!
//! A file is a header, then sections that start with `=== name`:
//!
//! ```text
//! ; test copy_prop stage=fp
//! ; One line or more saying what the case shows.
//! === vp
//! !!ARBvp1.0 ...
//! === fp
//! !!ARBfp1.0 ...
//! === expected
//! (what the pass made of it)
//! ```
//!
//! Instructions carry provenance through a trailing comment: `@moved`, `@added:transport`,
//! `@added:materialize` (and the other [`AddedFor`] names); unmarked ones are original. The
//! harness runs the named pass exactly as the pipeline wires it (same predicates, from
//! `hoist_opt::pipeline`) and prints the result: each instruction with its provenance (`->`
//! moved, `+` added, `*` an operand changed), then the pass's progress flag and anything
//! else it reports. `BLESS=1 cargo test -p hoist-opt --test filetests` rewrites the expected
//! sections; review the diff.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::{ParseOptions, Program};
use hoist_opt::analysis::liveness::{Legend, Liveness};
use hoist_opt::passes::{
    commute, copy_prop, dce, fit, fold, fp_to_vp, legalize, renumber, retarget, slp, tex_rename,
    varying_dead,
};
use hoist_opt::pipeline::{
    fragment_live_out, fragment_swizzle_ok, is_materialize, vertex_operand_legal, vp_live_out,
};
use hoist_opt::{AddedFor, Line, Options, Prov, tracked::Tracked};
use std::fmt::Write;
use std::path::{Path, PathBuf};

struct Case {
    pass: String,
    args: Vec<(String, String)>,
    header: Vec<String>,
    vp: Option<String>,
    fp: Option<String>,
    expected: String,
}

fn parse_case(text: &str) -> Result<Case, String> {
    let mut case = Case {
        pass: String::new(),
        args: Vec::new(),
        header: Vec::new(),
        vp: None,
        fp: None,
        expected: String::new(),
    };
    let mut section: Option<String> = None;
    let mut body = String::new();
    let finish = |section: &Option<String>, body: &mut String, case: &mut Case| {
        let b = std::mem::take(body);
        match section.as_deref() {
            Some("vp") => case.vp = Some(b),
            Some("fp") => case.fp = Some(b),
            Some("expected") => case.expected = b,
            Some(other) => return Err(format!("unknown section `{other}`")),
            None => {}
        }
        Ok(())
    };
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("=== ") {
            finish(&section, &mut body, &mut case)?;
            section = Some(name.trim().to_string());
            continue;
        }
        match section {
            None => {
                case.header.push(line.to_string());
                if let Some(rest) = line.strip_prefix("; test ") {
                    let mut words = rest.split_whitespace();
                    case.pass = words.next().unwrap_or_default().to_string();
                    for w in words {
                        let (k, v) = w.split_once('=').ok_or(format!("bad option `{w}`"))?;
                        case.args.push((k.into(), v.into()));
                    }
                }
            }
            Some(_) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    finish(&section, &mut body, &mut case)?;
    if case.pass.is_empty() {
        return Err("no `; test <pass>` line".into());
    }
    Ok(case)
}

fn arg<'a>(case: &'a Case, key: &str) -> Option<&'a str> {
    case.args
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn parse(text: &str) -> Result<Program, String> {
    hoist_asm::parse(text, &ParseOptions::default())
        .into_result()
        .map_err(|d| hoist_asm::diag::render(&d, "case", text, false))
}

/// A program with provenance read from `@` annotations in trailing comments. Programs in
/// the middle of the pipeline may break a profile rule that a later pass fixes (legalize),
/// so any program the front end could lower is accepted.
fn tracked(text: &str) -> Result<Tracked, String> {
    let parsed = hoist_asm::parse(text, &ParseOptions::default());
    let p = parsed
        .program
        .ok_or_else(|| hoist_asm::diag::render(&parsed.diagnostics, "case", text, false))?;
    let mut t = Tracked::new(p);
    for (i, inst) in t.program.insts.iter_mut().enumerate() {
        let Some(c) = inst.comment.take() else {
            continue;
        };
        let Some(tag) = c.split_whitespace().find_map(|w| w.strip_prefix('@')) else {
            inst.comment = Some(c);
            continue;
        };
        t.lines[i].prov = match tag {
            "moved" => Prov::Moved { index: i as u32 },
            _ => {
                let why = match tag.strip_prefix("added:") {
                    Some("save") => AddedFor::Save,
                    Some("transport") => AddedFor::Transport,
                    Some("materialize") => AddedFor::Materialize,
                    Some("gather") => AddedFor::Gather,
                    Some("legalize") => AddedFor::Legalize,
                    Some("lowering") => AddedFor::Lowering,
                    Some("remat") => AddedFor::Rematerialize,
                    _ => return Err(format!("unknown annotation `@{tag}`")),
                };
                Prov::Added { why, index: None }
            }
        };
    }
    Ok(t)
}

/// The program with each instruction's provenance in front of it.
fn show(t: &Tracked) -> String {
    let (text, rows) = hoist_asm::print_with_lines(&t.program);
    let mut out = String::new();
    for (row, l) in text.lines().enumerate() {
        let mark = match rows.iter().position(|&r| r == row).map(|i| t.lines[i]) {
            Some(Line { prov, changed }) => {
                let m = match prov {
                    Prov::Original { .. } => "  ",
                    Prov::Moved { .. } => "->",
                    Prov::Added { .. } => "+ ",
                };
                format!("{m}{}", if changed != 0 { "*" } else { " " })
            }
            None => "   ".into(),
        };
        let _ = writeln!(out, "{mark} {l}");
    }
    out
}

fn need<'a>(p: &'a Option<String>, what: &str) -> Result<&'a str, String> {
    p.as_deref()
        .ok_or(format!("this pass needs a `=== {what}` section"))
}

/// Runs the case's pass; returns the text to compare with the expected section.
fn run(case: &Case) -> Result<String, String> {
    let stage_fp = arg(case, "stage") != Some("vp");
    let mut out = String::new();
    match case.pass.as_str() {
        "copy_prop" if stage_fp => {
            let mut t = tracked(need(&case.fp, "fp")?)?;
            let profile = t.program.profile;
            let progress = copy_prop::run(&mut t, &is_materialize, &|_| true, &|p, j, k, s| {
                fragment_swizzle_ok(profile, &p.insts[j], k, s)
            });
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "copy_prop" => {
            let mut t = tracked(need(&case.vp, "vp")?)?;
            let progress = copy_prop::run(
                &mut t,
                &|l, _| !l.is_original(),
                &|l| !l.is_original(),
                &vertex_operand_legal,
            );
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "dce" if stage_fp => {
            let mut t = tracked(need(&case.fp, "fp")?)?;
            let progress = dce::run(&mut t, &fragment_live_out, &|l| !l.is_original());
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "dce" => {
            let mut t = tracked(need(&case.vp, "vp")?)?;
            let fp = parse(need(&case.fp, "fp")?)?;
            let live = vp_live_out(&t.program, &fp);
            let all = arg(case, "removable") == Some("all");
            let progress = dce::run(&mut t, &live, &|l| all || !l.is_original());
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "fold" => {
            let mut t = tracked(need(&case.vp, "vp")?)?;
            let consts = t.program.profile.limits().consts;
            let progress = fold::run(&mut t, consts, &vertex_operand_legal);
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "mad_fuse" | "dot_product" | "tex_dedup" => {
            let src = if stage_fp { &case.fp } else { &case.vp };
            let mut t = tracked(need(src, "program")?)?;
            let limits = t.program.profile.limits();
            let progress = match case.pass.as_str() {
                "mad_fuse" => hoist_opt::passes::mad_fuse::run(&mut t, &limits),
                "dot_product" => hoist_opt::passes::dot_product::run(&mut t, &limits),
                _ => hoist_opt::passes::tex_dedup::run(&mut t, &limits),
            };
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "retarget" => {
            let mut t = tracked(need(&case.vp, "vp")?)?;
            let progress = retarget::run(&mut t);
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "legalize" => {
            // Profiles never accept what legalize fixes, so its input comes from a motion.
            let mut t = motion(case)?.map_err(|e| e.to_string())?.vp;
            let limits = t.program.profile.limits();
            let progress = legalize::run(&mut t, &limits);
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "tex_rename" => {
            // The parser rejects programs over the limit, so the input is a pair whose
            // motion and fragment clean-up (as the pipeline runs them) raise an order.
            let mut t = motion(case)?.map_err(|e| e.to_string())?.fp;
            let profile = t.program.profile;
            copy_prop::run(&mut t, &is_materialize, &|_| true, &|p, j, k, s| {
                fragment_swizzle_ok(profile, &p.insts[j], k, s)
            });
            dce::run(&mut t, &fragment_live_out, &|l| !l.is_original());
            let _ = write!(out, "before:\n{}after:\n", show(&t));
            let limits = t.program.profile.limits();
            let levels = limits.max_tex_indirections.unwrap_or(4) as i32;
            let progress = tex_rename::run(&mut t, levels - 1, limits.temps);
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "commute" => {
            let vp = parse(need(&case.vp, "vp")?)?;
            let mut t = tracked(need(&case.fp, "fp")?)?;
            let a = hoist_opt::analyze(&vp, &t.program, &Options::default());
            let du = a.fp_du.as_ref().ok_or("flow control")?;
            let m = &a.movability;
            let fp = t.program.clone();
            let movable_src = |j: usize, k: usize| {
                du.reads(j)
                    .iter()
                    .filter(|r| r.src as usize == k)
                    .all(|r| match r.def {
                        Some(d) => m.movable(d as usize),
                        None => !r.reg.file.is_input() || a.interp.written(r.reg, r.comp),
                    })
                    && fp.insts[j].src[k].reg.file != hoist_asm::RegFile::Misc
            };
            let done = commute::run(&mut t, du, m, &movable_src);
            let _ = writeln!(out, "{}rewritten movs: {done:?}", show(&t));
        }
        "fp_to_vp" | "lower" => match motion(case)? {
            Ok(m) => {
                let _ = writeln!(out, "--- vp\n{}--- fp\n{}", show(&m.vp), show(&m.fp));
                for t in &m.transports {
                    let _ = writeln!(
                        out,
                        "transport: instruction {} .{} in texcoord[{}].{}",
                        t.inst + 1,
                        hoist_asm::ir::COMP_NAMES[t.comp as usize],
                        t.texcoord,
                        hoist_asm::ir::COMP_NAMES[t.slot as usize]
                    );
                }
                for mi in &m.mirrors {
                    let _ = writeln!(out, "mirror: {:?} <- {:?}", mi.vertex, mi.fragment);
                }
            }
            Err(e) => {
                let _ = writeln!(out, "infeasible: {e}");
            }
        },
        "renumber" | "fit" => {
            let src = if stage_fp { &case.fp } else { &case.vp };
            let mut t = tracked(need(src, "program")?)?;
            let mut limits = t.program.profile.limits();
            if let Some(n) = arg(case, "temps") {
                limits.temps = n.parse().map_err(|_| "temps=N")?;
            }
            let from = t.program.num_temps;
            let how = if case.pass == "renumber" {
                let progress = renumber::run(&mut t, limits.temps);
                format!("progress: {progress}")
            } else {
                match fit::run(&mut t, &limits, 1.0) {
                    Ok(Some(how)) => format!("fit: {}", how.describe()),
                    Ok(None) => "fit: already fits".into(),
                    Err(()) => "fit: none found".into(),
                }
            };
            let round = parse(&hoist_asm::print(&t.program))?;
            let same = round.eq_ignoring_spans(&t.program);
            let _ = writeln!(
                out,
                "{}{how}\ntemps: {from} -> {}\nround trip: {same}",
                show(&t),
                t.program.num_temps
            );
        }
        "slp" => {
            let text = if stage_fp { &case.fp } else { &case.vp };
            let mut t = tracked(need(text, if stage_fp { "fp" } else { "vp" })?)?;
            let merges = slp::merge(&mut t);
            let _ = writeln!(out, "{}merges: {merges}", show(&t));
        }
        "liveness" => {
            let p = parse(need(if stage_fp { &case.fp } else { &case.vp }, "program")?)?;
            let legend = Legend::from_name(arg(case, "legend").unwrap_or("thesis"))
                .ok_or("legend is thesis or rga")?;
            let l = Liveness::compute(&p, p.profile.limits().temps);
            out.push_str(&l.listing(&p, legend));
            for (what, row, reg, comp) in hover_cells(case, &l)? {
                let one = |v: &[u32]| {
                    v.iter()
                        .map(|i| (i + 1).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = match l.value(row, reg, comp) {
                    Some(v) => writeln!(
                        out,
                        "value {what}: written at {}, read at {}",
                        one(&v.defs),
                        one(&v.uses)
                    ),
                    None => writeln!(out, "value {what}: empty"),
                };
            }
        }
        "varying_dead" | "varying_const" | "varying_dedup" if stage_fp => {
            out = varying_prepass(case)?;
        }
        "varying_dead" => {
            let mut t = tracked(need(&case.vp, "vp")?)?;
            let fp = parse(need(&case.fp, "fp")?)?;
            let progress = varying_dead::run_vertex(&mut t, &fp);
            let _ = writeln!(out, "{}progress: {progress}", show(&t));
        }
        "varying_uniform" | "varying_pack" => match motion(case)? {
            Ok(m) => {
                let _ = writeln!(out, "--- vp\n{}--- fp\n{}", show(&m.vp), show(&m.fp));
                for c in &m.carries {
                    let what = match c.carries {
                        fp_to_vp::Carried::Input { semantic, comp } => {
                            format!("{semantic:?}.{}", hoist_asm::ir::COMP_NAMES[comp as usize])
                        }
                        fp_to_vp::Carried::Moved { inst, comp } => format!(
                            "instruction {} .{}",
                            inst + 1,
                            hoist_asm::ir::COMP_NAMES[comp as usize]
                        ),
                    };
                    let _ = writeln!(
                        out,
                        "texcoord[{}].{} carries {what}",
                        c.texcoord,
                        hoist_asm::ir::COMP_NAMES[c.slot as usize]
                    );
                }
                let _ = writeln!(
                    out,
                    "packing: {}, {}",
                    if m.exact_packing {
                        "exact"
                    } else {
                        "greedy split"
                    },
                    if m.relocated { "relocated" } else { "in place" }
                );
                for c in &m.changes {
                    let _ = writeln!(out, "{}: {}: {}", c.pass, c.input, c.what);
                }
                for mi in &m.mirrors {
                    let _ = writeln!(out, "mirror: {mi:?}");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "infeasible: {e}");
            }
        },
        other => return Err(format!("unknown pass `{other}`")),
    }
    Ok(out)
}

/// The fragment side of a varying pass that runs before the analysis (`varying_dead`,
/// `varying_const`, `varying_dedup`): the rewritten program, progress, what the pass did
/// or refused (with why), and the fragment copies of vertex parameters it asked for.
fn varying_prepass(case: &Case) -> Result<String, String> {
    use hoist_opt::analysis::{defuse::DefUse, interp::InterpMap, varyings};
    let vp = parse(need(&case.vp, "vp")?)?;
    let mut t = tracked(need(&case.fp, "fp")?)?;
    let vp_du = DefUse::compute(&vp).ok();
    let interp = InterpMap::compute(&vp, vp_du.as_ref(), &t.program);
    let facts = varyings::Varyings::compute(&vp, vp_du.as_ref(), &t.program, &interp);
    let limits = t.program.profile.limits();
    let cx = varyings::PassCx {
        vp: &vp,
        facts: &facts,
        fp_limits: &limits,
        mirror_params: arg(case, "mirror") == Some("true"),
    };
    let (mut log, mut mirrors) = (Vec::new(), Vec::new());
    let progress = match case.pass.as_str() {
        "varying_dead" => varying_dead::run(&mut t, &cx, &mut log),
        "varying_const" => {
            hoist_opt::passes::varying_const::run(&mut t, &cx, &mut log, &mut mirrors)
        }
        _ => hoist_opt::passes::varying_dedup::run(&mut t, &cx, &mut log),
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}progress: {progress}", show(&t));
    for c in &log {
        let at = c
            .inst
            .map_or(String::new(), |i| format!(" (instruction {})", i + 1));
        let done = if c.done { "done" } else { "refused" };
        let _ = writeln!(out, "{done}: {}{at}: {}", c.input, c.what);
    }
    for m in &mirrors {
        let _ = writeln!(out, "mirror: {m:?}");
    }
    Ok(out)
}

/// Cells named by `value=ROW:REG.COMP` options (1-based rows), for their hover text.
fn hover_cells(case: &Case, l: &Liveness) -> Result<Vec<(String, usize, usize, u8)>, String> {
    let mut out = Vec::new();
    for (_, v) in case.args.iter().filter(|(k, _)| k == "value") {
        let bad = || format!("bad value `{v}`");
        let (row, rest) = v.split_once(':').ok_or_else(bad)?;
        let (reg, comp) = rest.split_once('.').ok_or_else(bad)?;
        let row: usize = row.parse().map_err(|_| bad())?;
        let reg = l.names.iter().position(|n| n == reg).ok_or_else(bad)?;
        let comp = "xyzw".find(comp).ok_or_else(bad)? as u8;
        out.push((v.clone(), row.checked_sub(1).ok_or_else(bad)?, reg, comp));
    }
    Ok(out)
}

/// The motion of the case's pair: `select=all` (default) moves every movable instruction,
/// `select=1,3` those (1-based) instructions.
fn motion(case: &Case) -> Result<Result<fp_to_vp::Motion, fp_to_vp::Infeasible>, String> {
    let vp = parse(need(&case.vp, "vp")?)?;
    let fp = parse(need(&case.fp, "fp")?)?;
    let opts = Options {
        lower: case.pass == "lower" || arg(case, "lower") != Some("false"),
        mirror_params: arg(case, "mirror") == Some("true"),
        ..Options::default()
    };
    let a = hoist_opt::analyze(&vp, &fp, &opts);
    let selected: Vec<bool> = match arg(case, "select") {
        None | Some("all") => (0..fp.insts.len())
            .map(|i| a.movability.movable(i))
            .collect(),
        Some("none") => vec![false; fp.insts.len()],
        Some(list) => {
            let pick: Vec<usize> = list
                .split(',')
                .map(|n| n.parse::<usize>().map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            (1..=fp.insts.len()).map(|i| pick.contains(&i)).collect()
        }
    };
    let (mut vp_limits, mut fp_limits) = (vp.profile.limits(), fp.profile.limits());
    if let Some(n) = arg(case, "texcoords") {
        let n: u8 = n.parse().map_err(|_| "texcoords=N")?;
        vp_limits.texcoords = n;
        fp_limits.texcoords = n;
    }
    let lines: Vec<Line> = (0..fp.insts.len()).map(Line::original).collect();
    let input = fp_to_vp::Input {
        vp: &vp,
        fp: &fp,
        vp_du: a.vp_du.as_ref().ok_or("flow control")?,
        fp_du: a.fp_du.as_ref().ok_or("flow control")?,
        interp: &a.interp,
        movability: &a.movability,
        vp_limits: &vp_limits,
        fp_limits: &fp_limits,
        facts: &a.facts,
        fp_lines: &lines,
        reverse: &[],
        relocate: arg(case, "relocate") != Some("false"),
        recompute: (4, (arg(case, "cost") == Some("modern")).then_some(0.5)),
        mirror_params: opts.mirror_params,
    };
    Ok(fp_to_vp::run(&input, &selected))
}

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("tests/filetests exists") {
        let dir = dir.expect("entry").path();
        // `r600/` holds the machine model's bundle tests, run by `tests/r600.rs`.
        if !dir.is_dir() || dir.ends_with("r600") {
            continue;
        }
        for f in std::fs::read_dir(&dir).expect("pass directory") {
            let f = f.expect("entry").path();
            if f.extension().is_some_and(|e| e == "test") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// Passes every filetest directory must cover.
const PASSES: [&str; 20] = [
    "commute",
    "liveness",
    "copy_prop",
    "dce",
    "dot_product",
    "mad_fuse",
    "tex_dedup",
    "fold",
    "fp_to_vp",
    "legalize",
    "lower",
    "retarget",
    "slp",
    "tex_rename",
    "pipeline",
    "varying_dead",
    "varying_const",
    "varying_dedup",
    "varying_uniform",
    "varying_pack",
];

#[test]
fn filetests() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failed = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    let files = files();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        let case = match parse_case(&text) {
            Ok(c) => c,
            Err(e) => {
                failed.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let dir = path
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str());
        covered.insert(dir.unwrap_or_default().to_string());
        let got = if case.pass == "pipeline" {
            pipeline(&case)
        } else {
            run(&case)
        };
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                failed.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        if got == case.expected {
            continue;
        }
        if bless {
            let mut new = case.header.join("\n");
            new.push('\n');
            for (name, body) in [("vp", &case.vp), ("fp", &case.fp)] {
                if let Some(b) = body {
                    let _ = write!(new, "=== {name}\n{b}");
                }
            }
            let _ = write!(new, "=== expected\n{got}");
            std::fs::write(path, new).expect("writable");
        } else {
            failed.push(format!(
                "{}: output differs (BLESS=1 to accept)\n--- expected\n{}--- got\n{}",
                path.display(),
                case.expected,
                got
            ));
        }
    }
    println!("filetests: {} files", files.len());
    let missing: Vec<&str> = PASSES
        .iter()
        .copied()
        .filter(|p| !covered.contains(*p))
        .collect();
    assert!(missing.is_empty(), "passes without filetests: {missing:?}");
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// `; test pipeline`: the whole optimizer under default options (plus `key=value` options);
/// prints both optimized programs, the fate of every fragment instruction and the stats.
fn pipeline(case: &Case) -> Result<String, String> {
    let vp = parse(need(&case.vp, "vp")?)?;
    let fp = parse(need(&case.fp, "fp")?)?;
    let opts = Options {
        vp_cleanup: arg(case, "vp_cleanup") != Some("false"),
        mirror_params: arg(case, "mirror") == Some("true"),
        slp: arg(case, "slp") == Some("true"),
        ..Options::default()
    };
    let o = hoist_opt::optimize(&vp, &fp, &opts).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let vt = Tracked {
        program: o.vp.clone(),
        lines: o.vp_lines.clone(),
    };
    let ft = Tracked {
        program: o.fp.clone(),
        lines: o.fp_lines.clone(),
    };
    let _ = writeln!(out, "--- vp\n{}--- fp\n{}", show(&vt), show(&ft));
    for (i, f) in o.fates.iter().enumerate() {
        let what = match f {
            hoist_opt::Fate::Moved { group } => format!("moved (group {group:?})"),
            hoist_opt::Fate::Stays { reason } => format!("stays: {}", reason.describe(&|i| i + 1)),
        };
        let _ = writeln!(out, "{}: {what}", i + 1);
    }
    if opts.slp {
        let _ = writeln!(out, "slp merges (vp, fp): {:?}", o.slp_merges);
    }
    let _ = writeln!(
        out,
        "F {} -> {}, V {} -> {}",
        o.before.fp_slots.total(),
        o.after.fp_slots.total(),
        o.before.vp_slots.total(),
        o.after.vp_slots.total()
    );
    Ok(out)
}
