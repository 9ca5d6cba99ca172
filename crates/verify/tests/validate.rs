//! Translation validation on the reproducers of issue "Optimizer trust", the paper's
//! examples, and outcomes broken on purpose (each check must catch its kind of error).
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ir::ConstBinding;
use hoist_asm::{ParseOptions, Program};
use hoist_opt::Options;
use hoist_verify::{Check, Config, Status};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn parse(text: &str) -> Program {
    match hoist_asm::parse(text, &ParseOptions::default()).into_result() {
        Ok(p) => p,
        Err(d) => panic!("{}", hoist_asm::diag::render(&d, "test", text, false)),
    }
}

fn pair(name: &str) -> (Program, Program) {
    let dir = repo().join("crates/verify/tests/pairs");
    let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
    (parse(&read("vp")), parse(&read("fp")))
}

/// Every pair in `tests/pairs` (the issue's reproducers and what the soak found), under
/// its options (`<name>.json`, else the defaults): optimized, validated with no group
/// rejected, printed and re-parsed, and checked again on fresh inputs.
#[test]
fn regression_pairs_validate_without_rejections() {
    let dir = repo().join("crates/verify/tests/pairs");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "fp").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 8, "{names:?}");
    let mut tally = hoist_verify::soak::Tally::default();
    for name in &names {
        let (vp, fp) = pair(name);
        let opts: Options = std::fs::read_to_string(dir.join(format!("{name}.json")))
            .map(|j| serde_json::from_str(&j).expect("options parse"))
            .unwrap_or_default();
        let fresh = Config {
            seed: 99,
            render_size: 32,
        };
        tally.pairs += 1;
        hoist_verify::soak::check(
            name,
            &vp,
            &fp,
            &opts,
            (&Config::default(), &fresh),
            &mut tally,
        );
    }
    println!("{}", tally.summary("regression pairs"));
    assert!(tally.problems.is_empty(), "{}", tally.details());
}

#[test]
fn the_issue_reproducers_move_and_validate() {
    for name in ["save_reg", "unread_operand"] {
        let (vp, fp) = pair(name);
        let v = hoist_verify::optimize(&vp, &fp, &Options::default(), Some(&Config::default()))
            .expect("optimizes");
        assert_eq!(v.status, Status::Validated, "{name}");
        assert!(v.rejected.is_empty(), "{name}: {:?}", v.rejected);
        assert!(
            v.outcome.after.fp_slots.total() < v.outcome.before.fp_slots.total(),
            "{name}: something moves"
        );
    }
}

#[test]
fn a_broken_transport_is_caught_per_vertex() {
    let (vp, fp) = pair("save_reg");
    let mut out = hoist_opt::optimize(&vp, &fp, &Options::default()).unwrap();
    // Make the moved dot product read the wrong component of its gathered operand.
    let last = out
        .vp
        .insts
        .iter()
        .rposition(|i| i.op == hoist_asm::Op::Dp3)
        .unwrap();
    out.vp.insts[last].src[0].swizzle = hoist_asm::Swizzle::new(1, 0, 2, 3);
    let r = hoist_verify::validate::validate(&vp, &fp, &out, &Config::default()).unwrap();
    let f = r.failure.expect("caught");
    assert_eq!(f.check, Check::Vertex, "{f}");
}

/// Soak finds (ARB seeds 7057 and 3737): a moved `CMP` emulated as `b·m + c·(1−m)` in the
/// vertex program gave NaN where the unselected side was infinite (a `LIT` result in the
/// vertex program, 0 to a negative power). Under the soak's own options and validation seeds
/// (which caught them), the select now stays, named as an inexact emulation.
#[test]
fn selects_with_a_possibly_infinite_side_stay() {
    for (name, seed) in [
        ("select_nonfinite_literal", 7057),
        ("select_nonfinite_state", 3737),
    ] {
        let (vp, fp) = pair(name);
        let (opts, cfg, fresh) = hoist_verify::soak::settings(seed, &vp, &fp);
        let mut tally = hoist_verify::soak::Tally::default();
        hoist_verify::soak::check(name, &vp, &fp, &opts, (&cfg, &fresh), &mut tally);
        assert!(tally.problems.is_empty(), "{name}: {}", tally.details());
        let out = hoist_opt::optimize(&vp, &fp, &opts).expect("optimizes");
        let inexact = out.fates.iter().any(|f| {
            matches!(
                f,
                hoist_opt::Fate::Stays {
                    reason: hoist_opt::analysis::movable::Stay::InexactEmulation { .. }
                }
            )
        });
        assert!(
            inexact,
            "{name}: no select stays as inexact: {:?}",
            out.fates
        );
    }
}

