//! A program's instructions as WGSL functions: the main program (up to the first label) as
//! `v_main`/`f_main`, each D3D9 subroutine (`label` to the next label) as `v_lN`/`f_lN`,
//! with structured flow control as the executor matches it.
//!
//! `if`/`else`/`endif` with a `b#`, predicate or comparison condition; `loop aL, i#` and
//! `rep i#` run `clamp(i.x, 0, max)` iterations (the executor's loop cap), `aL` starting at
//! i.y and stepping by i.z, restored after the loop; `break`, `break_cc`, `breakp`; `call`,
//! `callnz` and `ret`. Conditions read the first lane of their (swizzled) operands. WGSL has
//! no recursion: a recursive subroutine, or calls nested deeper than the executor's call
//! depth (it skips the deeper calls), is an error here.

use super::common::Ctx;
use super::{inst, tex};
use crate::error::Error;
use hoist_asm::ir::RegFile;
use hoist_asm::ops::Cond;
use hoist_asm::{Inst, Op, Reg};
use std::collections::BTreeMap;

fn cond_op(c: Cond) -> &'static str {
    match c {
        Cond::Gt => ">",
        Cond::Eq => "==",
        Cond::Ge => ">=",
        Cond::Lt => "<",
        Cond::Ne => "!=",
        Cond::Le => "<=",
    }
}

/// Labels by number with the range of their bodies, and the end of the main program.
fn subroutines(ctx: &Ctx) -> (BTreeMap<u16, (usize, usize)>, usize) {
    let insts = &ctx.p.insts;
    let starts: Vec<usize> = (0..insts.len())
        .filter(|&i| insts[i].op == Op::Label)
        .collect();
    let mut labels = BTreeMap::new();
    for (n, &at) in starts.iter().enumerate() {
        let id = insts[at].src.first().map_or(0, |s| s.reg.index);
        let end = starts.get(n + 1).copied().unwrap_or(insts.len());
        labels.entry(id).or_insert((at + 1, end));
    }
    (labels, starts.first().copied().unwrap_or(insts.len()))
}

fn callee(i: &Inst) -> Option<u16> {
    matches!(i.op, Op::Call | Op::Callnz).then(|| i.src.first().map_or(0, |s| s.reg.index))
}

