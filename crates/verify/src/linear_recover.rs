//! The proof of a recovered linear system (`hoist_opt::linear::recover`) by execution:
//! [`check`] runs the program in the executor on [`PROBES`] seeded random invocations
//! (attributes, interpolants, host-set constants, generated textures); each variable's
//! value in the same invocations is read by a probe (an input or constant by a MOV into an
//! output, "the result of line N" by the program cut after line N), and every row must equal
//! A·x + b in f64 within 1e-4 of Σ|a·x| + |b| plus 1e-5. Killed fragments and invocations
//! where a variable the rows use is not finite are left out and counted. The page's linear
//! mode and `crates/opt/tests/linear_recover.rs` prove recoveries this way.

use hoist_asm::ir::{ConstBinding, Semantic};
use hoist_asm::{Dst, Inst, Op, Program, Reg, RegFile, Src, Stage, WriteMask};
use hoist_opt::linear::anneal::Rng;
use hoist_opt::linear::recover::{Origin, Recovered};
use hoist_raster::probe::{StageEnv, run_fragments, run_vertices};
use hoist_raster::raster::CompiledProgram;
use hoist_raster::{ATTRIBS, Caps, GlState, StageParams, Texture};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Invocations the recovered system is checked on.
pub const PROBES: usize = 8;
const REL_TOL: f64 = 1e-4;
const ABS_TOL: f64 = 1e-5;
const PROBE_SEED: u64 = 0x5EED_0011;

/// The recovered system against the user's program in the executor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Probes {
    /// Invocations compared (all rows each).
    pub probes: usize,
    /// Invocations left out (a killed fragment, a non-finite value).
    pub left_out: usize,
    /// Largest |y − (A·x + b)| over the compared rows.
    pub max_error: f64,
    /// The first disagreement, or why the program could not run.
    pub failure: Option<String>,
}

impl Probes {
    pub fn agrees(&self) -> bool {
        self.failure.is_none() && self.probes > 0
    }

    /// The check in a few words, for the page and `hoistReport()`.
    pub fn headline(&self) -> String {
        match &self.failure {
            Some(f) => format!("recovered system DISAGREES with the program: {f}"),
            None if self.probes == 0 => format!(
                "recovered system not checked: all {} invocations were left out",
                self.left_out
            ),
            None => format!(
                "recovered system checked on {} probes (max |y − (A·x + b)| {})",
                self.probes,
                sci(self.max_error)
            ),
        }
    }
}

/// `x` in three significant digits (`0` when zero).
pub fn sci(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.2e}")
    }
}

/// What one run of a program gives: per invocation its output registers, and which
/// invocations count (a killed fragment does not).
type Run = (Vec<Vec<(Reg, [f32; 4])>>, Vec<bool>);

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
        let attribs = (0..PROBES).map(|_| std::array::from_fn(|_| v4())).collect();
        Inputs {
            params,
            textures: crate::generate::textures(p),
            attribs,
            seed,
        }
    }

    fn run(&self, p: &Program) -> Result<Run, String> {
        let cp = CompiledProgram::new(p).map_err(|e| e.to_string())?;
        let (gl, caps) = (GlState::default(), Caps::default());
        let env = StageEnv {
            params: &self.params,
            gl: &gl,
            textures: &self.textures,
            caps: &caps,
        };
        Ok(match p.stage() {
            Stage::Vertex => (
                run_vertices(&cp, &env, &self.attribs).outputs,
                vec![true; PROBES],
            ),
            Stage::Fragment => {
                let input = |lane, s| fragment_input(self.seed, lane, s);
                let f = run_fragments(&cp, &env, PROBES, false, false, &input)
                    .map_err(|e| e.to_string())?;
                let live = f.killed.iter().map(|k| !k).collect();
                (f.outputs, live)
            }
        })
    }

    /// The values of `reg` per invocation after `prefix` runs (an output is read
    /// directly, any other register through a MOV into one of the program's outputs).
    fn probe(&self, p: &Program, prefix: &[Inst], reg: Reg) -> Result<Vec<[f32; 4]>, String> {
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
                .ok_or("the program writes no output to probe through")?;
            q.insts.push(Inst::new(
                Op::Mov,
                Some(Dst::new(out, WriteMask::ALL)),
                [Src::new(reg)],
            ));
            out
        };
        let (outs, _) = self.run(&q)?;
        outs.iter()
            .map(|o| read(o, out).ok_or_else(|| format!("the probe wrote no {out:?}")))
            .collect()
    }
}

