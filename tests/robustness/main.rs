//! Robustness: no input crashes the checker or loses a file. Generated and mutated inputs
//! (`fuzz`), extreme inputs (`extreme`), hostile directory trees (`trees`) and byte-identical
//! output in any thread count and file order (`determinism`).
//!
//! `FUZZ_CASES=1000000 cargo test --release --test robustness fuzz` runs a longer fuzz
//! campaign; `FUZZ_SEED` picks another sequence of inputs (see `docs/fuzzing.md`).

mod determinism;
mod extreme;
mod fuzz;
mod support;
mod trees;
