//! The linear mode's program input against programs it was not written for: every program
//! of the random generator (both stages, both dialects), of examples/ and of the piglit ARB
//! corpus either gives a system whose check by execution (`linear_recover::check`, eight
//! probes in the executor) agrees with the program, or is refused with a message — at a
//! line of the text when it names one. A sample goes through the whole job
//! (`linear::run`): packed, and equivalent with and without the un-permute MOVs.
#![cfg(not(target_arch = "wasm32"))]

use hoist_verify::generate::{self, Flavor};
use hoist_web::worker::linear::{self, Input, LinearDoc};
use hoist_web::worker::linear_recover::{PROBES, recover, view};
use std::path::{Path, PathBuf};

#[derive(Default)]
struct Tally {
    programs: usize,
    recovered: usize,
    refused: usize,
    left_out: usize,
    /// Recovered, but every invocation was left out (nothing to compare).
    unchecked: Vec<String>,
    jobs: usize,
    failures: Vec<String>,
}

impl Tally {
    fn program(&mut self, label: &str, src: &str, job: bool) {
        if hoist_asm::parse(src, &Default::default())
            .into_result()
            .is_err()
        {
            return;
        }
        self.programs += 1;
        let (prog, rec) = match recover(src, "") {
            Ok(r) => r,
            Err(p) => {
                self.refused += 1;
                if p.line > src.lines().count() || p.message.is_empty() {
                    self.failures.push(format!("{label}: refusal {p:?}"));
                }
                if p.message.contains("flow control") && p.line == 0 {
                    self.failures
                        .push(format!("{label}: flow control without a line"));
                }
                return;
            }
        };
        self.recovered += 1;
        let v = view(&prog, &rec);
        self.left_out += v.check.left_out;
        if v.check.failure.is_none() && v.check.probes == 0 {
            self.unchecked.push(label.to_string());
        } else if !v.check.agrees() || v.check.probes + v.check.left_out != PROBES {
            self.failures
                .push(format!("{label}: {}", v.check.headline()));
        }
        if v.rows.len() != rec.rows.len() || v.variables.len() != rec.variables.len() {
            self.failures
                .push(format!("{label}: the view drops rows or variables"));
        }
        if job {
            self.job(label, src);
        }
    }

    /// The page's whole job on the program, plain and with the un-permute MOVs.
    fn job(&mut self, label: &str, src: &str) {
        self.jobs += 1;
        for (d3d9, unpermute) in [(false, false), (true, true)] {
            let doc = LinearDoc {
                text: src.to_string(),
                example: None,
                input: Input::Program,
                d3d9,
                unpermute,
                ..LinearDoc::default()
            };
            match linear::run(&doc) {
                Ok(o) if o.verdict.equivalent && o.recovered.is_some() => {}
                Ok(o) => self.failures.push(format!(
                    "{label} (d3d9 {d3d9}, un-permuted {unpermute}): {}",
                    o.verdict.headline()
                )),
                Err(e) => self.failures.push(format!("{label}: the job refused: {e}")),
            }
        }
    }

    fn finish(self, what: &str) {
        println!(
            "{what}: {} programs, {} recovered ({} invocations left out; {} with all left out: {:?}), \
             {} refused; {} whole jobs",
            self.programs,
            self.recovered,
            self.left_out,
            self.unchecked.len(),
            self.unchecked,
            self.refused,
            self.jobs
        );
        assert!(
            self.unchecked.len() * 20 <= self.recovered,
            "{what}: too many recovered systems could not be checked: {:?}",
            self.unchecked
        );
        assert!(
            self.failures.is_empty(),
            "{what}: {} failures:\n{}",
            self.failures.len(),
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

fn tally_dir(dir: &Path, t: &mut Tally, jobs_every: usize) {
    let mut paths = Vec::new();
    files(dir, &mut paths);
    for (k, path) in paths.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let label = path.display().to_string();
        match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
            "shader_test" => {
                for (j, s) in sections(&text).iter().enumerate() {
                    t.program(&format!("{label} #{j}"), s, (k + j) % jobs_every == 0);
                }
            }
            "vp" | "fp" | "vsh" | "psh" => t.program(&label, &text, k % jobs_every == 0),
            _ => {}
        }
    }
}

#[test]
fn generated_programs_are_recovered_and_checked_or_refused_at_a_line() {
    let mut t = Tally::default();
    for seed in 0..40 {
        for flavor in [Flavor::Arb, Flavor::D3d9] {
            let p = generate::pair(seed, flavor);
            t.program(&format!("{} vp", p.label), &p.vp, seed % 10 == 0);
            t.program(&format!("{} fp", p.label), &p.fp, seed % 10 == 5);
        }
    }
    t.finish("generated");
}

#[test]
fn example_programs_are_recovered_and_checked() {
    let mut t = Tally::default();
    tally_dir(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples"),
        &mut t,
        8,
    );
    for e in linear::EXAMPLES
        .iter()
        .filter(|e| e.input() == Input::Program)
    {
        let src = linear::example_text(e.name).expect("an example");
        t.program(e.name, &src, true);
    }
    t.finish("examples");
}

#[test]
fn piglit_programs_are_recovered_and_checked() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/piglit/tests");
    if !dir.exists() {
        assert!(
            std::env::var("HOIST_REQUIRE_ORACLES").as_deref() != Ok("1"),
            "HOIST_REQUIRE_ORACLES=1, but ../shared/corpus/piglit is missing"
        );
        println!("SKIP: ../shared/corpus/piglit is absent");
        return;
    }
    let mut t = Tally::default();
    tally_dir(&dir, &mut t, usize::MAX);
    t.finish("piglit");
}
