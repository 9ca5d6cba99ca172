//! Recovered systems checked by execution (seed 003, issue 11): for every straight-line
//! program of the examples, the piglit ARB corpus and the random generator (both stages,
//! both dialects), `linear::recover::recover` gives y = A·x + b over the program's
//! variables, and `hoist_verify::linear_recover::check_seeded` (the page's proof, on inputs
//! seeded per program) runs it in the executor: every output component must equal A·x + b,
//! where x holds the values the variables take in the same run. Tolerance: 1e-4 of
//! Σ|a·x| + |b|, plus 1e-5 (f32 execution against f64 sums). Invocations where a value is
//! not finite, or a fragment is killed, are left out and counted.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

use hoist_asm::ParseOptions;
use hoist_opt::linear::recover::{Rows, recover};
use hoist_verify::generate::{self, Flavor};
use hoist_verify::linear_recover::check_seeded;
use std::path::{Path, PathBuf};

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
        let probes = check_seeded(&p, &rec, seed);
        self.left_out += probes.left_out;
        if let Some(e) = probes.failure {
            self.failures.push(format!("{label}: {e}"));
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
