//! Source files, line tables and span conversion.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::ir::Span;

/// Words that are identifiers in edition 2015 and keywords later.
const EDITION_2015_WORDS: &[&str] = &["async", "await", "try"];

/// Where text was inserted to read edition 2015 code (`r#` before an identifier, `_: `
/// before an anonymous parameter): 1-based line → 0-based column (in characters, in the
/// rewritten text) and length of each insertion.
type Shifts = HashMap<usize, Vec<(usize, usize)>>;

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
    /// Per line, whether it is ASCII (a column is then a byte count): keeps span conversion
    /// constant-time on very long lines.
    ascii_lines: Vec<bool>,
    /// Per other line (by index): (byte offset, column) every [`MARK_BYTES`] bytes or so,
    /// from the line's start, so a column is counted from the nearest mark.
    marks: HashMap<usize, Vec<(usize, usize)>>,
}

/// How far apart the column marks of a non-ASCII line are, in bytes.
const MARK_BYTES: usize = 512;

impl SourceFile {
    pub fn new(path: PathBuf, display: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let ascii_lines: Vec<bool> = line_starts
            .iter()
            .enumerate()
            .map(|(i, &start)| {
                let end = line_starts.get(i + 1).map_or(text.len(), |&e| e - 1);
                text.as_bytes()[start..end].is_ascii()
            })
            .collect();
        let mut marks = HashMap::new();
        for (i, &start) in line_starts.iter().enumerate() {
            let end = line_starts.get(i + 1).map_or(text.len(), |&e| e - 1);
            if ascii_lines[i] || end - start < MARK_BYTES {
                continue;
            }
            let mut line = vec![(start, 0)];
            for (col, (at, _)) in text[start..end].char_indices().enumerate() {
                if at >= line.len() * MARK_BYTES {
                    line.push((start + at, col));
                }
            }
            marks.insert(i, line);
        }
        SourceFile {
            path,
            display,
            text,
            line_starts,
            shifts: OnceLock::new(),
            ascii_lines,
            marks,
        }
    }

    /// The text with edition-2015 identifiers that later editions reserve (`async`, `await`,
    /// `try`) written as raw identifiers, so a current parser reads it; `None` when there is
    /// none or the text does not tokenize. Spans of the rewritten text are mapped back to
    /// this one once [`SourceFile::use_edition_2015`] is called.
    pub fn edition_2015(&self) -> Option<(String, Shifts)> {
        let ts: proc_macro2::TokenStream = self.text.parse().ok()?;
        let mut at = Vec::new();
        walk_2015(ts, false, &mut at);
        // The tokenizer counts a byte-order mark as a column; the parser and this file
        // do not.
        if self.text.starts_with('\u{feff}') {
            for (line, col, _) in &mut at {
                if *line == 1 {
                    *col -= 1;
                }
            }
        }
        if at.is_empty() {
            return None;
        }
        at.sort_unstable();
        let inserted: usize = at.iter().map(|(_, _, s)| s.len()).sum();
        let mut out = String::with_capacity(self.text.len() + inserted);
        let mut last = 0;
        let mut shifts: Shifts = HashMap::new();
        for (line, col, text) in at {
            let off = self.offset(line, col);
            out.push_str(&self.text[last..off]);
            out.push_str(text);
            last = off;
            let cols = shifts.entry(line).or_default();
            // Columns in the rewritten line: earlier insertions on it moved this one.
            let moved: usize = cols.iter().map(|(_, n)| n).sum();
            cols.push((col + moved, text.len()));
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
            .filter(|&&(c, _)| c < col)
            .map(|&(c, n)| (col - c).min(n))
            .sum();
        col - moved
    }

    /// Byte offset of a 1-based line and a 0-based column counted in characters. A
    /// byte-order mark is not a column (the parser does not count it either).
    pub fn offset(&self, line: usize, column: usize) -> usize {
        let index = line.saturating_sub(1);
        let Some(&start) = self.line_starts.get(index) else {
            return self.text.len();
        };
        let start = start + self.bom_at(index);
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e - 1)
            - start;
        if self.ascii_lines[index] {
            return start + column.min(end);
        }
        let (from, col) = self.mark(index, start, |&(_, c)| c <= column);
        self.text[from..start + end]
            .char_indices()
            .nth(column - col)
            .map_or(start + end, |(i, _)| from + i)
    }

