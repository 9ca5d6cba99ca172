//! What ARB vertex and fragment programs share: the spelling styles of temporaries and
//! parameters (Cg's `PARAM c[n]` table, named `PARAM`s, Mesa's inline literals), uniform
//! bindings, `SWZ`, and the declaration block.

use super::builder::{Class, ConstStyle, DstReg, Gen, HOST, Info, Mods, Port, Req, Swz, Val, Want};
use super::common::{XYZW, mask_text};
use hoist_asm::Op;

/// Picks how this program spells temporaries and constants.
pub(super) fn style(g: &mut Gen) {
    g.temp_prefix = g.rng.pick(&["R", "R", "T", "tmp", "r"]);
    g.const_style = g.rng.pick(&[
        ConstStyle::Table,
        ConstStyle::Table,
        ConstStyle::Named,
        ConstStyle::Inline,
    ]);
}

/// A uniform (`program.env[n]`, `program.local[n]`, `state.*`) in the pool, spelled the
/// program's way: a table entry, a named `PARAM` or the binding itself.
pub(super) fn uniform(g: &mut Gen, binding: String, params: &mut Vec<String>) -> Option<Val> {
    if g.const_slots + 12 > g.const_cap {
        return None;
    }
    g.const_slots += 1;
    let info = Info::new(HOST, 0.0, Class::Uniform);
    // Each binding once in `c`, and none of the rows of the vertex program's `mvp[4]`
    // array: both may be addressed relatively, and relatively addressed arrays bind each
    // parameter once (ARB_vertex_program, Mesa; E1307).
    let style = match g.const_style {
        ConstStyle::Table if binding.starts_with("state.matrix.mvp.row[") => ConstStyle::Inline,
        s => s,
    };
    let text = match style {
        ConstStyle::Table => match g.table.iter().position(|e| e.as_ref() == Some(&binding)) {
            Some(i) => format!("c[{i}]"),
            None => {
                g.table.push(Some(binding));
                format!("c[{}]", g.table.len() - 1)
            }
        },
        ConstStyle::Named => {
            let name = format!("u{}", params.len());
            params.push(format!("PARAM {name} = {binding};"));
            name
        }
        ConstStyle::Inline => binding,
    };
    let v = Val::new(text, Port::Free, 15, info);
    g.pool.push(v.clone());
    Some(v)
}

/// `program.env[n]` or `program.local[n]`.
pub(super) fn program_param(g: &mut Gen) -> String {
    let kind = g.rng.pick(&["env", "local"]);
    format!("program.{kind}[{}]", g.rng.below(8))
}

/// `SWZ dst, src, x, -y, 0, 1`: an extended swizzle of a register.
pub(super) fn swz(g: &mut Gen, want: Want) -> u16 {
    let mask = g.op_mask(Op::Mov);
    let mut ports = Default::default();
    let mut req = Req::new(15, Swz::Identity, want).plain();
    req.lit_ok = false;
    let mut o = g.src(req, &mut ports, &[]);
    let avail: Vec<u8> = (0..4u8).filter(|&c| o.swz[c as usize] == c).collect();
    let avail = if avail.is_empty() {
        vec![o.swz[0]]
    } else {
        avail
    };
    let mut sels = Vec::with_capacity(4);
    let mut mag: f32 = 0.0;
    for lane in 0..4 {
        let sel_kind = g.rng.below(6);
        let neg = if sel_kind != 1 && g.rng.chance(0.2) {
            "-"
        } else {
            ""
        };
        let sel = match sel_kind {
            0 => {
                mag = mag.max(1.0);
                "1".to_string()
            }
            1 => "0".to_string(),
            _ => {
                let c = if avail.contains(&(lane as u8)) && g.rng.chance(0.5) {
                    lane as u8
                } else {
                    g.rng.pick(&avail)
                };
                mag = mag.max(o.info.mag);
                XYZW[c as usize].to_string()
            }
        };
        sels.push(format!("{neg}{sel}"));
    }
    o.swz = [0, 1, 2, 3];
    let info = Info::new(mag, 0.0, o.info.class);
    let t = g.pick_dst(&[]);
    let dst = g.temp_dst(t, mask);
    let m = g.mods_for(Op::Swz, false);
    let src = g.opnd_text(&o);
    let line = format!(
        "SWZ{} {}{}, {src}, {};",
        if m.sat { "_SAT" } else { "" },
        dst.text,
        mask_text(mask),
        sels.join(", ")
    );
    g.emit(Op::Swz, Mods::default(), Some(&dst), &[o], info);
    if let Some(last) = g.body.last_mut() {
        *last = line;
    }
    if m.sat {
        for c in 0..4 {
            if mask & (1 << c) != 0 {
                g.temps[t as usize].lanes[c] = Some(Info::new(1.0, 0.0, info.class));
            }
        }
    }
    t
}

