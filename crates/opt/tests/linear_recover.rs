//! Recovered systems checked by execution (seed 003, issue 11): for every straight-line
//! program of the examples, the piglit ARB corpus and the random generator (both stages,
//! both dialects), `linear::recover::recover` gives y = A·x + b over the program's
//! variables; the executor runs the program on random inputs, host-set parameters and
//! textures, and every output component must equal A·x + b, where x holds the values the
//! variables take in the same run: an input or parameter read by a one-instruction probe,
//! "the result of line N" by the program cut after line N. Tolerance: 1e-4 of
//! Σ|a·x| + |b|, plus 1e-5 (f32 execution against f64 sums). Invocations where a value is
//! not finite, or a fragment is killed, are left out and counted.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use hoist_asm::ir::{ConstBinding, Semantic};
use hoist_asm::{Dst, Inst, Op, ParseOptions, Program, Reg, RegFile, Src, Stage, WriteMask};
use hoist_opt::linear::anneal::Rng;
use hoist_opt::linear::recover::{Origin, Recovered, Rows, recover};
use hoist_raster::probe::{StageEnv, run_fragments, run_vertices};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{ATTRIBS, Caps, GlState, StageParams, Texture};
use hoist_verify::generate::{self, Flavor};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const INVOCATIONS: usize = 8;

struct Inputs {
    params: StageParams,
    textures: BTreeMap<u8, Arc<Texture>>,
    attribs: Vec<[[f32; 4]; ATTRIBS]>,
    seed: u64,
}

impl Inputs {
    fn new(p: &Program, seed: u64) -> Inputs {
        let mut rng = Rng::new(seed);
        let mut v4 = || std::array::from_fn(|_| (rng.unit() * 2.0 - 1.0) as f32);
        let mut params = StageParams::default();
        for c in &p.consts {
            match c.binding {
                ConstBinding::Env(n) => {
                    params.env.insert(n, v4());
                }
                ConstBinding::Local(n) => {
                    params.local.insert(n, v4());
                }
                _ => {}
            }
        }
        let attribs = (0..INVOCATIONS)
            .map(|_| std::array::from_fn(|_| v4()))
            .collect();
        Inputs {
            params,
            textures: generate::textures(p),
            attribs,
            seed,
        }
    }

    fn fragment_input(&self, lane: usize, s: Semantic) -> [f32; 4] {
        let key = format!("{s:?}");
        let h = key.bytes().fold(self.seed ^ lane as u64, |h, b| {
            h.wrapping_mul(0x100_0000_01B3) ^ u64::from(b)
        });
        let mut rng = Rng::new(h);
        std::array::from_fn(|_| (rng.unit() * 2.0 - 1.0) as f32)
    }
}

/// Per invocation, every output register's value, and which invocations count.
type Run = (Vec<Vec<(Reg, [f32; 4])>>, Vec<bool>);

fn run(p: &Program, inp: &Inputs) -> Result<Run, String> {
    let cp = CompiledProgram::new(p).map_err(|e| e.to_string())?;
    let (gl, caps) = (GlState::default(), Caps::default());
    let env = StageEnv {
        params: &inp.params,
        gl: &gl,
        textures: &inp.textures,
        caps: &caps,
    };
    Ok(match p.stage() {
        Stage::Vertex => {
            let v = run_vertices(&cp, &env, &inp.attribs);
            (v.outputs, vec![true; INVOCATIONS])
        }
        Stage::Fragment => {
            let f = run_fragments(&cp, &env, INVOCATIONS, false, false, &|l, s| {
                inp.fragment_input(l, s)
            })
            .map_err(|e| e.to_string())?;
            (f.outputs, f.killed.iter().map(|k| !k).collect())
        }
    })
}

fn read(outs: &[(Reg, [f32; 4])], r: Reg) -> Option<[f32; 4]> {
    outs.iter().find(|(o, _)| *o == r).map(|(_, v)| *v)
}

/// The values of `reg` per invocation after `prefix` runs (an output is read directly; any
/// other register through a MOV into one of the program's outputs).
fn probe(p: &Program, prefix: &[Inst], reg: Reg, inp: &Inputs) -> Result<Vec<[f32; 4]>, String> {
    let mut q = p.clone();
    q.insts = prefix.to_vec();
    let out = if reg.file.is_output() {
        reg
    } else {
        let out = p
            .insts
            .iter()
            .filter_map(|i| i.dst.as_ref().map(|d| d.reg))
            .find(|r| r.file.is_output() && r.file != RegFile::DepthOut)
            .ok_or("no output register to probe through")?;
        q.insts.push(Inst::new(
            Op::Mov,
            Some(Dst::new(out, WriteMask::ALL)),
            [Src::new(reg)],
        ));
        out
    };
    let (outs, _) = run(&q, inp)?;
    outs.iter()
        .map(|o| read(o, out).ok_or_else(|| format!("probe: no {out:?} in the outputs")))
        .collect()
}

