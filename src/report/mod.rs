//! Output formats. Each renders a [`Report`](crate::Report) to a string; `main.rs` prints it.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;
pub mod short;

use crate::rules::Level;
use crate::Report;

/// "2 errors, 1 warning": the counts of a report.
pub fn summary(report: &Report) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut s = format!(
        "{}, {} in {} checked",
        plural(report.count(Level::Error), "error"),
        plural(report.count(Level::Warning), "warning"),
        plural(report.files.len(), "file"),
    );
    let mut left_out = Vec::new();
    if report.suppressed > 0 {
        left_out.push(format!("{} suppressed", report.suppressed));
    }
    if report.baselined > 0 {
        left_out.push(format!("{} in the baseline", report.baselined));
    }
    if !left_out.is_empty() {
        s.push_str(&format!(" ({})", left_out.join(", ")));
    }
    if !report.problems.is_empty() {
        s.push_str(&format!(
            ", {} not checked",
            plural(report.problems.len(), "problem")
        ));
    }
    if report.skipped > 0 {
        s.push_str(&format!(
            "; {} in crates without an OpenCL binding skipped",
            plural(report.skipped, "file")
        ));
    }
    if report.binding_library > 0 {
        s.push_str(&format!(
            "; {} of OpenCL bindings' own libraries skipped",
            plural(report.binding_library, "file")
        ));
    }
    s
}
