//! Optimizes one scene's pair in a loop, for profilers: `cargo run --release -p hoist-opt
//! --example profile_loop -- examples/paper/conv2d.shader_test 200`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a scene file");
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let text = std::fs::read_to_string(&path).expect("scene reads");
    let scene = hoist_raster::scene::parse(&text, &Default::default()).expect("scene parses");
    let pair = &scene.programs[scene.optimize_target()];
    let (vp, fp) = (
        &pair.vertex.as_ref().expect("vp").program,
        &pair.fragment.as_ref().expect("fp").program,
    );
    let opts = hoist_opt::Options::default();
    let mut f = 0;
    for _ in 0..n {
        f += hoist_opt::optimize(vp, fp, &opts)
            .expect("optimizes")
            .after
            .fp_slots
            .total();
    }
    println!("{f}");
}
