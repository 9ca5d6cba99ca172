//! ARB diagnostics: codes, positions (line:column), several errors per program, hints.

use hoist_asm::{Diagnostic, ParseOptions, Profile, Severity, parse};

fn diags(src: &str) -> Vec<Diagnostic> {
    parse(src, &ParseOptions::default()).diagnostics
}

/// `code@line:col` of every diagnostic.
fn at(src: &str) -> Vec<String> {
    diags(src)
        .iter()
        .map(|d| {
            let p = d.position(src);
            format!("{}@{}:{}", d.code, p.line, p.col)
        })
        .collect()
}

fn hint(src: &str, code: &str) -> String {
    diags(src)
        .into_iter()
        .find(|d| d.code == code)
        .and_then(|d| d.hint)
        .unwrap_or_default()
}

fn accepted(src: &str) -> bool {
    parse(src, &ParseOptions::default()).into_result().is_ok()
}

#[test]
fn several_errors_with_positions() {
    let src = "!!ARBvp1.0
TEMP a;
MOV b, a;
MOV a, vertex.texcord[0];
ADD a, a;
TEMP a;
MOV a, state.light.ambient, a;
END";
    assert_eq!(
        at(src),
        vec![
            "E1100@3:5",
            "E1200@4:15",
            "E1034@5:1",
            "E1101@6:6",
            "E1034@7:29"
        ]
    );
    assert_eq!(hint(src, "E1200"), "did you mean `texcoord`?");
    assert_eq!(hint(src, "E1100"), "did you mean `a`?");
    let d = diags(src);
    assert!(
        d.iter()
            .all(|d| !d.label.is_empty() && d.severity == Severity::Error)
    );
    let redecl = d.iter().find(|d| d.code == "E1101").unwrap();
    assert_eq!(redecl.related.len(), 1);
}

#[test]
fn every_operand_of_an_instruction_is_checked() {
    let src = "!!ARBvp1.0\nMOV r0, state.light.ambient;\nEND";
    assert_eq!(at(src), vec!["E1100@2:5", "E1202@2:15"]);
}

#[test]
fn names_and_operand_kinds() {
    assert_eq!(at("!!ARBvp1.0\nTEMP MOV;\nEND"), vec!["E1102@2:6"]);
    assert!(accepted(
        "!!ARBfp1.0\nTEMP ADDRESS, vertex;\nMOV vertex, ADDRESS;\nEND"
    ));
    assert_eq!(
        at("!!ARBvp1.0\nTEMP a;\nMOV vertex.color, a;\nMOV a, result.color;\nEND"),
        vec!["E1103@3:5", "E1104@4:8"]
    );
    assert_eq!(
        at("!!ARBvp1.0\nPARAM p = {1};\nTEMP a;\nMOV p, a;\nMOV a, p[0];\nEND"),
        vec!["E1103@4:5", "E1105@5:9"]
    );
    let src = "!!ARBvp1.0\nTEMP a;\nMOV counter, a;\nEND";
    assert_eq!(hint(src, "E1100"), "declare it first, e.g. `TEMP counter;`");
    assert_eq!(
        at("!!ARBvp1.0\nALIAS x = nothing;\nMOV x, x;\nEND"),
        vec!["E1100@2:11"]
    );
}

#[test]
fn attributes_options_and_position_invariance() {
    let src =
        "!!ARBvp1.0\nMOV result.color, vertex.color;\nMOV result.texcoord, vertex.attrib[3];\nEND";
    assert_eq!(at(src), vec!["E1210@3:22"]);
    assert_eq!(diags(src)[0].related[0].1, "first used here");
    assert_eq!(
        at(
            "!!ARBvp1.0\nOPTION ARB_position_invariant;\nMOV result.position, vertex.position;\nEND"
        ),
        vec!["E1211@3:12"]
    );
    assert_eq!(
        at("!!ARBvp1.0\nOPTION NV_vertex_program2;\nOPTION ARB_fog_exp;\nOPTION made_up;\nEND"),
        vec!["E1021@2:8", "E1022@3:8", "E1020@4:8"]
    );
    assert_eq!(
        at("!!ARBfp1.0\nOPTION ARB_fog_linear;\nOPTION ARB_fog_linear;\nOPTION ARB_fog_exp2;\nEND"),
        vec!["E1023@4:8"]
    );
}

