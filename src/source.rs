//! Source files, line tables and span conversion.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::ir::Span;

/// Words that are identifiers in edition 2015 and keywords later.
const EDITION_2015_WORDS: &[&str] = &["async", "await", "try"];

/// Where `r#` was inserted before a 2015 identifier: 1-based line → 0-based columns (in
/// characters, in the rewritten text) of each insertion.
type Shifts = HashMap<usize, Vec<usize>>;

/// One file read from disk.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The path as shown to the user (relative to the working directory when possible).
    pub display: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// Set when the file was parsed as edition 2015 code (see [`SourceFile::edition_2015`]).
    shifts: OnceLock<Shifts>,
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
            shifts: OnceLock::new(),
        }
    }

    /// The text with edition-2015 identifiers that later editions reserve (`async`, `await`,
    /// `try`) written as raw identifiers, so a current parser reads it; `None` when there is
    /// none or the text does not tokenize. Spans of the rewritten text are mapped back to
    /// this one once [`SourceFile::use_edition_2015`] is called.
    pub fn edition_2015(&self) -> Option<(String, Shifts)> {
        let ts: proc_macro2::TokenStream = self.text.parse().ok()?;
        let mut at = Vec::new();
        fn walk(ts: proc_macro2::TokenStream, at: &mut Vec<(usize, usize)>) {
            for tt in ts {
                match tt {
                    proc_macro2::TokenTree::Ident(i)
                        if EDITION_2015_WORDS.contains(&i.to_string().as_str()) =>
                    {
                        let s = i.span().start();
                        at.push((s.line, s.column));
                    }
                    proc_macro2::TokenTree::Group(g) => walk(g.stream(), at),
                    _ => {}
                }
            }
        }
        walk(ts, &mut at);
        if at.is_empty() {
            return None;
        }
        at.sort_unstable();
        let mut out = String::with_capacity(self.text.len() + 2 * at.len());
        let mut last = 0;
        let mut shifts: Shifts = HashMap::new();
        for (line, col) in at {
            let off = self.offset(line, col);
            out.push_str(&self.text[last..off]);
            out.push_str("r#");
            last = off;
            let cols = shifts.entry(line).or_default();
            // Columns in the rewritten line: earlier insertions on it moved this one.
            cols.push(col + 2 * cols.len());
        }
        out.push_str(&self.text[last..]);
        Some((out, shifts))
    }

    /// From now on, spans are of the rewritten edition-2015 text.
    pub fn use_edition_2015(&self, shifts: Shifts) {
        let _ = self.shifts.set(shifts);
    }

    /// A column of the parsed text as a column of this one.
    fn original_column(&self, line: usize, col: usize) -> usize {
        let Some(cols) = self.shifts.get().and_then(|s| s.get(&line)) else {
            return col;
        };
        let moved: usize = cols
            .iter()
            .filter(|&&c| c < col)
            .map(|&c| (col - c).min(2))
            .sum();
        col - moved
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
            start: self.offset(a.line, self.original_column(a.line, a.column)),
            end: self.offset(b.line, self.original_column(b.line, b.column)),
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