    /// The last mark of line `index` that `before` accepts (the line's start when there is
    /// none): its byte offset and column. The line's byte-order mark is past `start`.
    fn mark(
        &self,
        index: usize,
        start: usize,
        before: impl Fn(&(usize, usize)) -> bool,
    ) -> (usize, usize) {
        let Some(marks) = self.marks.get(&index) else {
            return (start, 0);
        };
        let n = marks.partition_point(before);
        match n.checked_sub(1).map(|i| marks[i]) {
            // The first mark is the line's start, before a byte-order mark.
            Some((at, col)) if at >= start => (at, col - self.bom_at(index).min(1)),
            _ => (start, 0),
        }
    }

    /// The length of the byte-order mark at the start of line `index` (0-based): only the
    /// first line can have one.
    fn bom_at(&self, index: usize) -> usize {
        if index == 0 && self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        }
    }

    /// 1-based line and column (in characters) of a byte offset. A byte-order mark is not
    /// a column.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = (self.line_starts[line] + self.bom_at(line)).min(offset);
        if self.ascii_lines[line] {
            return (line + 1, offset - start + 1);
        }
        let (from, col) = self.mark(line, start, |&(at, _)| at <= offset);
        let col = col + self.text.get(from..offset).map_or(0, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The text of a 1-based line, without its line break (empty past the end).
    pub fn line_text(&self, line: usize) -> &str {
        let index = line.saturating_sub(1);
        let Some(&start) = self.line_starts.get(index) else {
            return "";
        };
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e - 1);
        let line = self.text.get(start..end).unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line)
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

/// The largest file read (source, kernel source, `Cargo.toml`, configuration): 4 MiB.
/// Parsing and analyzing a file takes about 64 bytes of memory per byte of ordinary host
/// code and up to about 480 for code made only of tiny statements (measured peaks on
/// release builds, SECURITY.md), so a file at the limit stays under 2 GiB.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// Reads a regular file of at most `limit` bytes. Anything else (a FIFO, a device, a
/// directory, a socket) is refused before a byte is read, so reading never blocks or runs
/// without end; a file that grows past the limit while being read is refused too.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    read_regular_into(path, limit, &mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] into `bytes` (cleared first), so that one buffer serves many files.
pub fn read_regular_into(path: &Path, limit: u64, bytes: &mut Vec<u8>) -> Result<(), String> {
    use std::io::Read;
    bytes.clear();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading waits for a writer unless it is non-blocking.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("could not read: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("could not read: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file; it was not read".into());
    }
    let too_big = || format!("larger than {} MiB; it was not read", limit >> 20);
    if meta.len() > limit {
        return Err(too_big());
    }
    bytes.reserve(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(bytes)
        .map_err(|e| format!("could not read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(())
}

/// The text of a C, C++ or OpenCL C file. Their compilers take bytes that are not UTF-8 in
/// comments and strings (Latin-1 comments are common in older code), so each such byte is
/// read as `?`: every offset stays where it is in the file.
pub fn c_text(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bytes = e.into_bytes();
            let mut t = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                t.push_str(chunk.valid());
                t.extend(std::iter::repeat_n('?', chunk.invalid().len()));
            }
            t
        }
    }
}

