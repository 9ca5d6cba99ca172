//! The binding rules of ARB_vertex_program and ARB_fragment_program, program by program:
//! what Hoist says (accepted, or the error code) and what Mesa's parser says, checked live
//! against llvmpipe through `../shared/tools/arbref` when it is there (each program is
//! loaded with `glProgramStringARB`; a pass-through program fills the other stage).
//!
//! Hoist and Mesa agree on every rule below except the listed differences, each with its
//! reason; the live check asserts Mesa's verdicts too, so a difference cannot hide.
#![cfg(not(target_arch = "wasm32"))]

use hoist_asm::ParseOptions;
use std::path::Path;
use std::process::Command;

#[path = "../../../tests/support/oracles.rs"]
mod oracles;

const REL: &str = "ADDRESS A0;\nARL A0.x, vertex.position.x;\n";

/// (name, program, Hoist's error code or `None` for accepted, Mesa accepts, why they differ)
type Case = (
    &'static str,
    String,
    Option<&'static str>,
    bool,
    &'static str,
);

fn vp(body: &str) -> String {
    format!("!!ARBvp1.0\n{body}END\n")
}

fn fp(body: &str) -> String {
    format!("!!ARBfp1.0\n{body}END\n")
}

/// A relatively addressed array declared by `decl`, read as `a[A0.x]`.
fn rel(decl: &str) -> String {
    vp(&format!(
        "PARAM a[] = {{ {decl} }};\n{REL}MOV result.position, a[A0.x];\n"
    ))
}

