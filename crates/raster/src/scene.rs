//! Scenes (in progress).