/// An insertion into edition 2015 text: 1-based line, 0-based column, what is inserted.
type Insertion = (usize, usize, &'static str);

fn start_of(tt: &proc_macro2::TokenTree) -> (usize, usize) {
    let s = tt.span().start();
    (s.line, s.column)
}

fn is_punct(tt: &proc_macro2::TokenTree, c: char) -> bool {
    matches!(tt, proc_macro2::TokenTree::Punct(p) if p.as_char() == c)
}

/// Finds what edition 2015 allows and later editions do not: the words they reserve (written
/// `r#word`), and anonymous parameters of trait methods (`fn f(&self, u8);`, written
/// `_: u8`). `in_trait` is set for the tokens of a trait's body.
fn walk_2015(ts: proc_macro2::TokenStream, in_trait: bool, at: &mut Vec<Insertion>) {
    use proc_macro2::{Delimiter, TokenTree};
    let mut trait_body_next = false;
    // After `fn` in a trait: the depth of `<..>` before the parameter list, or `None`.
    let mut params_next: Option<usize> = None;
    let mut prev_minus = false;
    for tt in ts {
        let minus = is_punct(&tt, '-');
        match &tt {
            TokenTree::Ident(i) => {
                let word = i.to_string();
                if EDITION_2015_WORDS.contains(&word.as_str()) {
                    let (line, col) = start_of(&tt);
                    at.push((line, col, "r#"));
                }
                if word == "trait" {
                    trait_body_next = true;
                }
                if in_trait && word == "fn" {
                    params_next = Some(0);
                }
            }
            TokenTree::Punct(p) => match (p.as_char(), params_next) {
                ('<', Some(d)) => params_next = Some(d + 1),
                ('>', Some(d)) if !prev_minus => params_next = Some(d.saturating_sub(1)),
                (';', _) => params_next = None,
                _ => {}
            },
            TokenTree::Group(g) => {
                if params_next == Some(0) && g.delimiter() == Delimiter::Parenthesis {
                    anonymous_params(g.stream(), at);
                    params_next = None;
                }
                let body = trait_body_next && g.delimiter() == Delimiter::Brace;
                if body {
                    trait_body_next = false;
                }
                walk_2015(g.stream(), body, at);
            }
            TokenTree::Literal(_) => {}
        }
        prev_minus = minus;
    }
}

/// The parameters of a trait method that have a type and no pattern: `_: ` goes before each.
fn anonymous_params(ts: proc_macro2::TokenStream, at: &mut Vec<Insertion>) {
    use proc_macro2::{Spacing, TokenTree};
    let mut params: Vec<Vec<TokenTree>> = vec![Vec::new()];
    let mut angle = 0usize;
    let mut prev_minus = false;
    for tt in ts {
        let minus = is_punct(&tt, '-');
        if let TokenTree::Punct(p) = &tt {
            match p.as_char() {
                '<' => angle += 1,
                '>' if !prev_minus => angle = angle.saturating_sub(1),
                ',' if angle == 0 => {
                    params.push(Vec::new());
                    prev_minus = false;
                    continue;
                }
                _ => {}
            }
        }
        prev_minus = minus;
        if let Some(last) = params.last_mut() {
            last.push(tt);
        }
    }
    for param in params.iter().filter(|p| !p.is_empty()) {
        // A pattern ends at a lone `:` (not one of the two of `::`).
        let mut joint_colon = false;
        let mut named = false;
        for tt in param {
            if let TokenTree::Punct(p) = tt {
                if p.as_char() == ':' && p.spacing() == Spacing::Alone && !joint_colon {
                    named = true;
                }
                joint_colon = p.as_char() == ':' && p.spacing() == Spacing::Joint;
            } else {
                joint_colon = false;
            }
        }
        // `self`, `&self`, `&'a mut self` (but not a type `self::T`).
        let receiver = matches!(param.last(), Some(TokenTree::Ident(i)) if i == "self");
        if !named && !receiver {
            let (line, col) = start_of(&param[0]);
            at.push((line, col, "_: "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceFile;

    #[test]
    fn columns_agree_on_ascii_and_other_lines() {
        let text = "fn a() {}\r\nlet é = \"漢字\"; x\n\nlast";
        let f = SourceFile::new("t.rs".into(), "t.rs".into(), text.into());
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let (line, col) = f.line_col(offset);
            assert_eq!(f.offset(line, col - 1), offset, "offset {offset}");
        }
        // Past the end of a line or of the file: clamped.
        assert_eq!(f.offset(1, 100), text.find('\n').unwrap());
        assert_eq!(f.offset(9, 0), text.len());
    }

    /// A byte-order mark is not a column: spans of the parser (which skips it) land on
    /// their tokens, and the first token of the file is in column 1.
    #[test]
    fn a_byte_order_mark_does_not_shift_columns() {
        let text = "\u{feff}fn main() { let x = 1; }\nfn g() {}";
        let f = SourceFile::new("t.rs".into(), "t.rs".into(), text.into());
        let ast = syn::parse_file(text).unwrap();
        let syn::Item::Fn(main) = &ast.items[0] else {
            panic!("not a function")
        };
        let span = f.span(0, main.sig.ident.span());
        assert_eq!(f.slice(span), "main");
        assert_eq!(f.line_col(span.start), (1, 4));
        assert_eq!(f.line_col(3), (1, 1));
        assert_eq!(f.offset(1, 0), 3);
        assert_eq!(f.line_col(text.find("g()").unwrap()), (2, 4));
    }

    /// Long lines that are not ASCII: columns are counted from marks along the line, and
    /// agree with counting from its start.
    #[test]
    fn columns_agree_on_long_lines() {
        let line = "let é = \"漢字\"; x += 1; ".repeat(200);
        let text = format!("\u{feff}{line}\n{line}\nend");
        let f = SourceFile::new("t.rs".into(), "t.rs".into(), text.clone());
        for (offset, _) in text.char_indices().skip(1).chain([(text.len(), ' ')]) {
            let (l, col) = f.line_col(offset);
            let start = if l == 1 {
                3
            } else {
                text[..offset].rfind('\n').unwrap() + 1
            };
            assert_eq!(
                col,
                text[start..offset].chars().count() + 1,
                "offset {offset}"
            );
            assert_eq!(f.offset(l, col - 1), offset, "offset {offset}");
        }
    }
}
