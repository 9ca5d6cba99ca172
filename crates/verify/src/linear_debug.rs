//! The linear mode's debugger (issue 25): the emitted code of one grouping run on one x
//! vector in the trace engine (`hoist_raster::trace::trace_vertices`, the recorder of the
//! pixel trace), every instruction's result per lane, each lane labelled with what it
//! holds in the system. The labels come from the packing (`emit::temp_holds`,
//! `emit::lane_variable`), not from the program's text: lane l of y group I holds a partial
//! sum of its variable until the last instruction writing it, which leaves the final y_i;
//! the scratch's lanes hold a term of the row in that lane of the next y group written; x
//! groups are listed as loaded; an output MOV carries its y group out.

use crate::linear::Runner;
use hoist_asm::RegFile;
use hoist_asm::ir::Semantic;
use hoist_opt::linear::System;
use hoist_opt::linear::emit::{Holds, lane_variable, temp_holds};
use hoist_raster::raster::out_semantic;
use serde::{Deserialize, Serialize};

/// What one lane holds in the system (variables by their 0-based index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lane {
    /// x_j as loaded from its attribute.
    X(usize),
    /// A partial sum of y_i (more instructions add to this lane).
    Partial(usize),
    /// The final y_i.
    Final(usize),
    /// A term of y_i in the scratch, about to be added to y_i's lane.
    Term(usize),
    /// y_i copied to an output.
    Output(usize),
    /// A lane no variable lives in (padding, the position, an unwritten lane).
    Unused,
}

impl Lane {
    /// The lane in words.
    pub fn describe(self) -> String {
        match self {
            Lane::X(j) => format!("x{j} (input)"),
            Lane::Partial(i) => format!("partial sum of y{i}"),
            Lane::Final(i) => format!("y{i} (final)"),
            Lane::Term(i) => format!("term of y{i}"),
            Lane::Output(i) => format!("y{i} (output)"),
            Lane::Unused => "–".into(),
        }
    }
}

/// One traced row: an x group as loaded, or an instruction and its destination after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaneRow {
    /// The instruction's index (`None` for an input row).
    pub inst: Option<u32>,
    pub op: String,
    /// Components written (bit 0 = x).
    pub mask: u8,
    /// The destination's four components after the instruction, as IEEE bits.
    pub bits: [u32; 4],
    pub lanes: [Lane; 4],
}

/// A grouping's code traced on one x vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinearTrace {
    pub rows: Vec<LaneRow>,
    /// y by variable (the final lanes of the y groups), as IEEE bits.
    pub y: Vec<u32>,
}

/// What a destination register is in the system: a register of the packing, or an output
/// carrying y group `.0`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    Reg(Holds),
    Out(usize),
}

/// Traces the code of `runner` (its first program: the whole body and its first outputs)
/// on x (by variable).
pub fn trace(runner: &Runner, sys: &System, x: &[f64]) -> Result<LinearTrace, String> {
    let (g, programs) = runner.parts();
    let (cp, prog, chunk) = programs.first().ok_or("no program")?;
    if x.len() != sys.m {
        return Err(format!("x has {} values, the system {}", x.len(), sys.m));
    }
    let attribs = runner.attribs(x);
    let (steps, _) = Runner::with_env(|env| {
        hoist_raster::trace::trace_vertices(cp, env, &[attribs]).map_err(|e| e.to_string())
    })?;
    let var = |group: usize, l: usize| lane_variable(g, sys.vars, group, l);
    let d3d = prog.profile.d3d_version().is_some();
    let mut rows: Vec<LaneRow> = (0..sys.groups())
        .map(|j| LaneRow {
            inst: None,
            op: if d3d {
                format!("v{j}")
            } else {
                format!("vertex.attrib[{j}]")
            },
            mask: 15,
            bits: attribs[j].map(f32::to_bits),
            lanes: std::array::from_fn(|l| var(j, l).map_or(Lane::Unused, Lane::X)),
        })
        .collect();
    // Per step: the destination's role (None: not a register of the system).
    let dst: Vec<Option<Dest>> = steps
        .iter()
        .map(|s| {
            let d = prog.insts.get(s.inst as usize)?.dst.as_ref()?;
            match d.reg.file {
                RegFile::Temp => Some(Dest::Reg(temp_holds(d.reg.index as usize))),
                RegFile::Output => match out_semantic(prog, d.reg) {
                    Some(Semantic::TexCoord(k)) => chunk.get(k as usize).map(|&gi| Dest::Out(gi)),
                    _ => None,
                },
                _ => None,
            }
        })
        .collect();
    let last_write = |group: usize, l: usize| {
        (0..steps.len()).rev().find(|&k| {
            dst[k] == Some(Dest::Reg(Holds::Y { group })) && steps[k].mask & (1 << l) != 0
        })
    };
    let mut y = vec![f32::NAN.to_bits(); sys.vars];
    for (k, s) in steps.iter().enumerate() {
        let value = s.values.first().copied().flatten();
        let bits = value.map_or([0; 4], |v| std::array::from_fn(|c| v[c].bits()));
        let lanes = std::array::from_fn(|l| {
            if s.mask & (1 << l) == 0 {
                return Lane::Unused;
            }
            match dst[k] {
                Some(Dest::Reg(Holds::Y { group })) => match var(group, l) {
                    Some(i) if last_write(group, l) == Some(k) => {
                        y[i] = bits[l];
                        Lane::Final(i)
                    }
                    Some(i) => Lane::Partial(i),
                    None => Lane::Unused,
                },
                Some(Dest::Reg(Holds::Scratch)) => {
                    let next = (k + 1..steps.len()).find_map(|n| match dst[n] {
                        Some(Dest::Reg(Holds::Y { group })) => Some(group),
                        _ => None,
                    });
                    next.and_then(|gi| var(gi, l))
                        .map_or(Lane::Unused, Lane::Term)
                }
                Some(Dest::Out(group)) => var(group, l).map_or(Lane::Unused, Lane::Output),
                _ => Lane::Unused,
            }
        });
        rows.push(LaneRow {
            inst: Some(s.inst),
            op: s.op.clone(),
            mask: s.mask,
            bits,
            lanes,
        });
    }
    Ok(LinearTrace { rows, y })
}
