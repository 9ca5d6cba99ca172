//! Random program pairs (placeholder; being written).
