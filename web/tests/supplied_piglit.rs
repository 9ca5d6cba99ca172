//! "What the draw supplies" on programs nobody here wrote: every ARB vertex program of the
//! piglit corpus (`../shared/corpus/piglit`) lists exactly the attributes its text reads
//! (`vertex.position`, `vertex.normal`, `vertex.color[.secondary]`, `vertex.texcoord[n]`,
//! `vertex.attrib[n]`, ...), when it reads them directly rather than through `ATTRIB`
//! names. A missing corpus skips with a notice (or fails under `HOIST_REQUIRE_ORACLES=1`).
#![cfg(not(target_arch = "wasm32"))]

use hoist_web::worker::supplied::read_slots;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/piglit/tests");
    p.exists().then_some(p)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "shader_test") {
            out.push(p);
        }
    }
}

/// Slots the text names, read from `vertex.*` references outside `ATTRIB` declarations.
fn named(src: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in src
        .lines()
        .filter(|l| !l.trim_start().starts_with("ATTRIB"))
    {
        let mut rest = line;
        while let Some(at) = rest.find("vertex.") {
            rest = &rest[at + 7..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "[]._".contains(*c))
                .collect();
            let index = |w: &str| {
                w.split_once('[')
                    .and_then(|(_, r)| r.split(']').next())
                    .and_then(|n| n.parse::<u8>().ok())
            };
            let slot = match word.split(['.', '[']).next().unwrap_or("") {
                "position" => 0,
                "weight" => 1,
                "normal" => 2,
                "color" if word.starts_with("color.secondary") => 4,
                "color" => 3,
                "fogcoord" => 5,
                "texcoord" => (8 + index(&word).unwrap_or(0)).min(15),
                "attrib" => index(&word).unwrap_or(0),
                _ => continue,
            };
            out.push(slot);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn piglit_vertex_programs_list_what_they_read() {
    let Some(dir) = corpus() else {
        assert!(
            std::env::var("HOIST_REQUIRE_ORACLES").as_deref() != Ok("1"),
            "HOIST_REQUIRE_ORACLES=1, but the piglit corpus is missing"
        );
        println!("SKIP: ../shared/corpus/piglit is missing");
        return;
    };
    let mut files = Vec::new();
    walk(&dir, &mut files);
    let caps = hoist_raster::Caps::default();
    let mut checked = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let Ok(scene) = hoist_raster::scene::parse(&text, &caps) else {
            continue;
        };
        for pair in scene.programs.values() {
            let Some(vp) = &pair.vertex else { continue };
            if !vp.source.contains("!!ARBvp") || vp.source.contains("ATTRIB") {
                continue;
            }
            assert_eq!(
                read_slots(&vp.program),
                named(&vp.source),
                "{}:\n{}",
                f.display(),
                vp.source
            );
            checked += 1;
        }
    }
    println!(
        "piglit vertex programs checked: {checked} of {} files",
        files.len()
    );
    assert!(checked >= 10, "only {checked} vertex programs checked");
}
