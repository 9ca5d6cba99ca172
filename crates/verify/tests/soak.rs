//! A short soak in CI (`scripts/soak.sh N` runs long ones): generated pairs of both dialects
//! through optimize, validate, print and a fresh check, with no panic, error, mismatch or
//! round-trip failure, and every pair run compiled exactly as interpreted, with ARB shadow
//! targets, depth textures and compare mode among what was drawn. Groups validation
//! rejected are printed, not failed: catching them is validation's job, and each is a bug
//! to fix.
#![cfg(not(target_arch = "wasm32"))]

use hoist_verify::generate::Flavor;
use hoist_verify::soak;

#[test]
fn short_soak_in_both_dialects() {
    soak::quiet_panics();
    let pairs = std::env::var("HOIST_SOAK_PAIRS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    let mut failures = 0;
    for (flavor, name) in [(Flavor::Arb, "ARB"), (Flavor::D3d9, "D3D9")] {
        let tally = soak::soak(0, pairs, flavor, 2);
        print!("{}", tally.details());
        println!("soak {}", tally.summary(name));
        println!("{}", tally.exec.summary(name));
        failures += tally.failures();
        assert!(
            tally.exec.renders > 0 && tally.exec.kernels > 0,
            "{name}: nothing compared"
        );
        if flavor == Flavor::Arb {
            assert!(
                tally.exec.fetches.keys().any(|k| k.contains("SHADOW")),
                "no shadow target drawn"
            );
        }
        assert!(tally.exec.textures.keys().any(|k| k.contains("compare")));
    }
    assert_eq!(failures, 0, "the soak found failures (listed above)");
}

/// Generated WGSL programs over every builtin through the front end, both dialects
/// (`hoist_verify::front`), then the same optimize/validate/print/fresh check. Built with
/// the `front` feature, which `cargo test --workspace` enables (through hoist-cli).
#[cfg(feature = "front")]
#[test]
fn short_wgsl_soak_covers_every_builtin() {
    soak::quiet_panics();
    let n = hoist_front::generate::BUILTINS.len() as u64;
    let programs = std::env::var("HOIST_SOAK_WGSL")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(n);
    let tally = hoist_verify::front::soak(0, programs, 2);
    print!("{}", tally.details());
    println!("soak {}", tally.summary("WGSL"));
    let (seen, missing) = hoist_verify::front::coverage(0, programs);
    assert!(
        missing.is_empty(),
        "builtins never called: {missing:?} ({seen} called)"
    );
    assert_eq!(
        tally.failures(),
        0,
        "the WGSL soak found failures (listed above)"
    );
}

#[cfg(not(feature = "front"))]
#[test]
fn short_wgsl_soak_covers_every_builtin() {
    println!(
        "SKIP: the WGSL soak needs hoist-verify's `front` feature (cargo test --workspace, or --features front)"
    );
}
