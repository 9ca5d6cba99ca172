//! Optimizer (in progress).