/// Generated ARB pairs with a fog option added to the fragment program (the fog
/// coordinate is whatever the vertex program writes, or the unwritten 0): optimized,
/// validated with no group rejected, printed, re-parsed and checked again on fresh inputs,
/// as the soak does. The fog code runs after the program in both pairs, so motion must
/// keep the fog coordinate and the colour it blends exactly.
#[test]
fn generated_pairs_with_fog_options_validate() {
    use hoist_verify::generate::{Flavor, pair};
    let mut tally = hoist_verify::soak::Tally::default();
    let (mut skipped, mut fogged) = (0, 0);
    for seed in 0..90u64 {
        let mode = ["linear", "exp", "exp2"][seed as usize % 3];
        let p = pair(seed, Flavor::Arb);
        let fp_text = p.fp.replacen(
            "!!ARBfp1.0\n",
            &format!("!!ARBfp1.0\nOPTION ARB_fog_{mode};\n"),
            1,
        );
        let parsed = |t: &str| hoist_asm::parse(t, &ParseOptions::default()).into_result();
        let (Ok(vp), Ok(fp)) = (parsed(&p.vp), parsed(&fp_text)) else {
            // Over the target's limits once the option takes its share.
            skipped += 1;
            continue;
        };
        fogged += u32::from(vp.insts.iter().any(|i| {
            i.dst
                .as_ref()
                .is_some_and(|d| d.reg == hoist_asm::Reg::new(hoist_asm::ir::RegFile::RastOut, 1))
        }));
        let (opts, cfg, fresh) = hoist_verify::soak::settings(seed, &vp, &fp);
        tally.pairs += 1;
        hoist_verify::soak::check(&p.label, &vp, &fp, &opts, (&cfg, &fresh), &mut tally);
    }
    println!(
        "{} ({skipped} over their limits with the option, {fogged} with a written fog coordinate)",
        tally.summary("fog pairs")
    );
    assert!(
        tally.pairs >= 60 && tally.improved > 10,
        "{}",
        tally.summary("fog")
    );
    assert!(fogged >= 10, "{fogged}");
    assert!(tally.problems.is_empty(), "{}", tally.details());
}

/// The fog coordinate is an interpolant the fog code reads: an optimized vertex program
/// that changes it is caught per vertex, though the fragment program never names it.
#[test]
fn a_changed_fog_coordinate_is_caught_per_vertex() {
    let vp = parse(
        "!!ARBvp1.0\nPARAM k = program.env[0];\nMOV result.position, vertex.position;\n\
         MOV result.texcoord[0], vertex.texcoord[0];\nMAD result.fogcoord.x, vertex.texcoord[0].x, k.x, k.y;\nEND\n",
    );
    let fp = parse(
        "!!ARBfp1.0\nOPTION ARB_fog_exp2;\nPARAM c = {0.5, 2, -1, 3};\nTEMP a;\n\
         MUL a, fragment.texcoord[0], c;\nMAD a, a, c.wzyx, c.y;\nADD a, a, c.zzxx;\n\
         MOV result.color, a;\nEND\n",
    );
    let v = hoist_verify::optimize(&vp, &fp, &Options::default(), Some(&Config::default()))
        .expect("optimizes");
    assert_eq!(v.status, Status::Validated);
    assert!(v.outcome.after.fp_slots.total() < v.outcome.before.fp_slots.total());
    let mut out = v.outcome;
    let fog = hoist_asm::Reg::new(hoist_asm::ir::RegFile::RastOut, 1);
    let at = out
        .vp
        .insts
        .iter()
        .position(|i| i.dst.as_ref().is_some_and(|d| d.reg == fog))
        .expect("the fog coordinate is still written");
    out.vp.insts[at].src[0].negate ^= true;
    let r = hoist_verify::validate::validate(&vp, &fp, &out, &Config::default()).unwrap();
    let f = r.failure.expect("caught");
    assert_eq!(f.check, Check::Vertex, "{f}");
    assert!(f.detail.contains("Fog"), "{f}");
}

