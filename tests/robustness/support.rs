//! Helpers shared by the robustness tests: a seeded random generator, scratch directories and
//! a driver that checks generated inputs in batches through the public API.

use std::path::PathBuf;

use codespan_reporting::term::termcolor::NoColor;

use clmigrate_lint::{check, debug_ir, report, Settings};

/// SplitMix64: small, fast and reproducible from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `1 / n`.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed of a fuzz run: `FUZZ_SEED` or a fixed default, so CI runs are reproducible.
pub fn seed() -> u64 {
    std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_c1a0)
}

/// Inputs in the whole fuzz suite: `FUZZ_CASES` or 100,000.
pub fn total_cases() -> usize {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

/// A fresh, empty directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("clmigrate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Prints a line past the test harness's output capture, so the counts show in every run.
pub fn announce(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Checks generated inputs in batches of files: every input is checked, both reports are
/// rendered, and some inputs also go through `debug_ir`. Fails on any internal problem (a
/// panic the checker caught), naming the input, which is kept on disk.
pub struct Driver {
    dir: PathBuf,
    pending: Vec<Vec<u8>>,
    batch: usize,
    inputs: usize,
    parsed: usize,
    findings: usize,
}

/// What a driver checked: inputs, inputs that parsed, findings.
pub struct Counts {
    pub inputs: usize,
    pub parsed: usize,
    pub findings: usize,
}

impl Driver {
    pub fn new(name: &str, batch: usize) -> Self {
        Driver {
            dir: scratch(name),
            pending: Vec::new(),
            batch,
            inputs: 0,
            parsed: 0,
            findings: 0,
        }
    }

    pub fn push(&mut self, input: Vec<u8>) {
        self.pending.push(input);
        if self.pending.len() >= self.batch {
            self.flush();
        }
    }

    pub fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let batch = self.dir.join(format!("b{}", self.inputs));
        std::fs::create_dir_all(&batch).unwrap();
        let mut paths = Vec::new();
        for (i, input) in self.pending.drain(..).enumerate() {
            let p = batch.join(format!("f{i:05}.rs"));
            std::fs::write(&p, input).unwrap();
            paths.push(p);
        }
        // Every input is parsed, whether or not it names an OpenCL API.
        let settings = Settings {
            prefilter: false,
            ..Settings::default()
        };
        let report = check(std::slice::from_ref(&batch), &settings);
        let internal: Vec<_> = report.problems.iter().filter(|p| p.internal).collect();
        assert!(
            internal.is_empty(),
            "internal errors (inputs kept in {}): {internal:#?}",
            batch.display()
        );
        assert_eq!(report.files.len(), paths.len());
        let mut human = NoColor::new(Vec::new());
        let rendered = report::human::emit(&report, &mut human);
        assert!(rendered.is_ok(), "{}: {rendered:?}", batch.display());
        let json = report::json::render(&report);
        assert_eq!(
            json.lines().count(),
            report.findings.len() + report.problems.len() + 1
        );
        let unparsed = report.problems.len();
        self.parsed += paths.len().saturating_sub(unparsed);
        self.findings += report.findings.len();
        for p in paths.iter().step_by(37) {
            if let Ok(ir) = debug_ir(p) {
                assert!(ir.is_empty() || ir.ends_with('\n'), "{}", p.display());
            }
        }
        self.inputs += paths.len();
        std::fs::remove_dir_all(&batch).unwrap();
    }

    /// Flushes and removes the scratch directory.
    pub fn finish(mut self) -> Counts {
        self.flush();
        let _ = std::fs::remove_dir_all(&self.dir);
        Counts {
            inputs: self.inputs,
            parsed: self.parsed,
            findings: self.findings,
        }
    }
}
