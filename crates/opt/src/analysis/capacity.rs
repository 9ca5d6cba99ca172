//! Free interpolator capacity: how many texture-coordinate components the pair leaves free,
//! per component position (profiles that keep components in place) and in total (profiles
//! with free swizzles, where `any_slot` is set). The selection rules bound their search with
//! it; the motion's packing (`passes::fp_to_vp`) decides the exact placement.

/// Free interpolator components.
#[derive(Clone, Copy, Debug)]
pub struct Capacity {
    pub per_comp: [u32; 4],
    pub total: u32,
    pub any_slot: bool,
}
