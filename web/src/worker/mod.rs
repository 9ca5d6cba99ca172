//! The worker layer: the jobs the page's Web Worker runs, as plain logic that also runs
//! natively in tests (some of it, such as parsing for diagnostics, also on the page's
//! thread). [`engine`] is the job: [`analysis`] (parse, optimize, the page's summary of the
//! result, with [`dag`], [`liveness`], [`machine`], [`reach`] and the interpolator maps of
//! [`varyings`]), [`render`] (plans, the incremental two-pair task, verdicts, display
//! mappings, the scene's [`probes`] in words) with what the draw supplies ([`supplied`]), its work bound ([`work`]) and its
//! [`executor`] (compiled in the worker by [`jit`]), [`guidance`] when a render is DIFFERENT
//! or proves little, [`debug`] the pixel debugger's trace of one pixel, [`scene_text`] a scene's diagnostics, the linear mode's job
//! ([`linear`], [`linear_recover`], [`linear_converge`]), source mode's compile job
//! ([`front`], run by the front worker) and the GPU view's plans ([`gpu`], run by the GPU
//! worker); both workers start only when first needed. Depends on the document layer only.

pub mod analysis;
pub mod bands;
pub mod choose;
pub mod dag;
pub mod dag_route;
pub mod debug;
pub mod engine;
pub mod executor;
pub mod front;
pub mod gpu;
pub mod guidance;
#[cfg(target_arch = "wasm32")]
pub mod jit;
pub mod linear;
pub mod linear_converge;
pub mod linear_debug;
pub mod linear_recover;
pub mod liveness;
pub mod machine;
pub mod probes;
pub mod reach;
pub mod render;
pub mod scene_text;
pub mod supplied;
pub mod varyings;
pub mod work;