/// Validation describes the textures it supplies, by the target each unit is sampled as,
/// and refuses to call a pair validated when a unit is sampled as two shapes.
#[test]
fn input_sets_supply_every_target_its_shape() {
    let vp = parse(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
    );
    let fp = parse(
        "!!ARBfp1.0\nTEMP a, b;\nMAD a, fragment.texcoord[0], 2, -1;\nTEX b, a, texture[0], CUBE;\n\
         TEX a, fragment.texcoord[0], texture[1], 3D;\nTEX a.x, a, texture[2], RECT;\n\
         ADD result.color, a, b;\nEND\n",
    );
    let v = hoist_verify::optimize(&vp, &fp, &Options::default(), Some(&Config::default()))
        .expect("optimizes");
    assert_eq!(v.status, Status::Validated);
    let r = v.report.expect("report");
    assert_eq!(
        r.textures,
        [
            "unit 0: CUBE six 8×8 faces (noise), CUBE six 16×16 faces (smooth)",
            "unit 1: 3D 8×8×8 (noise), 3D 16×16×16 (smooth)",
            "unit 2: RECT 8×8 (noise), RECT 16×16 (smooth)",
        ]
    );
    // A hand-made outcome whose fragment program samples unit 0 as 2D too.
    let mut out = v.outcome.clone();
    let at = out
        .fp
        .insts
        .iter()
        .position(|i| i.tex.is_some_and(|t| t.unit == 0))
        .unwrap();
    let mut second = out.fp.insts[at].clone();
    second.tex.as_mut().unwrap().target = hoist_asm::ir::TexTarget::T2D;
    out.fp.insts.insert(at + 1, second);
    let e = hoist_verify::validate::validate(&vp, &fp, &out, &Config::default()).unwrap_err();
    assert!(
        e.contains("texture unit 0 is sampled as CUBE and as 2D"),
        "{e}"
    );
}

/// D3D9's vertex samplers are units of their own: a vs_3_0 `s0` sampled as 2D and a ps_3_0
/// `s0` sampled as CUBE are two units, each supplied its shape, and the pair validates
/// (it was declined as "unit 0 sampled as two shapes" while they shared the number).
#[test]
fn d3d9_vertex_samplers_are_supplied_their_own_textures() {
    let vp = parse(
        "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\n\
         dcl_texcoord1 o2\ndcl_2d s0\nmov r0, v1\nmov r0.w, c0.x\ntexldl r1, r0, s0\n\
         mov o0, v0\nmov o1, v1\nmov o2, r1\n",
    );
    let fp = parse(
        "ps_3_0\ndcl_texcoord v0\ndcl_texcoord1 v1\ndcl_cube s0\ndef c0, 0.5, 2, -1, 3\n\
         mad r0, v0, c0.y, c0.z\ntexld r1, r0, s0\nmul r2, v0, c0.x\nmad r2, r2, c0.wzyx, c0.y\n\
         add r2, r2, v1\nadd oC0, r1, r2\n",
    );
    let v = hoist_verify::optimize(&vp, &fp, &Options::default(), Some(&Config::default()))
        .expect("optimizes");
    assert_eq!(v.status, Status::Validated, "{:?}", v.status);
    assert!(v.outcome.after.fp_slots.total() < v.outcome.before.fp_slots.total());
    let r = v.report.expect("report");
    assert_eq!(
        r.textures,
        [
            "unit 0: CUBE six 8×8 faces (noise), CUBE six 16×16 faces (smooth)",
            "vertex sampler s0 (unit 16): 2D 8×8 (noise), 2D 16×16 (smooth)",
        ]
    );
}

/// Validation supplies a unit sampled through a shadow target as a depth texture with
/// compare LEQUAL (`texture::format_for_target`), and says so: an optimized program whose
/// SHADOW2D lookup became a 2D one is caught (on the colour textures supplied before, a
/// shadow lookup was an ordinary fetch and the two agreed).
#[test]
fn shadow_units_get_depth_textures_with_compare() {
    let vp = parse(
        "!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n",
    );
    let fp = parse(
        "!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nPARAM c = {0.5, 2, -1, 3};\nTEMP a, s;\n\
         MUL a, fragment.texcoord[0], c.y;\nMAD a, a, c.x, c.z;\nMOV a.z, fragment.texcoord[0].x;\n\
         TEX s, a, texture[0], SHADOW2D;\nADD result.color, s, a;\nEND\n",
    );
    let v = hoist_verify::optimize(&vp, &fp, &Options::default(), Some(&Config::default()))
        .expect("optimizes");
    assert_eq!(v.status, Status::Validated, "{:?}", v.status);
    let r = v.report.expect("report");
    assert_eq!(
        r.textures,
        ["unit 0 (SHADOW2D): 2D 8×8 (noise), 2D 16×16 (smooth), depth, compare LEQUAL"]
    );
    let mut out = v.outcome;
    let at = out
        .fp
        .insts
        .iter()
        .position(|i| i.tex.is_some())
        .expect("the lookup stays");
    out.fp.insts[at].tex.as_mut().unwrap().target = hoist_asm::ir::TexTarget::T2D;
    let r = hoist_verify::validate::validate(&vp, &fp, &out, &Config::default()).unwrap();
    let f = r.failure.expect("caught");
    assert_eq!(f.check, Check::Fragment, "{f}");
}

