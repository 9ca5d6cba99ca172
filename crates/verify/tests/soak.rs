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
