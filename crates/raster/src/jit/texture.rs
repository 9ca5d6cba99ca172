//! Texture fetch.
