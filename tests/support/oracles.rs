//! The independent oracles' location and the rule for a missing one, shared by the test
//! suites that use them (each includes this file by `#[path]`): the piglit corpus and the
//! llvmpipe reference renderer live in `../shared`, next to the repository, which a user's
//! clone does not have. A missing oracle skips with a printed notice, or fails the run when
//! `HOIST_REQUIRE_ORACLES=1` (CI sets it).
#![allow(dead_code)]

use std::path::PathBuf;

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