/// Checks `rec` against the executor; returns the invocations left out.
fn check(p: &Program, rec: &Recovered, inp: &Inputs) -> Result<usize, String> {
    let (outs, live) = run(p, inp)?;
    let mut xs = vec![vec![0.0f64; rec.variables.len()]; INVOCATIONS];
    for (v, var) in rec.variables.iter().enumerate() {
        let (prefix, comp) = match &var.origin {
            Origin::Register { comp, .. } => (&p.insts[..0], *comp),
            Origin::Result { inst, comp, .. } => (&p.insts[..=*inst], *comp),
        };
        let vals = probe(p, prefix, var.reg, inp)?;
        for (x, val) in xs.iter_mut().zip(&vals) {
            x[v] = f64::from(val[comp as usize]);
        }
    }
    let sys = &rec.system;
    let mut left_out = 0;
    for (k, x) in xs.iter().enumerate() {
        let vals: Vec<Option<[f32; 4]>> = rec
            .rows
            .iter()
            .map(|r| read(&outs[k], Reg::new(file(&r.file), r.index)))
            .collect();
        if !live[k] || x.iter().any(|v| !v.is_finite()) {
            left_out += 1;
            continue;
        }
        for (r, row) in rec.rows.iter().enumerate() {
            let got = f64::from(
                vals[r].ok_or_else(|| format!("no output {}", row.name))?[row.comp as usize],
            );
            let terms = sys.terms[0].rows[r].iter();
            let want: f64 = terms.clone().map(|(c, a)| a * x[*c]).sum::<f64>() + sys.b[r];
            let scale: f64 = terms.map(|(c, a)| (a * x[*c]).abs()).sum::<f64>() + sys.b[r].abs();
            if !got.is_finite() || (got - want).abs() > 1e-4 * scale + 1e-5 {
                return Err(format!(
                    "invocation {k}: {} = {got}, but A·x + b = {want}",
                    row.name
                ));
            }
        }
    }
    Ok(left_out)
}

fn file(name: &str) -> RegFile {
    use RegFile::*;
    [
        RastOut, AttrOut, TexCrdOut, Output, ColorOut, DepthOut, Temp,
    ]
    .into_iter()
    .find(|f| format!("{f:?}") == name)
    .unwrap_or(Temp)
}

#[derive(Default)]
struct Tally {
    programs: usize,
    recovered: usize,
    linear: usize,
    refused: usize,
    left_out: usize,
    failures: Vec<String>,
}

impl Tally {
    fn program(&mut self, label: &str, src: &str, seed: u64) {
        let opts = ParseOptions::default();
        let Ok(p) = hoist_asm::parse(src, &opts).into_result() else {
            return;
        };
        self.programs += 1;
        let rec = match recover(&p, src, Rows::Outputs) {
            Ok(r) => r,
            Err(_) => {
                self.refused += 1;
                return;
            }
        };
        self.recovered += 1;
        self.linear += usize::from(rec.nonlinear == 0);
        match check(&p, &rec, &Inputs::new(&p, seed)) {
            Ok(n) => self.left_out += n,
            Err(e) => self.failures.push(format!("{label}: {e}")),
        }
    }

    fn finish(self, what: &str) {
        println!(
            "{what}: {} programs, {} recovered ({} purely linear), {} refused (not straight-line \
             or too large); {} invocations left out",
            self.programs, self.recovered, self.linear, self.refused, self.left_out
        );
        assert!(
            self.failures.is_empty(),
            "{} of {} recovered systems disagree with the executor:\n{}",
            self.failures.len(),
            self.recovered,
            self.failures.join("\n")
        );
        assert!(self.recovered > 0, "{what}: nothing recovered");
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The program sections of a piglit shader_test.
fn sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        if line.starts_with('[') {
            out.extend(cur.take());
            if line.trim() == "[vertex program]" || line.trim() == "[fragment program]" {
                cur = Some(String::new());
            }
        } else if let Some(c) = &mut cur {
            c.push_str(line);
            c.push('\n');
        }
    }
    out.extend(cur);
    out
}

fn tally_files(dir: &Path, t: &mut Tally) {
    let mut paths = Vec::new();
    files(dir, &mut paths);
    for (k, path) in paths.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let label = path.display().to_string();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match ext {
            "shader_test" => {
                for (j, s) in sections(&text).iter().enumerate() {
                    t.program(&format!("{label} #{j}"), s, (k * 16 + j) as u64);
                }
            }
            "vp" | "fp" | "vsh" | "psh" | "txt" => t.program(&label, &text, k as u64),
            _ => {}
        }
    }
}

#[test]
fn recovered_systems_of_the_examples_agree_with_the_executor() {
    let mut t = Tally::default();
    tally_files(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples"),
        &mut t,
    );
    t.finish("examples");
}

#[test]
fn recovered_systems_of_the_piglit_corpus_agree_with_the_executor() {
    let Some(dir) = oracles::shared("corpus/piglit/tests") else {
        oracles::skip("../shared/corpus/piglit is absent");
        return;
    };
    let mut t = Tally::default();
    tally_files(&dir, &mut t);
    t.finish("piglit");
}

#[test]
fn recovered_systems_of_generated_programs_agree_with_the_executor() {
    let mut t = Tally::default();
    for seed in 0..60 {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let pair = generate::pair(seed, flavor);
            t.program(&format!("{} vp", pair.label), &pair.vp, seed);
            t.program(&format!("{} fp", pair.label), &pair.fp, seed);
        }
    }
    t.finish("generated");
}