fn cases() -> Vec<Case> {
    const E: Option<&str> = Some("E1307");
    vec![
        // A binding used twice in an array addressed relatively (the program).
        (
            "dup_env",
            rel("program.env[0], program.env[0]"),
            E,
            false,
            "",
        ),
        (
            "dup_in_range",
            rel("program.env[0..1], program.env[1]"),
            E,
            false,
            "",
        ),
        (
            "dup_local",
            rel("program.local[2], program.local[2]"),
            E,
            false,
            "",
        ),
        (
            "dup_matrix_row",
            rel("state.matrix.mvp, state.matrix.mvp.row[1]"),
            E,
            false,
            "",
        ),
        // The same state spelled two ways is the same binding.
        (
            "dup_material_face",
            rel("state.material.diffuse, state.material.front.diffuse"),
            E,
            false,
            "",
        ),
        (
            "dup_modelview0",
            rel("state.matrix.modelview.row[0], state.matrix.modelview[0].row[0]"),
            E,
            false,
            "",
        ),
        (
            "dup_texgen_unit0",
            rel("state.texgen.eye.s, state.texgen[0].eye.s"),
            E,
            false,
            "",
        ),
        (
            "dup_scenecolor",
            rel("state.lightmodel.scenecolor, state.lightmodel.front.scenecolor"),
            E,
            false,
            "",
        ),
        (
            "dup_in_two_arrays",
            vp(&format!(
                "PARAM a[2] = {{ program.env[0], program.env[1] }};\nPARAM b[2] = {{ program.env[1], program.env[2] }};\n\
             {REL}ADD result.position, a[A0.x], b[A0.x];\n"
            )),
            E,
            false,
            "",
        ),
        // ... and what stays legal.
        (
            "dup_not_relative",
            vp("PARAM a[2] = { program.env[0], program.env[0] };\nMOV result.position, a[1];\n"),
            None,
            true,
            "",
        ),
        ("dup_literals", rel("1, 1, program.env[1]"), None, true, ""),
        (
            "env_and_local",
            rel("program.env[0], program.local[0]"),
            None,
            true,
            "",
        ),
        (
            "transpose_is_other_state",
            rel("state.matrix.mvp.row[0], state.matrix.mvp.transpose.row[0]"),
            None,
            true,
            "",
        ),
        (
            "one_array_relative",
            vp(&format!(
                "PARAM a[2] = {{ program.env[0], program.env[1] }};\nPARAM b[2] = {{ program.env[1], program.env[2] }};\n\
             {REL}ADD result.position, a[A0.x], b[1];\n"
            )),
            None,
            true,
            "",
        ),
        (
            "single_name_and_array",
            vp(&format!(
                "PARAM s = program.env[0];\nPARAM a[2] = {{ program.env[0], program.env[1] }};\n\
             {REL}ADD result.position, a[A0.x], s;\n"
            )),
            None,
            true,
            "",
        ),
        // Conventional attributes and the generic attributes they alias.
        (
            "alias_position",
            vp(
                "ATTRIB a = vertex.position;\nATTRIB b = vertex.attrib[0];\nMOV result.position, a;\n",
            ),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_normal",
            vp("MOV result.position, vertex.normal;\nMOV result.color, vertex.attrib[2];\n"),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_color",
            vp("MOV result.position, vertex.color;\nMOV result.color, vertex.attrib[3];\n"),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_secondary",
            vp(
                "MOV result.position, vertex.color.secondary;\nMOV result.color, vertex.attrib[4];\n",
            ),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_fogcoord",
            vp("MOV result.position, vertex.fogcoord;\nMOV result.color, vertex.attrib[5];\n"),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_texcoord0",
            vp("MOV result.position, vertex.texcoord[0];\nMOV result.color, vertex.attrib[8];\n"),
            Some("E1210"),
            false,
            "",
        ),
        (
            "alias_texcoord7",
            vp("MOV result.position, vertex.texcoord[7];\nMOV result.color, vertex.attrib[15];\n"),
            Some("E1210"),
            false,
            "",
        ),
        (
            "generic_6_7",
            vp("ADD result.position, vertex.attrib[6], vertex.attrib[7];\n"),
            None,
            true,
            "",
        ),
        (
            "attrib_twice",
            vp(
                "ATTRIB a = vertex.position;\nATTRIB b = vertex.position;\nADD result.position, a, b;\n",
            ),
            None,
            true,
            "",
        ),
        (
            "output_twice",
            vp(
                "OUTPUT a = result.position;\nOUTPUT b = result.position;\nMOV a, vertex.position;\nMOV b, vertex.position;\n",
            ),
            None,
            true,
            "",
        ),
        // Ranges, sizes and selectors.
        (
            "array_size_0",
            vp("PARAM a[0] = { program.env[0] };\nMOV result.position, vertex.position;\n"),
            Some("E1209"),
            false,
            "",
        ),
        (
            "rows_reversed",
            vp(
                "PARAM a[2] = { state.matrix.mvp.row[3..2] };\nMOV result.position, vertex.position;\n",
            ),
            Some("E1207"),
            false,
            "",
        ),
        (
            "rows_equal",
            vp("PARAM a[1] = { state.matrix.mvp.row[2..2] };\nMOV result.position, a[0];\n"),
            None,
            true,
            "",
        ),
        (
            "range_in_single",
            vp("PARAM p = program.env[0..1];\nMOV result.position, p;\n"),
            Some("E1206"),
            false,
            "",
        ),
        (
            "array_without_index",
            vp("PARAM a[2] = { program.env[0..1] };\nMOV result.position, a;\n"),
            Some("E1106"),
            false,
            "",
        ),
        (
            "attrib_16",
            vp("MOV result.position, vertex.attrib[16];\n"),
            Some("E1201"),
            false,
            "",
        ),
        (
            "light_8",
            vp("MOV result.position, state.light[8].diffuse;\n"),
            Some("E1201"),
            false,
            "",
        ),
        (
            "program_matrix_8",
            vp("MOV result.position, state.matrix.program[8].row[0];\n"),
            Some("E1201"),
            false,
            "",
        ),
        (
            "texcoord_8",
            vp("MOV result.position, vertex.position;\nMOV result.texcoord[8], vertex.position;\n"),
            Some("E1201"),
            false,
            "",
        ),
        (
            "arl_y",
            vp(
                "ADDRESS A0;\nARL A0.y, vertex.position.x;\nMOV result.position, vertex.position;\n",
            ),
            Some("E1043"),
            false,
            "",
        ),
        (
            "matrixindex",
            vp("MOV result.position, vertex.matrixindex[0];\n"),
            Some("E1212"),
            false,
            "",
        ),
        // Fragment programs: one target per texture unit (shadow or not), options.
        (
            "unit_two_targets",
            fp(
                "TEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\nTEX result.color, fragment.texcoord[0], texture[0], CUBE;\n",
            ),
            Some("E1304"),
            false,
            "",
        ),
        (
            "unit_shadow_and_not",
            fp(
                "OPTION ARB_fragment_program_shadow;\nTEMP a;\nTEX a, fragment.texcoord[0], texture[0], 2D;\n\
            TEX result.color, fragment.texcoord[0], texture[0], SHADOW2D;\n",
            ),
            Some("E1304"),
            false,
            "",
        ),
        (
            "unit_one_target_two_ops",
            fp(
                "TEMP a;\nTEX a, fragment.texcoord[0], texture[0], RECT;\nTXP result.color, a, texture[0], RECT;\n",
            ),
            None,
            true,
            "",
        ),
        (
            "shadow_without_option",
            fp("TEX result.color, fragment.texcoord[0], texture[0], SHADOW2D;\n"),
            Some("E1041"),
            false,
            "",
        ),
        (
            "two_fog_modes",
            fp(
                "OPTION ARB_fog_linear;\nOPTION ARB_fog_exp;\nMOV result.color, fragment.fogcoord;\n",
            ),
            Some("E1023"),
            false,
            "",
        ),
        (
            "fog_mode_twice",
            fp(
                "OPTION ARB_fog_linear;\nOPTION ARB_fog_linear;\nMOV result.color, fragment.fogcoord;\n",
            ),
            None,
            true,
            "",
        ),
        (
            "fog_with_draw_buffers",
            fp(
                "OPTION ARB_fog_exp2;\nOPTION ARB_draw_buffers;\nMOV result.color[1], fragment.color;\nMOV result.color[0], fragment.fogcoord;\n",
            ),
            None,
            true,
            "",
        ),
        (
            "color_index_without_option",
            fp("MOV result.color[1], fragment.color;\n"),
            Some("E1213"),
            false,
            "",
        ),
        (
            "fragment_output_twice",
            fp(
                "OUTPUT a = result.color;\nOUTPUT b = result.color;\nMOV a, fragment.color;\nMOV b, fragment.color;\n",
            ),
            None,
            true,
            "",
        ),
        (
            "fragment_array_repeats",
            fp("PARAM a[2] = { program.env[0], program.env[0] };\nADD result.color, a[0], a[1];\n"),
            None,
            true,
            "",
        ),
        (
            "texcoord_8_fragment",
            fp("MOV result.color, fragment.texcoord[8];\n"),
            Some("E1201"),
            false,
            "",
        ),
        // Differences, each deliberate.
        (
            "clip_plane_6",
            vp("MOV result.position, state.clip[6].plane;\n"),
            Some("E1201"),
            true,
            "Hoist allows GL's minimum of 6 clip planes; llvmpipe has 8",
        ),
        (
            "texture_unit_16",
            fp("TEX result.color, fragment.texcoord[0], texture[16], 2D;\n"),
            Some("E1201"),
            true,
            "Hoist's targets have 16 texture image units; llvmpipe has 32",
        ),
        (
            "modelview_1",
            vp("MOV result.position, state.matrix.modelview[1].row[0];\n"),
            None,
            false,
            "Hoist parses the ARB_vertex_blend matrices (they read as identity); this Mesa lacks the extension",
        ),
        (
            "palette",
            vp("MOV result.position, state.matrix.palette[0].row[0];\n"),
            None,
            false,
            "Hoist parses the ARB_matrix_palette matrices (they read as identity); this Mesa lacks the extension",
        ),
        (
            "weight",
            vp("MOV result.position, vertex.weight;\n"),
            None,
            false,
            "Hoist reads vertex.weight as attribute 1 (what D3D9 blend weights translate to); this Mesa lacks ARB_vertex_blend",
        ),
    ]
}

