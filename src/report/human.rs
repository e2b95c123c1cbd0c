//! Human output: rustc-style diagnostics through codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic, Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor::WriteColor, Config};

use crate::rules::{Finding, Level};
use crate::Report;

fn files(report: &Report) -> SimpleFiles<&str, &str> {
    let mut files = SimpleFiles::new();
    for f in &report.files {
        files.add(f.display.as_str(), f.text.as_str());
    }
    files
}

/// The diagnostic of one finding.
pub fn diagnostic(f: &Finding) -> Diagnostic<usize> {
    let d = match f.level {
        Level::Error => Diagnostic::error(),
        Level::Warning => Diagnostic::warning(),
    };
    let mut labels = vec![Label::primary(
        f.primary.span.file,
        f.primary.span.start..f.primary.span.end,
    )
    .with_message(&f.primary.message)];
    labels.extend(
        f.secondary.iter().map(|l| {
            Label::secondary(l.span.file, l.span.start..l.span.end).with_message(&l.message)
        }),
    );
    let mut notes = Vec::new();
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
            if !report.files[s.file].text.is_empty() {
                d = d.with_labels(vec![Label::primary(s.file, s.start..s.end)]);
            }
        }
        term::emit(out, &config, &files, &d).map_err(std::io::Error::other)?;
    }
    for f in &report.findings {
        term::emit(out, &config, &files, &diagnostic(f)).map_err(std::io::Error::other)?;
    }
    writeln!(out, "{}", super::summary(report))
}

/// The human output as plain text (snapshots, tests).
pub fn render(report: &Report) -> String {
    let mut buf = term::termcolor::NoColor::new(Vec::new());
    // Writing to memory cannot fail.
    let _ = emit(report, &mut buf);
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}

/// One finding as plain text, for JSON's `rendered`.
pub fn render_one(report: &Report, f: &Finding) -> String {
    let files = files(report);
    let mut buf = term::termcolor::NoColor::new(Vec::new());
    let _ = term::emit(&mut buf, &Config::default(), &files, &diagnostic(f));
    String::from_utf8_lossy(&buf.into_inner()).into_owned()
}
