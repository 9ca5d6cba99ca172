//! A debugging aid: `cargo run -p hoist-front --example compile -- FILE [arb|d3d9]` prints
//! what a WGSL module (or `gen:SEED`, a generated one) compiles to (programs and binding table), or for a `.shader_test`
//! scene the scene `hoist_front::scene::translate` writes, or the diagnostics. Runs on a
//! thread with a 2 MiB stack, as the test harness does.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1).cloned() else {
        eprintln!("usage: compile FILE [arb|d3d9]");
        return;
    };
    let dialect = args.get(2).map(|d| {
        if d == "d3d9" {
            hoist_asm::Dialect::D3d9
        } else {
            hoist_asm::Dialect::Arb
        }
    });
    let t = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || run(&path, dialect))
        .expect("thread");
    t.join().expect("joined");
}

fn run(path: &str, dialect: Option<hoist_asm::Dialect>) {
    // `gen:SEED`: the generated WGSL program of that seed.
    let src = match path.strip_prefix("gen:") {
        Some(seed) => {
            let g = hoist_front::generate::wgsl(seed.parse().unwrap_or(0));
            println!("{}", g.wgsl);
            g.wgsl
        }
        None => std::fs::read_to_string(path).expect("read"),
    };
    let opts = hoist_front::Options {
        dialect,
        ..Default::default()
    };
    if path.ends_with(".shader_test") {
        match hoist_front::scene::translate(&src, &opts) {
            Ok(Some(t)) => println!("{}", t.text),
            Ok(None) => println!("(no shading-language sections)"),
            Err(d) => print!("{}", hoist_asm::diag::render(&d, path, &src, false)),
        }
        return;
    }
    match hoist_front::compile_wgsl(&src, &opts) {
        Ok(c) => println!(
            "{}\n{}\n{}",
            c.vp,
            c.fp,
            serde_json::to_string_pretty(&c.bindings).unwrap_or_default()
        ),
        Err(e) => print!(
            "{}",
            hoist_asm::diag::render(&e.diagnostics, path, &src, false)
        ),
    }
}
