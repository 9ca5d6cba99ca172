//! Scenes with GLSL sections (see crates/raster/SCENES.md).