/// A fragment's interpolant: seeded by the check's seed, the lane and the semantic, so that
/// every probe of one check sees the same values.
fn fragment_input(seed: u64, lane: usize, s: Semantic) -> [f32; 4] {
    let key = format!("{s:?}");
    let h = key.bytes().fold(seed ^ lane as u64, |h, b| {
        h.wrapping_mul(0x100_0000_01B3) ^ u64::from(b)
    });
    let mut rng = Rng::new(h);
    std::array::from_fn(|_| (rng.unit() * 2.0 - 1.0) as f32)
}

fn read(outs: &[(Reg, [f32; 4])], r: Reg) -> Option<[f32; 4]> {
    outs.iter().find(|(o, _)| *o == r).map(|(_, v)| *v)
}

/// The register of a row (`RowSource::file` is the register file's name).
fn row_reg(file: &str, index: u16) -> Option<Reg> {
    use RegFile::*;
    [
        Temp, RastOut, AttrOut, TexCrdOut, Output, ColorOut, DepthOut,
    ]
    .into_iter()
    .find(|f| format!("{f:?}") == file)
    .map(|f| Reg::new(f, index))
}

/// Runs `prog` and the probes of every variable, and compares each row with A·x + b (the
/// page's check: its inputs come from one fixed seed).
pub fn check(prog: &Program, rec: &Recovered) -> Probes {
    check_seeded(prog, rec, PROBE_SEED)
}

/// [`check`] on the random inputs of `seed` (tests vary it across programs).
pub fn check_seeded(prog: &Program, rec: &Recovered, seed: u64) -> Probes {
    let inp = Inputs::new(prog, seed);
    match compare(prog, rec, &inp) {
        Ok(p) => p,
        Err(failure) => Probes {
            failure: Some(failure),
            ..Probes::default()
        },
    }
}

/// Per invocation, the value of every variable.
fn variable_values(prog: &Program, rec: &Recovered, inp: &Inputs) -> Result<Vec<Vec<f64>>, String> {
    let mut xs = vec![vec![0.0f64; rec.variables.len()]; PROBES];
    for (v, var) in rec.variables.iter().enumerate() {
        let (prefix, comp) = match &var.origin {
            Origin::Register { comp, .. } => (&prog.insts[..0], *comp),
            Origin::Result { inst, comp, .. } => (&prog.insts[..=*inst], *comp),
        };
        let vals = inp.probe(prog, prefix, var.reg)?;
        for (x, val) in xs.iter_mut().zip(&vals) {
            x[v] = f64::from(val[comp as usize]);
        }
    }
    Ok(xs)
}

fn compare(prog: &Program, rec: &Recovered, inp: &Inputs) -> Result<Probes, String> {
    let (outs, live) = inp.run(prog)?;
    let xs = variable_values(prog, rec, inp)?;
    let mut rows: Vec<Vec<[f32; 4]>> = Vec::with_capacity(rec.rows.len());
    for row in &rec.rows {
        let reg = row_reg(&row.file, row.index)
            .ok_or_else(|| format!("row {}: unknown register file {}", row.name, row.file))?;
        rows.push(if reg.file.is_output() {
            outs.iter()
                .map(|o| read(o, reg).ok_or_else(|| format!("no output {}", row.name)))
                .collect::<Result<_, _>>()?
        } else {
            inp.probe(prog, &prog.insts, reg)?
        });
    }
    let sys = &rec.system;
    let used: Vec<usize> = {
        let mut u: Vec<usize> = (0..rec.rows.len())
            .flat_map(|r| sys.terms[0].rows[r].iter().map(|(c, _)| *c))
            .collect();
        hoist_asm::sort::ord(&mut u);
        u.dedup();
        u
    };
    let mut p = Probes::default();
    for (k, x) in xs.iter().enumerate() {
        if !live[k] || used.iter().any(|&c| !x[c].is_finite()) {
            p.left_out += 1;
            continue;
        }
        for (r, row) in rec.rows.iter().enumerate() {
            let got = f64::from(rows[r][k][row.comp as usize]);
            let terms = sys.terms[0].rows[r].iter();
            let want: f64 = terms.clone().map(|(c, a)| a * x[*c]).sum::<f64>() + sys.b[r];
            let scale: f64 = terms.map(|(c, a)| (a * x[*c]).abs()).sum::<f64>() + sys.b[r].abs();
            let err = (got - want).abs();
            if !got.is_finite() || err > REL_TOL * scale + ABS_TOL {
                return Err(format!(
                    "probe {k}: {} = {got}, but A·x + b = {want}",
                    row.name
                ));
            }
            p.max_error = p.max_error.max(err);
        }
        p.probes += 1;
    }
    Ok(p)
}
