//! `--format short`: one line per finding, `path:line:col: level[CODE] message`, then one
//! per problem and the summary.

use crate::Report;

/// Every line of the short output.
pub fn render(report: &Report) -> String {
    let mut out = render_findings(report);
    out.push_str(&super::summary(report));
    out.push('\n');
    out
}

/// The lines of the problems and findings, without the summary (`--quiet`).
pub fn render_findings(report: &Report) -> String {
    let mut out = String::new();
    for p in &report.problems {
        let level = if p.is_error() { "error" } else { "warning" };
        match p.span.map(|s| (s, &report.files[s.file])) {
            Some((s, file)) if !file.text.is_empty() => {
                let (line, col) = file.line_col(s.start);
                out.push_str(&format!(
                    "{}:{line}:{col}: {level}: {}\n",
                    file.display, p.message
                ));
            }
            _ => out.push_str(&format!("{}: {level}: {}\n", p.path.display(), p.message)),
        }
    }
    for f in &report.findings {
        let file = &report.files[f.primary.span.file];
        let (line, col) = file.line_col(f.primary.span.start);
        out.push_str(&format!(
            "{}:{line}:{col}: {}[{}] {}\n",
            file.display,
            f.level.as_str(),
            f.code,
            f.message
        ));
    }
    out
}
