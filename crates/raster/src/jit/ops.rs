//! Arithmetic.