#[test]
fn instruction_shapes() {
    assert_eq!(
        at("!!ARBvp1.0\nTEMP a;\nMOV_SAT a, a;\nEND"),
        vec!["E1033@3:1"]
    );
    let src = "!!ARBvp1.0\nTEMP a;\nRCP a, a;\nRCP a, a.xxxx;\nEND";
    assert_eq!(at(src), vec!["E1035@3:8", "E1035@4:8"]);
    assert_eq!(hint(src, "E1035"), "write it as `a.x`");
    assert_eq!(
        at("!!ARBvp1.0\nTEMP a;\nMOV a.yx, a;\nMOV a, a.xy;\nMOV a.q, a.rgba;\nEND"),
        vec!["E1037@3:7", "E1036@4:10", "E1037@5:7", "E1036@5:12"]
    );
    assert_eq!(
        hint("!!ARBvp1.0\nTEMP a;\nMOx a, a;\nEND", "E1030"),
        "did you mean `MOV`?"
    );
    assert_eq!(
        at("!!ARBvp1.0\nTEMP a;\nSEQ a, a, a;\nEND"),
        vec!["E1031@3:1"]
    );
    assert_eq!(at("!!ARBvp1.0\nTEMP a;\nKIL a;\nEND"), vec!["E1032@3:1"]);
    assert_eq!(
        at("!!ARBvp1.0\nTEMP a;\nSWZ a, -a, x, y, z, w;\nEND"),
        vec!["E1039@3:8"]
    );
    assert_eq!(
        at("!!ARBvp1.0\nADDRESS A;\nARL A, vertex.position.x;\nEND"),
        vec!["E1043@3:5"]
    );
}

#[test]
fn fragment_rules() {
    assert_eq!(
        at("!!ARBfp1.0\nADDRESS A0;\nARL A0.x, fragment.color.x;\nEND"),
        vec!["E1032@2:9", "E1032@3:1"]
    );
    assert_eq!(
        at(
            "!!ARBfp1.0\nTEX result.color, fragment.texcoord, texture[0], 2D;\nTEX result.color, fragment.texcoord, texture[0], 3D;\nEND"
        ),
        vec!["E1304@3:1"]
    );
    assert_eq!(
        at(
            "!!ARBfp1.0\nTEX result.color, fragment.texcoord, texture[0], SHADOW2D;\nTEX result.color, fragment.texcoord, texture[99], 4D;\nEND"
        ),
        vec!["E1041@2:50", "E1201@3:45", "E1040@3:51"]
    );
    assert_eq!(
        at("!!ARBfp1.0\nMOV result.color[1], fragment.color;\nEND"),
        vec!["E1213@2:17"]
    );
    assert_eq!(
        at("!!ARBfp1.0\nPARAM a[2] = {1, 2};\nMOV result.color, a[A0.x];\nEND"),
        vec!["E1108@2:..".replace("2:..", "3:20")]
    );
    // Five dependent reads: five indirections, over the R300's four.
    let mut src = String::from("!!ARBfp1.0\nTEMP t;\nTEX t, fragment.texcoord, texture, 2D;\n");
    for _ in 0..4 {
        src.push_str("TEX t, t, texture, 2D;\n");
    }
    src.push_str("MOV result.color, t;\nEND");
    assert_eq!(at(&src), vec!["W1305@3:1"]);
    assert!(accepted(&src));
    src = src.replacen("TEX t, t, texture, 2D;\n", "", 1);
    assert_eq!(at(&src), Vec::<String>::new());
}

