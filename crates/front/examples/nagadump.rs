fn main() {
    let stage = if std::env::args().nth(2).is_some() {
        naga::ShaderStage::Fragment
    } else {
        naga::ShaderStage::Vertex
    };
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let a = hoist_front::adapt::adapt(&src, stage).unwrap();
    println!("{}", a.text);
    let mut fe = naga::front::glsl::Frontend::default();
    let m = fe
        .parse(&naga::front::glsl::Options::from(stage), &a.text)
        .unwrap();
    for (h, f) in m.functions.iter() {
        println!("fn {:?} {:?}: {:#?}", h, f.name, f.body);
    }
    println!("entry: {:#?}", m.entry_points[0].function.body);
    println!("globals: {:#?}", m.global_variables);
}