/// Optimizes pair `name` under the soak's settings for `seed` and checks it as the soak
/// does; returns the validated result.
fn soak_checked(name: &str, seed: u64) -> (Program, Program, hoist_verify::Validated) {
    let (vp, fp) = pair(name);
    let (opts, cfg, fresh) = hoist_verify::soak::settings(seed, &vp, &fp);
    let mut tally = hoist_verify::soak::Tally::default();
    hoist_verify::soak::check(name, &vp, &fp, &opts, (&cfg, &fresh), &mut tally);
    assert!(tally.problems.is_empty(), "{name}: {}", tally.details());
    let v = hoist_verify::optimize(&vp, &fp, &opts, Some(&cfg)).expect("optimizes");
    assert!(v.rejected.is_empty(), "{name}: {:?}", v.rejected);
    (vp, fp, v)
}

/// WGSL soak find (seed 639, D3D9): a vertex expression of parameters recomputed in the
/// fragment program got its parameter copy in `c2`, a register the original fragment
/// program reads as its own (`u.k2`) whose readers had moved to the vertex program; the
/// host can give `c2` only one value, so the moved code read the copy's (192 of 1024
/// pixels wrong, seen only by the fresh render). A copy now never takes a parameter the
/// original reads, and validation names such a conflict on every input, not by chance.
#[test]
fn a_parameter_copy_never_takes_a_parameter_the_original_reads() {
    let (vp, fp, v) = soak_checked("recompute_param_slot", 639);
    let copy = v
        .outcome
        .mirrors
        .iter()
        .position(|m| m.to_fragment)
        .expect("the fragment program still reads a copy of a vertex parameter");
    assert_ne!(v.outcome.mirrors[copy].fragment, ConstBinding::Env(2));
    // The outcome as it was before the fix: the copy in c2.
    let mut broken = v.outcome.clone();
    broken.mirrors[copy].fragment = ConstBinding::Env(2);
    let r = hoist_verify::validate::validate(&vp, &fp, &broken, &Config::default()).unwrap();
    let f = r.failure.expect("caught");
    assert_eq!(f.check, Check::Parameters, "{f}");
}

/// WGSL soak find (seed 133, D3D9; 1756 the same): the recomputed vertex expression read a
/// parameter copy in `c0` and a literal the same emit then `def`ined in `c0` too (its code
/// is inserted only at the end, so the register still looked free). The registers one emit
/// hands out are now reserved as it goes, and validation names a copy into a `def`ined
/// register.
#[test]
fn a_parameter_copy_never_shares_a_register_with_a_literal() {
    let (vp, fp, v) = soak_checked("recompute_literal_slot", 133);
    let copies: Vec<u16> = v
        .outcome
        .mirrors
        .iter()
        .filter(|m| m.to_fragment)
        .filter_map(|m| match m.fragment {
            ConstBinding::Env(n) => Some(n),
            _ => None,
        })
        .collect();
    assert!(!copies.is_empty(), "{:?}", v.outcome.mirrors);
    let literal = |n: u16| {
        matches!(
            v.outcome.fp.consts.get(n as usize).map(|c| &c.binding),
            Some(ConstBinding::Literal(_))
        )
    };
    assert!(copies.iter().all(|&n| !literal(n)), "{copies:?}");
    let mut broken = v.outcome.clone();
    let def = (0..broken.fp.consts.len() as u16)
        .find(|&n| literal(n))
        .expect("a def");
    let m = broken.mirrors.iter_mut().find(|m| m.to_fragment).unwrap();
    m.fragment = ConstBinding::Env(def);
    let r = hoist_verify::validate::validate(&vp, &fp, &broken, &Config::default()).unwrap();
    let f = r.failure.expect("caught");
    assert_eq!(f.check, Check::Parameters, "{f}");
}
