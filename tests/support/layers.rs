//! No module file of the crate imports another that imports it back, directly or
//! transitively (the scan is in `structure.rs`, which the including test declares next to
//! this module).

use super::structure::{imports, modules};
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn modules_do_not_import_each_other_back() {
    let mods = modules();
    let known: BTreeSet<Vec<String>> = mods.iter().map(|m| m.path.clone()).collect();
    let graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = mods
        .iter()
        .map(|m| (m.path.clone(), imports(m, &known)))
        .collect();
    assert!(
        mods.len() < 3 || graph.values().any(|s| !s.is_empty()),
        "the import scan finds nothing: {graph:#?}"
    );
    // Depth-first search for a back edge, reporting the cycle it closes.
    let name = |p: &Vec<String>| {
        if p.is_empty() {
            "lib".to_string()
        } else {
            p.join("::")
        }
    };
    let mut state: BTreeMap<&Vec<String>, u8> = BTreeMap::new();
    let mut cycles = Vec::new();
    fn visit<'g>(
        n: &'g Vec<String>,
        graph: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<&'g Vec<String>, u8>,
        stack: &mut Vec<&'g Vec<String>>,
        cycles: &mut Vec<Vec<&'g Vec<String>>>,
    ) {
        state.insert(n, 1);
        stack.push(n);
        for m in &graph[n] {
            match state.get(m) {
                Some(1) => {
                    let at = stack.iter().position(|s| *s == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m);
                    cycles.push(c);
                }
                Some(_) => {}
                None => visit(m, graph, state, stack, cycles),
            }
        }
        stack.pop();
        state.insert(n, 2);
    }
    for n in graph.keys() {
        if !state.contains_key(n) {
            visit(n, &graph, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    let shown: Vec<String> = cycles
        .iter()
        .map(|c| c.iter().map(|p| name(p)).collect::<Vec<_>>().join(" -> "))
        .collect();
    assert!(shown.is_empty(), "import cycles:\n{}", shown.join("\n"));
}
