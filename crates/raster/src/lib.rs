//! Executor (in progress).
