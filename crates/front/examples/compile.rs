fn main() {
    let args: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&args[1]).unwrap();
    let opts = hoist_front::Options {
        dialect: args.get(2).map(|d| {
            if d == "d3d9" {
                hoist_asm::Dialect::D3d9
            } else {
                hoist_asm::Dialect::Arb
            }
        }),
        ..Default::default()
    };
    match hoist_front::compile_wgsl(&src, &opts) {
        Ok(c) => {
            println!(
                "{}\n{}\n{}",
                c.vp,
                c.fp,
                serde_json::to_string_pretty(&c.bindings).unwrap()
            );
        }
        Err(e) => println!("{:?}", e),
    }
}