/// Refuses recursion and calls nested deeper than `max_depth`.
fn check_calls(
    ctx: &Ctx,
    labels: &BTreeMap<u16, (usize, usize)>,
    main_end: usize,
    max_depth: u32,
) -> Result<(), Error> {
    let calls = |from: usize, to: usize| -> Vec<(usize, u16)> {
        (from..to)
            .filter_map(|i| callee(&ctx.p.insts[i]).map(|l| (i, l)))
            .collect()
    };
    // Depth of the deepest chain below each label, with cycle detection.
    fn depth(
        l: u16,
        labels: &BTreeMap<u16, (usize, usize)>,
        calls: &dyn Fn(usize, usize) -> Vec<(usize, u16)>,
        on_path: &mut Vec<u16>,
    ) -> Result<u32, u16> {
        if on_path.contains(&l) {
            return Err(l);
        }
        let Some(&(a, b)) = labels.get(&l) else {
            return Ok(0);
        };
        on_path.push(l);
        let mut d = 0;
        for (_, c) in calls(a, b) {
            d = d.max(1 + depth(c, labels, calls, on_path)?);
        }
        on_path.pop();
        Ok(d)
    }
    for (at, l) in calls(0, main_end) {
        if !labels.contains_key(&l) {
            return Err(Error::at(
                ctx.p.stage(),
                at,
                format!("call to undefined label l{l}"),
            ));
        }
        match depth(l, labels, &calls, &mut Vec::new()) {
            Err(r) => {
                return Err(Error::at(
                    ctx.p.stage(),
                    at,
                    format!("subroutine l{r} calls itself: WGSL and GLSL have no recursion"),
                ));
            }
            Ok(d) if d + 1 > max_depth => {
                return Err(Error::at(
                    ctx.p.stage(),
                    at,
                    format!(
                        "calls nest {} deep; the executor skips calls deeper than {max_depth}",
                        d + 1
                    ),
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// Writes the stage's functions.
pub(crate) fn functions(ctx: &mut Ctx, max_call_depth: u32) -> Result<(), Error> {
    let (labels, main_end) = subroutines(ctx);
    check_calls(ctx, &labels, main_end, max_call_depth)?;
    let s = ctx.s();
    for (&l, &(a, b)) in &labels {
        ctx.line(&format!("fn {s}_l{l}() {{"));
        ctx.depth += 1;
        block(ctx, a, b)?;
        ctx.depth -= 1;
        ctx.line("}\n");
    }
    ctx.line(&format!("fn {s}_main() {{"));
    ctx.depth += 1;
    block(ctx, 0, main_end)?;
    ctx.depth -= 1;
    ctx.line("}\n");
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    If { has_else: bool },
    Loop(usize),
    Rep,
}

/// A flow condition of source `k` (a `b#`, or a predicate lane), negated by `!`.
fn flag(ctx: &Ctx, ins: &Inst, k: usize) -> Result<String, Error> {
    let src = ins
        .src
        .get(k)
        .ok_or_else(|| ctx.err("flow control without its condition"))?;
    let t = match src.reg.file {
        RegFile::ConstBool => format!("({}.b[{}].x != 0u)", ctx.ints(), src.reg.index),
        RegFile::Predicate => format!(
            "({}.{} != 0.0f)",
            ctx.reg(Reg::new(RegFile::Predicate, 0)),
            ['x', 'y', 'z', 'w'][src.swizzle.get(0) as usize]
        ),
        f => return Err(ctx.err(format!("{f:?} cannot be a flow-control condition"))),
    };
    Ok(if src.negate { format!("!{t}") } else { t })
}

/// A comparison condition: binds both operands, returns `a.x OP b.x`.
fn compare(ctx: &mut Ctx, ins: &Inst, c: Cond) -> Result<String, Error> {
    if ins.src.len() < 2 {
        return Err(ctx.err("comparison without two operands"));
    }
    let mut pre = Vec::new();
    let a = ctx.src(&ins.src[0], 0, &mut pre)?;
    let b = ctx.src(&ins.src[1], 0, &mut pre)?;
    for l in pre {
        ctx.line(&l);
    }
    let i = ctx.at;
    ctx.line(&format!("let ca{i} = {a};"));
    ctx.line(&format!("let cb{i} = {b};"));
    Ok(format!("ca{i}.x {} cb{i}.x", cond_op(c)))
}

fn open_loop(ctx: &mut Ctx, ins: &Inst, aloop: bool) -> Result<(), Error> {
    let k = if aloop { 1 } else { 0 };
    let ireg = ins
        .src
        .get(k)
        .map(|s| s.reg.index)
        .ok_or_else(|| ctx.err("loop without its integer constant"))?;
    let i = ctx.at;
    ctx.line("{");
    ctx.depth += 1;
    ctx.line(&format!("let ic{i} = {}.i[{ireg}];", ctx.ints()));
    ctx.line(&format!("let n{i} = clamp(ic{i}.x, 0, {});", ctx.max_loop));
    let al = ctx.reg(Reg::new(RegFile::Loop, 0));
    if aloop {
        ctx.line(&format!("let sv{i} = {al}.x;"));
    }
    ctx.line(&format!("for (var it{i} = 0; it{i} < n{i}; it{i}++) {{"));
    ctx.depth += 1;
    if aloop {
        ctx.line(&format!("{al}.x = f32(ic{i}.y + it{i} * ic{i}.z);"));
    }
    Ok(())
}

fn close(ctx: &mut Ctx, stack: &mut Vec<Open>, want: &str) -> Result<Open, Error> {
    let top = stack
        .pop()
        .ok_or_else(|| ctx.err(format!("{want} without its opening instruction")))?;
    ctx.depth -= 1;
    match top {
        Open::If { .. } if want == "endif" => ctx.line("}"),
        Open::Loop(j) if want == "endloop" => {
            ctx.line("}");
            let al = ctx.reg(Reg::new(RegFile::Loop, 0));
            ctx.line(&format!("{al}.x = sv{j};"));
            ctx.depth -= 1;
            ctx.line("}");
        }
        Open::Rep if want == "endrep" => {
            ctx.line("}");
            ctx.depth -= 1;
            ctx.line("}");
        }
        _ => return Err(ctx.err(format!("{want} closes the wrong construct"))),
    }
    Ok(top)
}

/// Instructions `from..to` with their flow control.
fn block(ctx: &mut Ctx, from: usize, to: usize) -> Result<(), Error> {
    let p = ctx.p;
    let (text, lines) = hoist_asm::print_with_lines(p);
    let printed: Vec<&str> = text.lines().collect();
    let mut stack: Vec<Open> = Vec::new();
    for i in from..to {
        ctx.at = i;
        let ins = &p.insts[i];
        if let Some(t) = lines.get(i).and_then(|&l| printed.get(l)) {
            ctx.line(&format!("// {}", t.trim()));
        }
        statement(ctx, ins, &mut stack)?;
    }
    if !stack.is_empty() {
        return Err(ctx.err("flow control is not closed before the end of its body"));
    }
    Ok(())
}

fn in_loop(stack: &[Open]) -> bool {
    stack.iter().any(|o| matches!(o, Open::Loop(_) | Open::Rep))
}

fn statement(ctx: &mut Ctx, ins: &Inst, stack: &mut Vec<Open>) -> Result<(), Error> {
    let s = ctx.s();
    match ins.op {
        Op::If => {
            let c = flag(ctx, ins, 0)?;
            ctx.line(&format!("if {c} {{"));
            ctx.depth += 1;
            stack.push(Open::If { has_else: false });
        }
        Op::Ifc(c) => {
            let c = compare(ctx, ins, c)?;
            ctx.line(&format!("if {c} {{"));
            ctx.depth += 1;
            stack.push(Open::If { has_else: false });
        }
        Op::Else => match stack.last_mut() {
            Some(Open::If { has_else }) if !*has_else => {
                *has_else = true;
                ctx.depth -= 1;
                ctx.line("} else {");
                ctx.depth += 1;
            }
            _ => return Err(ctx.err("else without if")),
        },
        Op::Endif => {
            close(ctx, stack, "endif")?;
        }
        Op::Loop | Op::Rep => {
            open_loop(ctx, ins, ins.op == Op::Loop)?;
            stack.push(if ins.op == Op::Loop {
                Open::Loop(ctx.at)
            } else {
                Open::Rep
            });
        }
        Op::Endloop => {
            close(ctx, stack, "endloop")?;
        }
        Op::Endrep => {
            close(ctx, stack, "endrep")?;
        }
        Op::Break | Op::Breakc(_) | Op::Breakp if !in_loop(stack) => {
            return Err(ctx.err("break outside a loop"));
        }
        Op::Break => ctx.line("break;"),
        Op::Breakc(c) => {
            let c = compare(ctx, ins, c)?;
            ctx.line(&format!("if {c} {{ break; }}"));
        }
        Op::Breakp => {
            let c = flag(ctx, ins, 0)?;
            ctx.line(&format!("if {c} {{ break; }}"));
        }
        Op::Call => {
            let l = callee(ins).unwrap_or(0);
            ctx.line(&format!("{s}_l{l}();"));
        }
        Op::Callnz => {
            let l = callee(ins).unwrap_or(0);
            let c = flag(ctx, ins, 1)?;
            ctx.line(&format!("if {c} {{ {s}_l{l}(); }}"));
        }
        Op::Ret => ctx.line("return;"),
        Op::Nop => {}
        Op::Label => return Err(ctx.err("label inside a body")),
        _ => {
            if !inst::alu(ctx, ins)? && !tex::special(ctx, ins)? {
                return Err(ctx.err(format!("{:?} has no translation", ins.op)));
            }
        }
    }
    Ok(())
}
