//! Human output: rustc-style diagnostics through codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::WriteColor, Config};

use crate::ir::Span;
use crate::rules::{Finding, Level};
use crate::Report;

fn files(report: &Report) -> SimpleFiles<&str, &str> {
    let mut files = SimpleFiles::new();
    for f in &report.files {
        files.add(f.display.as_str(), f.text.as_str());
    }
    files
}

/// Source lines longer than this (in bytes) are not shown: each diagnostic would print
/// the whole line, so many findings on one long line would print it over and over.
pub const MAX_SHOWN_LINE: usize = 1_000;

/// Whether the line of `span`'s start or end is too long to show.
fn too_long(report: &Report, span: Span) -> bool {
    let text = report.files[span.file].text.as_bytes();
    [span.start, span.end].iter().any(|&at| {
        let at = at.min(text.len());
        // Looking no further than the limit either way.
        let from = at.saturating_sub(MAX_SHOWN_LINE + 1);
        let start = text[from..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(from, |i| from + i + 1);
        let end = text[at..]
            .iter()
            .take(MAX_SHOWN_LINE + 1)
            .position(|&b| b == b'\n')
            .map_or(text.len().min(at + MAX_SHOWN_LINE + 1), |i| at + i);
        end - start > MAX_SHOWN_LINE
    })
}

/// The diagnostic of one finding. A label on a line too long to show becomes a note with
/// its position.
pub fn diagnostic(report: &Report, f: &Finding) -> Diagnostic<usize> {
    let d = match f.level {
        Level::Error => Diagnostic::error(),
        Level::Warning => Diagnostic::warning(),
    };
    let mut labels = Vec::new();
    let mut notes = Vec::new();
    let primary = std::iter::once((true, &f.primary));
    for (is_primary, l) in primary.chain(f.secondary.iter().map(|l| (false, l))) {
        if too_long(report, l.span) {
            let file = &report.files[l.span.file];
            let (line, col) = file.line_col(l.span.start);
            notes.push(format!(
                "at {}:{line}:{col} (a line too long to show): {}",
                file.display, l.message
            ));
            continue;
        }
        let label = if is_primary {
            Label::primary(l.span.file, l.span.start..l.span.end)
        } else {
            Label::secondary(l.span.file, l.span.start..l.span.end)
        };
        labels.push(label.with_message(&l.message));
    }
    if let Some(n) = &f.note {
        notes.push(format!("note: {n}"));
    }
    if let Some(h) = &f.help {
        notes.push(format!("help: {h}"));
    }
    notes.push(format!(
        "rule: `{}` (`cargo clmigrate-lint explain {}`)",
        f.name, f.code
    ));
    d.with_message(&f.message)
        .with_code(f.code)
        .with_labels(labels)
        .with_notes(notes)
}

/// Writes every finding and problem, then the summary.
pub fn emit(report: &Report, out: &mut dyn WriteColor) -> std::io::Result<()> {
    emit_findings(report, out)?;
    writeln!(out, "{}", super::summary(report))
}

/// Writes every finding and problem, without the summary (`--quiet`).
pub fn emit_findings(report: &Report, out: &mut dyn WriteColor) -> std::io::Result<()> {
    let files = files(report);
    let config = Config::default();
    for p in &report.problems {
        let severity = if p.internal {
            Severity::Bug
        } else if p.error {
            Severity::Error
        } else {
            Severity::Warning
        };
        let mut d =
            Diagnostic::new(severity).with_message(format!("{}: {}", p.path.display(), p.message));
        if let Some(s) = p.span {
            if !report.files[s.file].text.is_empty() && !too_long(report, s) {
                d = d.with_labels(vec![Label::primary(s.file, s.start..s.end)]);
            }
        }
        term::emit(out, &config, &files, &d).map_err(std::io::Error::other)?;
    }
    for f in &report.findings {
        term::emit(out, &config, &files, &diagnostic(report, f)).map_err(std::io::Error::other)?;
    }
    Ok(())
}

/// The human output as plain text (snapshots, tests).
pub fn render(report: &Report) -> String {
    let mut buf = term::termcolor::NoColor::new(Vec::new());
    // Writing to memory cannot fail.
    let _ = emit(report, &mut buf);
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

/// Findings as plain text, for JSON's `rendered`: the files' line tables are built once for
/// all of them.
pub struct Renderer<'r> {
    report: &'r Report,
    files: SimpleFiles<&'r str, &'r str>,
}

impl<'r> Renderer<'r> {
    pub fn new(report: &'r Report) -> Self {
        Renderer {
            report,
            files: files(report),
        }
    }

    /// One finding as plain text.
    pub fn render(&self, f: &Finding) -> String {
        let mut buf = term::termcolor::NoColor::new(Vec::new());
        let d = diagnostic(self.report, f);
        let _ = term::emit(&mut buf, &Config::default(), &self.files, &d);
        String::from_utf8_lossy(&buf.into_inner()).into_owned()
    }
}