/// A destination for an output, through its `OUTPUT` alias when it has one.
pub(super) fn out(aliases: &[(String, String)], binding: &str, mask: u8) -> DstReg {
    let text = aliases
        .iter()
        .find(|(_, b)| b == binding)
        .map_or_else(|| binding.to_string(), |(n, _)| n.clone());
    DstReg::out(text, mask)
}

/// The declaration block: options, parameters, aliases, address and temporaries.
pub(super) fn declarations(g: &Gen, options: &[&str], lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = options.iter().map(|o| format!("OPTION {o};")).collect();
    if !g.table.is_empty() {
        out.push(table_text(g));
    }
    for v in &g.pool {
        if let Some(vals) = v.vals
            && v.text.starts_with('k')
        {
            out.push(format!("PARAM {} = {};", v.text, Gen::vals_text(vals)));
        }
    }
    out.extend(lines.iter().cloned());
    if !g.temps.is_empty() {
        let names: Vec<String> = (0..g.temps.len() as u16).map(|t| g.temp_name(t)).collect();
        if g.temp_prefix == "R" || g.temps.len() > 8 {
            out.push(format!("TEMP {};", names.join(", ")));
        } else {
            out.extend(names.iter().map(|n| format!("TEMP {n};")));
        }
    }
    out
}

/// Cg's `PARAM c[n] = { ... };`, with runs of `program.local`/`program.env` entries merged.
fn table_text(g: &Gen) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut run: Option<(String, usize, usize)> = None;
    let flush = |run: &mut Option<(String, usize, usize)>, items: &mut Vec<String>| {
        if let Some((kind, a, b)) = run.take() {
            items.push(if a == b {
                format!("program.{kind}[{a}]")
            } else {
                format!("program.{kind}[{a}..{b}]")
            });
        }
    };
    for (i, e) in g.table.iter().enumerate() {
        let param = e.as_deref().and_then(parse_program_param);
        match (param, &mut run) {
            (Some((k, n)), Some((rk, _, b))) if *rk == k && *b + 1 == n => *b = n,
            (Some((k, n)), _) => {
                flush(&mut run, &mut items);
                run = Some((k.to_string(), n, n));
            }
            (None, _) => {
                flush(&mut run, &mut items);
                items.push(match e {
                    Some(b) => b.clone(),
                    None => {
                        let name = format!("c[{i}]");
                        let vals = g
                            .pool
                            .iter()
                            .find(|v| *v.text == *name)
                            .and_then(|v| v.vals)
                            .unwrap_or([0.0; 4]);
                        Gen::vals_text(vals)
                    }
                });
            }
        }
    }
    flush(&mut run, &mut items);
    format!("PARAM c[{}] = {{ {} }};", g.table.len(), items.join(", "))
}

fn parse_program_param(s: &str) -> Option<(&str, usize)> {
    let rest = s.strip_prefix("program.")?;
    let (kind, idx) = rest.split_once('[')?;
    let n = idx.strip_suffix(']')?.parse().ok()?;
    Some((kind, n))
}