/// Hoist's verdict: `None` when the program parses, else the first error's code.
fn hoist(text: &str) -> Option<String> {
    let parsed = hoist_asm::parse(text, &ParseOptions::default());
    let errors: Vec<_> = parsed.diagnostics.iter().filter(|d| d.is_error()).collect();
    errors.first().map(|d| d.code.to_string())
}

#[test]
fn hoist_applies_every_binding_rule() {
    let mut n = 0;
    for (name, text, want, _, _) in cases() {
        let got = hoist(&text);
        assert_eq!(got.as_deref(), want, "{name}:\n{text}");
        n += 1;
    }
    println!("binding rules: {n} programs, each accepted or refused with its code");
}

/// Mesa's verdict through arbref: `Ok(true)` when both programs load.
fn mesa(bin: &Path, dir: &Path, name: &str, text: &str) -> Result<bool, String> {
    let vertex = text.starts_with("!!ARBvp");
    let vp = dir.join(format!("{name}.vp"));
    let fp = dir.join(format!("{name}.fp"));
    let pass_vp = "!!ARBvp1.0\nMOV result.position, vertex.position;\nEND\n";
    let pass_fp = "!!ARBfp1.0\nMOV result.color, fragment.color;\nEND\n";
    std::fs::write(&vp, if vertex { text } else { pass_vp }).unwrap();
    std::fs::write(&fp, if vertex { pass_fp } else { text }).unwrap();
    let o = Command::new(bin)
        .args(["-q", "--osmesa", "--size", "2x2", "--vp"])
        .arg(&vp)
        .arg("--fp")
        .arg(&fp)
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
    match o.status.code() {
        Some(0) => Ok(true),
        Some(2) if err.contains("glProgramStringARB") => Ok(false),
        _ => Err(err),
    }
}

#[test]
fn mesa_agrees_except_where_listed() {
    let bin = match oracles::arbref() {
        Ok(b) => b,
        Err(e) => return oracles::skip(&e),
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("binding-rules");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut same, mut differ) = (0, 0);
    for (name, text, _, mesa_accepts, why) in cases() {
        let m = match mesa(&bin, &dir, name, &text) {
            Ok(m) => m,
            Err(e) if e.contains("OSMesa") || e.contains("dlopen") => return oracles::skip(&e),
            Err(e) => panic!("{name}: arbref failed: {e}"),
        };
        assert_eq!(m, mesa_accepts, "{name}: Mesa's verdict changed\n{text}");
        if m == hoist(&text).is_none() {
            same += 1;
        } else {
            assert!(
                !why.is_empty(),
                "{name}: Hoist and Mesa differ with no reason given"
            );
            println!("differs: {name}: {why}");
            differ += 1;
        }
    }
    println!("binding rules against Mesa: {same} programs agree, {differ} differ as listed");
    assert!(same >= 45);
}
