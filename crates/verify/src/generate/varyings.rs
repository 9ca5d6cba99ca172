//! Interpolants written the way compilers often leave them (issue 24), for the varying
//! passes to find: a constant (a literal, colours sometimes outside [0, 1]); a copy of a
//! host parameter; a value of parameters only (a uniform expression); two outputs carrying
//! one value (a shared temporary or the same attribute); and an input the fragment program
//! reads that the vertex program never writes. Dead outputs (written, never read) come
//! from the vertex generators' extra outputs; centroid and partial-precision inputs from
//! the pixel generator's declarations.
//!
//! [`decorate`] draws the forms from a side stream of the interface's generator, so pairs
//! keep every other draw. [`write`] emits an output of a special form and returns whether
//! it did (a form it cannot write here falls back to the ordinary computed value).

use super::builder::{BIG, Class, DstReg, Gen, HOST, Info, Mods, Opnd, Port, Want};
use super::common::{Rng, VForm, VKind, Varying};
use hoist_asm::Op;

/// Gives some interpolants a special form.
pub(super) fn decorate(rng: &mut Rng, vars: &mut [Varying]) {
    let mut pairs = 0u8;
    for i in 0..vars.len() {
        let v = vars[i];
        if v.form != VForm::Computed {
            continue;
        }
        let form = match rng.below(100) {
            0..=7 => VForm::Constant(constant(rng, &v)),
            8..=12 if !v.w_pos => VForm::Parameter,
            13..=17 if !v.w_pos => VForm::Uniform,
            18..=22 if !v.w_pos && v.kind != VKind::Fog => VForm::Unwritten,
            23..=34 => {
                // A partner of the same kind (texture coordinates or colours) and mask.
                let same = |w: &Varying| {
                    w.form == VForm::Computed
                        && w.mask == v.mask
                        && w.w_pos == v.w_pos
                        && matches!(
                            (w.kind, v.kind),
                            (VKind::Tex(_), VKind::Tex(_)) | (VKind::Color(_), VKind::Color(_))
                        )
                };
                match (i + 1..vars.len()).find(|&j| same(&vars[j])) {
                    Some(j) => {
                        vars[j].form = VForm::Shared(pairs);
                        vars[j].mag = vars[j].mag.min(v.mag);
                        vars[i].mag = vars[j].mag;
                        pairs += 1;
                        VForm::Shared(pairs - 1)
                    }
                    None => VForm::Computed,
                }
            }
            _ => VForm::Computed,
        };
        vars[i].form = form;
    }
}

/// A literal within the interpolant's bound (w in [1/4, bound] when it must be positive);
/// a colour's is mostly in [0, 1].
fn constant(rng: &mut Rng, v: &Varying) -> [f32; 4] {
    let colour = matches!(v.kind, VKind::Color(_));
    let mut c = [(); 4].map(|_| {
        if colour && rng.chance(0.8) {
            rng.pick(&[0.0, 1.0, 0.5, 0.25, 0.75, 0.2126])
        } else {
            rng.nice().clamp(-v.mag, v.mag)
        }
    });
    if v.w_pos {
        c[3] = rng.pick(&[0.25f32, 0.5, 1.0, 2.0]).min(v.mag);
    }
    c
}

/// Emits output `dst` of form `form` (bound `mag`); `partner` is the other output of a
/// shared pair. Returns whether it wrote it.
pub(super) fn write(
    g: &mut Gen,
    dst: &DstReg,
    form: VForm,
    mag: f32,
    partner: Option<&DstReg>,
) -> bool {
    match form {
        VForm::Computed => false,
        VForm::Unwritten => true,
        VForm::Constant(v) => {
            let Some(lit) = g.literal(v) else {
                return false;
            };
            let src = g.whole(&lit);
            let info = src.info;
            g.emit(Op::Mov, Mods::default(), Some(dst), &[src], info);
            true
        }
        VForm::Parameter => match parameter(g) {
            Some(p) => {
                let info = p.info;
                g.emit(Op::Mov, Mods::default(), Some(dst), &[p], info);
                true
            }
            None => false,
        },
        VForm::Uniform => uniform(g, dst, mag),
        VForm::Shared(_) => shared(g, dst, mag, partner),
    }
}

/// A host parameter of the program, read whole.
fn parameter(g: &mut Gen) -> Option<Opnd> {
    let host: Vec<usize> = (0..g.pool.len())
        .filter(|&k| {
            let p = &g.pool[k];
            matches!(p.port, Port::Const(_) | Port::Free)
                && p.vals.is_none()
                && p.avail == 15
                && p.lanes
                    .iter()
                    .all(|l| l.class == Class::Uniform && l.mag <= HOST)
        })
        .collect();
    if host.is_empty() {
        return None;
    }
    let k = host[g.rng.below(host.len())];
    let v = g.pool[k].clone();
    Some(g.whole(&v))
}

/// A value of one parameter and literals. ARB: `MUL out, param, literal` (one instruction,
/// as a compiler folds it). D3D9, where an instruction reads one constant register:
/// `add out, c, c` when the bound allows, else `mov t, c` then `mul out, t, literal`
/// through a fresh temporary.
fn uniform(g: &mut Gen, dst: &DstReg, mag: f32) -> bool {
    let Some(p) = parameter(g) else {
        return false;
    };
    if !g.arb && mag >= 2.0 * HOST && g.rng.chance(0.6) {
        let info = Info::new(2.0 * HOST, 0.0, Class::Uniform);
        g.emit(Op::Add, Mods::default(), Some(dst), &[p.clone(), p], info);
        return true;
    }
    let k = (mag / HOST).clamp(0.25, 2.0);
    let scale = [(); 4].map(|_| g.rng.pick(&[1.0f32, 0.5, -1.0, 2.0, 0.25]).clamp(-k, k));
    let Some(lit) = g.literal(scale) else {
        return false;
    };
    let b = g.whole(&lit);
    let info = Info::new(HOST * k, 0.0, Class::Uniform);
    if g.arb {
        g.emit(Op::Mul, Mods::default(), Some(dst), &[p, b], info);
        return true;
    }
    let Some(t) = g.new_temp() else {
        return false;
    };
    let td = g.temp_dst(t, 15);
    let pinfo = p.info;
    g.emit(Op::Mov, Mods::default(), Some(&td), &[p], pinfo);
    let a = g.read_temp(t, [0, 1, 2, 3], 15);
    g.emit(Op::Mul, Mods::default(), Some(dst), &[a, b], info);
    true
}

/// One value into a fresh temporary, then copied to both outputs of the pair.
fn shared(g: &mut Gen, dst: &DstReg, mag: f32, partner: Option<&DstReg>) -> bool {
    let Some(t) = g.new_temp() else {
        return false;
    };
    let td = g.temp_dst(t, dst.mask);
    let ops = [Op::Mov, Op::Mul, Op::Mad, Op::Add];
    g.value_into(&td, &ops, mag.min(BIG), Want::Live);
    let info = Info::new(mag, 0.0, Class::Varying);
    for d in std::iter::once(dst).chain(partner) {
        let src = g.read_temp(t, [0, 1, 2, 3], d.mask);
        g.emit(Op::Mov, Mods::default(), Some(d), &[src], info);
    }
    true
}
