//! ARB targets: the GPU (or driver) whose ARB_vertex_program / ARB_fragment_program
//! implementation limits an ARB program is checked and optimized against.
//!
//! ARB programs have no shader model that fixes their limits: each implementation reports
//! its own through `glGetProgramivARB` (`MAX_PROGRAM_INSTRUCTIONS_ARB`,
//! `MAX_PROGRAM_ALU/TEX_INSTRUCTIONS_ARB`, `MAX_PROGRAM_TEX_INDIRECTIONS_ARB`,
//! `MAX_PROGRAM_TEMPORARIES_ARB`, `MAX_PROGRAM_PARAMETERS_ARB`,
//! `MAX_PROGRAM_ENV/LOCAL_PARAMETERS_ARB`, ...). A target names one such set of figures, for
//! both stages. D3D9 profiles fix their own limits; a target does not apply to them.
//!
//! Sources, per target:
//!
//! - **R300** (ATI Radeon 9700), the paper's GPU and the default: the ARB limits of its
//!   drivers and Mesa's r300 driver, as `profile.rs` has always given them (fragment: 96 instructions = 64 ALU + 32 TEX,
//!   4 indirections, 32 temporaries, 32 parameters; vertex: 256 instructions,
//!   32 temporaries, 256 parameters): the ARB profiles' defaults, [`Profile::limits`].
//! - **NV40** (GeForce 6800, also G70/GeForce 7): what Mesa's nouveau `nv30` Gallium driver
//!   reports for the NV40 3D class (`nv30_screen_get_shader_param`), turned into ARB limits
//!   by Mesa's state tracker (env = min(parameters, 256), local = min(parameters, 4096)).
//!   Fragment: 4096 instructions, ALU, TEX and indirections alike; 32 temporaries;
//!   224 parameters; 16 samplers. Vertex: 512 instructions; 32 temporaries;
//!   462 parameters (468 in hardware, 6 reserved for user clip planes); 16 inputs.
//! - **G80** (GeForce 8800) **and Mesa**: Mesa's nouveau `nv50` Gallium driver reports
//!   16384 instructions (ALU, TEX, indirections alike), a 64 KiB constant buffer
//!   (4096 parameters), 16 samplers; Mesa's core caps (`main/config.h`) bound what ARB
//!   programs see: `MAX_PROGRAM_INSTRUCTIONS` 16384, `MAX_PROGRAM_TEMPS` 256,
//!   `MAX_PROGRAM_ENV_PARAMS` 256, `MAX_PROGRAM_LOCAL_PARAMS` 4096. The same core caps
//!   bound Mesa's software drivers (the executor's own limits,
//!   `hoist_raster::scene::executor_limits`, use these figures too).
//!
//! Assumptions, where no driver figure was found: texture coordinates stay 8 on every
//! target (`MAX_TEXTURE_COORDS`; Mesa's nv30 reports 8 fragment inputs, nv50 15); the
//! fragment `attribs` figure (not enforced for ARB fragment programs) stays R300's 10 on
//! NV40 and is nv50's 15 inputs on G80; one address register (Mesa's
//! `MAX_VERTEX_PROGRAM_ADDRESS_REGS`); G80's 256 temporaries assume Mesa's core cap binds
//! (nv50 itself reports a larger, memory-bound count); G80's 16 samplers are nv50's
//! Gallium figure, not NVIDIA's driver's.

use crate::profile::{Dialect, Limits, Profile, Stage};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The implementation whose ARB limits apply. Ordered from the smallest to the largest.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum ArbTarget {
    /// ATI Radeon 9700 (R300), the paper's GPU.
    #[default]
    R300,
    /// NVIDIA GeForce 6800 (NV40) / GeForce 7 (G70).
    Nv40,
    /// NVIDIA GeForce 8800 (G80) and Mesa.
    G80,
}

impl ArbTarget {
    pub const ALL: [ArbTarget; 3] = [ArbTarget::R300, ArbTarget::Nv40, ArbTarget::G80];

