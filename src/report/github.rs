//! `--format github`: GitHub Actions workflow commands, which the runner turns into
//! annotations on the pull request's diff (paths relative to the repository root):
//! `::error file=F,line=L,col=C,endLine=L,endColumn=C,title=CLM003 missing-wait-list::message`.

use crate::rules::Level;
use crate::Report;

/// Escapes a command's message (`%`, CR and LF).
fn data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as [`data`], and `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Every line of the GitHub output.
pub fn render(report: &Report) -> String {
    let root = crate::source::src_root();
    let mut out = String::new();
    for p in &report.problems {
        let command = if p.is_error() { "error" } else { "warning" };
        let mut props = format!("file={}", property(&p.path.display().to_string()));
        if let Some(s) = p.span.filter(|s| !report.files[s.file].text.is_empty()) {
            let (line, col) = report.files[s.file].line_col(s.start);
            props.push_str(&format!(",line={line},col={col}"));
        }
        out.push_str(&format!(
            "::{command} {props},title=clmigrate-lint::{}\n",
            data(&p.message)
        ));
    }
    for f in &report.findings {
        let file = &report.files[f.primary.span.file];
        let (line, col) = file.line_col(f.primary.span.start);
        let (end_line, end_col) = file.line_col(f.primary.span.end);
        let command = match f.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        let mut message = f.message.clone();
        for (what, text) in [("note", &f.note), ("help", &f.help)] {
            if let Some(t) = text {
                message.push_str(&format!("\n{what}: {t}"));
            }
        }
        out.push_str(&format!(
            "::{command} file={},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}\n",
            property(&file.relative_to(&root)),
            property(&format!("{} {}", f.code, f.name)),
            data(&message)
        ));
    }
    out
}
