//! Source files, line tables and span conversion.

use std::path::{Path, PathBuf};

use crate::ir::Span;

/// One file read from disk.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The path as shown to the user (relative to the working directory when possible).
    pub display: String,
    pub text: String,
    line_starts: Vec<usize>,
    /// Per line, whether it is ASCII (a column is then a byte count): keeps span conversion
    /// constant-time on very long lines.
    ascii_lines: Vec<bool>,
}

impl SourceFile {
    pub fn new(path: PathBuf, display: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let ascii_lines = line_starts
            .iter()
            .enumerate()
            .map(|(i, &start)| {
                let end = line_starts.get(i + 1).map_or(text.len(), |&e| e - 1);
                text.as_bytes()[start..end].is_ascii()
            })
            .collect();
        SourceFile {
            path,
            display,
            text,
            line_starts,
            ascii_lines,
        }
    }

    /// Byte offset of a 1-based line and a 0-based column counted in characters.
    pub fn offset(&self, line: usize, column: usize) -> usize {
        let index = line.saturating_sub(1);
        let Some(&start) = self.line_starts.get(index) else {
            return self.text.len();
        };
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e - 1)
            - start;
        if self.ascii_lines[index] {
            return start + column.min(end);
        }
        self.text[start..start + end]
            .char_indices()
            .nth(column)
            .map_or(start + end, |(i, _)| start + i)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        if self.ascii_lines[line] {
            return (line + 1, offset - start + 1);
        }
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

/// The largest file read, source or kernel source: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads a regular file of at most `limit` bytes. Anything else (a FIFO, a device, a
/// directory, a socket) is refused before a byte is read, so reading never blocks or runs
/// without end; a file that grows past the limit while being read is refused too.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
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
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("could not read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_big());
    }
    Ok(bytes)
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
}