#[test]
fn params_and_arrays() {
    assert_eq!(
        at(
            "!!ARBvp1.0\nPARAM a[3] = {1, 2};\nPARAM b[0] = {1};\nPARAM c[] = { program.env[3..1] };\nEND"
        ),
        vec!["E1208@2:9", "E1209@3:9", "E1207@4:26"]
    );
    assert_eq!(
        at("!!ARBvp1.0\nPARAM m = state.matrix.mvp;\nPARAM e = program.env[0..3];\nEND"),
        vec!["E1206@2:11", "E1206@3:11"]
    );
    assert_eq!(
        at("!!ARBvp1.0\nPARAM m[] = { state.matrix.mvp };\nTEMP t;\nMOV t, m[4];\nMOV t, m;\nEND"),
        vec!["E1107@4:9", "E1106@5:8"]
    );
    assert_eq!(
        at(
            "!!ARBvp1.0\nPARAM m[] = { 1 };\nADDRESS A;\nTEMP t;\nMOV t, m[A.y];\nMOV t, m[t.x];\nEND"
        ),
        vec!["E1109@5:12", "E1111@6:10"]
    );
}

#[test]
fn headers_warnings_and_limits() {
    assert_eq!(at("MOV r0, r1;"), vec!["E0001@1:1"]);
    let p = parse(
        "MOV r0, r1;",
        &ParseOptions {
            profile: Some(Profile::ArbFp1),
            limits: None,
        },
    );
    assert_eq!(p.diagnostics[0].code, "E1001");
    let src = "\n  !!ARBvp1.0\nEND\n trailing words";
    assert_eq!(at(src), vec!["W1001@1:1", "W1002@4:2"]);
    assert!(accepted(src));
    assert_eq!(at("!!ARBvp1.0\nTEMP a;"), vec!["E1005@2:8"]);
    let mut many = String::from("!!ARBfp1.0\nTEMP t;\n");
    for _ in 0..97 {
        many.push_str("MOV t, t;\n");
    }
    many.push_str("END");
    let codes: Vec<String> = diags(&many)
        .into_iter()
        .map(|d| d.code.to_string())
        .collect();
    assert_eq!(codes, vec!["E0301", "E0301"]);
    let fog = "!!ARBfp1.0\nOPTION ARB_fog_exp2;\nTEMP t;\n".to_string()
        + &"MOV t, t;\n".repeat(61)
        + "END";
    assert_eq!(at(&fog), vec!["E1303@4:1"]);
}

#[test]
fn relative_offsets() {
    let src = "!!ARBvp1.0\nPARAM m[] = { 1 };\nADDRESS A;\nMOV result.color, m[A.x + 100];\nEND";
    let d = diags(src);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, "W1003");
    assert!(accepted(src));
    assert_eq!(
        at("!!ARBvp1.0\nPARAM m[] = { 1 };\nADDRESS A;\nMOV result.color, m[A.x + 99999];\nEND"),
        vec!["E1110@4:20"]
    );
}

#[test]
fn binding_errors_name_this_stages_words() {
    let d = diags("!!ARBvp1.0\nMOV result.clip[0], vertex.position;\nEND");
    assert_eq!(d[0].code, "E1200");
    assert_eq!(
        d[0].label,
        "expected `position`, `color`, `fogcoord`, `pointsize`, `texcoord`"
    );
    let d = diags("!!ARBfp1.0\nMOV result.color, state.texgen[0].eye.s;\nEND");
    assert_eq!(d[0].code, "E1204");
    let d = diags("!!ARBfp1.0\nMOV result.color, state.fgo.color;\nEND");
    assert_eq!(d[0].hint.as_deref(), Some("did you mean `fog`?"));
    assert!(!d[0].label.contains("texgen"), "{}", d[0].label);
}

#[test]
fn junk_is_reported_not_fatal() {
    let src = "!!ARBvp1.0\n\u{0}\u{0}\u{7f} ;\nMOV result.color, vertex.color ü;\nEND";
    assert_eq!(at(src), vec!["E1003@2:1", "E1003@3:32"]);
}