    /// Short identifier used on command lines (`--target`).
    pub fn id(self) -> &'static str {
        match self {
            ArbTarget::R300 => "r300",
            ArbTarget::Nv40 => "nv40",
            ArbTarget::G80 => "g80",
        }
    }

    pub fn from_id(s: &str) -> Option<ArbTarget> {
        let s = s.trim().to_ascii_lowercase();
        ArbTarget::ALL.into_iter().find(|t| t.id() == s)
    }

    /// The GPU, as the limits' `source` names it.
    pub fn name(self) -> &'static str {
        match self {
            ArbTarget::R300 => "ATI Radeon 9700 (R300)",
            ArbTarget::Nv40 => "NVIDIA GeForce 6800 (NV40)",
            ArbTarget::G80 => "NVIDIA GeForce 8800 (G80) / Mesa",
        }
    }

    /// One line on what the target is and how large its programs may be.
    pub fn description(self) -> &'static str {
        match self {
            ArbTarget::R300 => {
                "the paper's GPU: fragment 96 instructions (64 ALU + 32 TEX), 4 texture \
                 indirections; vertex 256 instructions"
            }
            ArbTarget::Nv40 => {
                "GeForce 6/7 class: fragment 4096 instructions, 224 parameters; vertex 512 \
                 instructions"
            }
            ArbTarget::G80 => {
                "GeForce 8 class and Mesa: 16384 instructions, 256 temporaries, 4096 \
                 parameters in both stages"
            }
        }
    }

    /// The ARB limits of `stage` on this target. R300's are the ARB profiles' defaults
    /// ([`Profile::limits`]), defined next to the D3D9 ones.
    pub fn limits(self, stage: Stage) -> Limits {
        match stage {
            Stage::Vertex => self.vertex(),
            Stage::Fragment => self.fragment(),
        }
    }

    fn vertex(self) -> Limits {
        let (max_slots, temps, consts, env_params, local_params) = match self {
            ArbTarget::R300 => return Profile::ArbVp1.limits(),
            ArbTarget::Nv40 => (512, 32, 462, 256, 462),
            ArbTarget::G80 => (16384, 256, 4096, 256, 4096),
        };
        Limits {
            source: format!("{} ARB_vertex_program", self.name()),
            max_slots,
            max_alu_slots: None,
            max_tex_slots: None,
            max_tex_indirections: None,
            temps,
            consts,
            env_params,
            local_params,
            attribs: 16,
            texcoords: 8,
            colors: 2,
            samplers: 0,
            address_regs: 1,
        }
    }

    fn fragment(self) -> Limits {
        // (instructions, ALU, TEX, indirections, temps, parameters, env, local, inputs)
        let (max_slots, alu, tex, ind, temps, consts, env_params, local_params, attribs) =
            match self {
                ArbTarget::R300 => return Profile::ArbFp1.limits(),
                ArbTarget::Nv40 => (4096, 4096, 4096, 4096, 32, 224, 224, 224, 10),
                ArbTarget::G80 => (16384, 16384, 16384, 16384, 256, 4096, 256, 4096, 15),
            };
        Limits {
            source: format!("{} ARB_fragment_program", self.name()),
            max_slots,
            max_alu_slots: Some(alu),
            max_tex_slots: Some(tex),
            max_tex_indirections: Some(ind),
            temps,
            consts,
            env_params,
            local_params,
            attribs,
            texcoords: 8,
            colors: 2,
            samplers: 16,
            address_regs: 0,
        }
    }
}

impl fmt::Display for ArbTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Profile {
    /// The limits of this profile on `target`: the target's for ARB profiles, the
    /// profile's own for D3D9 (the shader model fixes them).
    pub fn limits_for(self, target: ArbTarget) -> Limits {
        match self.dialect() {
            Dialect::Arb => target.limits(self.stage()),
            Dialect::D3d9 => self.limits(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every numeric field, for the ordering check.
    fn fields(l: &Limits) -> Vec<(&'static str, u64)> {
        let opt = |v: Option<u32>| v.map_or(u64::MAX, u64::from);
        vec![
            ("max_slots", l.max_slots.into()),
            ("max_alu_slots", opt(l.max_alu_slots)),
            ("max_tex_slots", opt(l.max_tex_slots)),
            ("max_tex_indirections", opt(l.max_tex_indirections)),
            ("temps", l.temps.into()),
            ("consts", l.consts.into()),
            ("env_params", l.env_params.into()),
            ("local_params", l.local_params.into()),
            ("attribs", l.attribs.into()),
            ("texcoords", l.texcoords.into()),
            ("colors", l.colors.into()),
            ("samplers", l.samplers.into()),
            ("address_regs", l.address_regs.into()),
        ]
    }

    #[test]
    fn targets_are_ordered_field_by_field() {
        for stage in [Stage::Vertex, Stage::Fragment] {
            for w in ArbTarget::ALL.windows(2) {
                let (a, b) = (w[0].limits(stage), w[1].limits(stage));
                for ((name, x), (_, y)) in fields(&a).into_iter().zip(fields(&b)) {
                    assert!(x <= y, "{stage:?} {name}: {} {x} > {} {y}", w[0], w[1]);
                }
                assert!(a.max_slots < b.max_slots, "{stage:?}: {} !< {}", w[0], w[1]);
            }
        }
    }

    #[test]
    fn r300_is_the_profiles_default() {
        assert_eq!(ArbTarget::default(), ArbTarget::R300);
        for p in [Profile::ArbVp1, Profile::ArbFp1] {
            assert_eq!(p.limits_for(ArbTarget::R300), p.limits(), "{p}");
        }
        assert_eq!(
            Profile::ArbFp1.limits().source,
            "ATI Radeon 9700 (R300) ARB_fragment_program"
        );
    }

    #[test]
    fn d3d9_profiles_ignore_the_target() {
        for p in Profile::ALL.into_iter().filter(|p| p.id().contains('_')) {
            assert_eq!(p.limits_for(ArbTarget::G80), p.limits(), "{p}");
        }
    }

    #[test]
    fn ids_round_trip_and_sources_name_the_target() {
        for t in ArbTarget::ALL {
            assert_eq!(ArbTarget::from_id(t.id()), Some(t));
            for s in [Stage::Vertex, Stage::Fragment] {
                assert!(t.limits(s).source.starts_with(t.name()), "{t} {s:?}");
            }
        }
        assert_eq!(ArbTarget::from_id(" G80 "), Some(ArbTarget::G80));
        assert_eq!(ArbTarget::from_id("r420"), None);
    }
}
