//! clmigrate-lint: a static checker for OpenCL host code in Rust.

pub mod harness;
