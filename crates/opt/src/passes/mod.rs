//! Transformations. One pass per file; each opens with what it does and why it is legal.

pub mod commute;
pub mod copy_prop;
pub mod dce;
pub mod dot_product;
pub mod fit;
pub mod fold;
pub mod fp_to_vp;
pub mod legalize;
pub mod lower;
pub mod mad_fuse;
pub mod remat;
pub mod renumber;
pub mod retarget;
pub mod schedule;
pub mod slp;
pub mod tex_dedup;
pub mod tex_rename;
pub mod varying_const;
pub mod varying_dead;
pub mod varying_dedup;
pub mod varying_uniform;
