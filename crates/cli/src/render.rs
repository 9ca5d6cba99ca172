//! `hoist render` (not written yet).

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> u8 {
    crate::util::error("`hoist render` is not implemented yet");
    2
}
