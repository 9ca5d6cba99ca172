//! The independent oracles' location and the rule for a missing one, shared by the test
//! suites that use them (each includes this file by `#[path]`): the piglit corpus and the
//! llvmpipe reference renderer live in `../shared`, next to the repository, which a user's
//! clone does not have. A missing oracle skips with a printed notice, or fails the run when
//! `HOIST_REQUIRE_ORACLES=1` (CI sets it).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/<rel>` when it exists.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(rel);
    p.exists().then_some(p)
}

/// Skips (with a notice) or, under `HOIST_REQUIRE_ORACLES=1`, fails.
pub fn skip(why: &str) {
    assert!(
        std::env::var("HOIST_REQUIRE_ORACLES").as_deref() != Ok("1"),
        "HOIST_REQUIRE_ORACLES=1, but the oracle is missing: {why}"
    );
    println!("SKIP: {why}");
}

/// A fresh scratch directory for one call, unique in the process: the tests of a file run
/// in parallel threads of one process, so a directory named by the process id alone is
/// shared, and one test's files overwrite another's (two browser differentials once
/// compared each other's images that way).
pub fn scratch(tag: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hoist-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The arbref binary (llvmpipe through OSMesa): `HOIST_ARBREF`, or built once per test
/// binary from `../shared/tools/arbref` into the target's temporary directory. The tests of
/// a file run in parallel: one builds, the others wait for it, and the binary appears under
/// its name only once it is whole (built aside, then renamed), so no test ever runs a
/// half-written file.
pub fn arbref() -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("HOIST_ARBREF") {
        return Ok(PathBuf::from(p));
    }
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let script = shared("tools/arbref/build.sh")
                .ok_or("../shared/tools/arbref is not next to the repository")?;
            let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("arbref");
            if out.exists() {
                return Ok(out);
            }
            let part = out.with_file_name(format!("arbref.part{}", std::process::id()));
            let st = std::process::Command::new("sh")
                .arg(script)
                .arg(&part)
                .output()
                .map_err(|e| format!("cannot run build.sh: {e}"))?;
            if !st.status.success() {
                return Err(format!(
                    "arbref does not build: {}",
                    String::from_utf8_lossy(&st.stderr)
                ));
            }
            std::fs::rename(&part, &out).map_err(|e| format!("arbref: {e}"))?;
            Ok(out)
        })
        .clone()
}

/// Every `.shader_test` file under `dir`, in sorted order.
pub fn shader_tests(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "shader_test") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}
