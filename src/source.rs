//! Source files, line tables and span conversion.

use std::path::PathBuf;

use crate::ir::Span;

/// One file read from disk.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The path as shown to the user (relative to the working directory when possible).
    pub display: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: PathBuf, display: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path,
            display,
            text,
            line_starts,
        }
    }

    /// Byte offset of a 1-based line and a 0-based column counted in characters.
    pub fn offset(&self, line: usize, column: usize) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let end = rest.find('\n').unwrap_or(rest.len());
        rest[..end]
            .char_indices()
            .nth(column)
            .map_or(start + end, |(i, _)| start + i)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The text of a span, or an empty string when it is out of range.
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// Converts a proc-macro2 span of this file to a byte span.
    pub fn span(&self, file: usize, s: proc_macro2::Span) -> Span {
        let a = s.start();
        let b = s.end();
        Span {
            file,
            start: self.offset(a.line, a.column),
            end: self.offset(b.line, b.column),
        }
    }
}

/// The root paths in SARIF and baselines are relative to (`%SRCROOT%`): the nearest
/// directory above the working directory that holds `.git`, else the working directory.
pub fn src_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf()
}

impl SourceFile {
    /// The path relative to `root` with `/` separators, or the shown path when the file is
    /// outside it.
    pub fn relative_to(&self, root: &std::path::Path) -> String {
        let abs = std::path::absolute(&self.path).unwrap_or_else(|_| self.path.clone());
        match abs.strip_prefix(root) {
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => self.display.clone(),
        }
    }
}
