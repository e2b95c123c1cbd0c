//! Where in the program a call came from: the host call stack, captured when the call is made
//! (cheap: no symbols are looked up) and resolved to `file:line` only for what is reported.

use std::backtrace::Backtrace;
use std::fmt::Write as _;
use std::sync::Arc;

/// The call stack of one API call.
#[derive(Clone)]
pub struct Site(Arc<Backtrace>);

/// One resolved frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub function: String,
    pub file: Option<String>,
    pub line: u32,
    pub col: u32,
}

impl Site {
    pub fn capture() -> Site {
        Site(Arc::new(Backtrace::force_capture()))
    }

    /// The frames below the layer's own (the loader's and the driver's frames have no source
    /// and are left out), innermost first.
    pub fn frames(&self) -> Vec<Frame> {
        let frames = parse(&format!("{:#}", self.0));
        let own = frames
            .iter()
            .rposition(|f| f.function.starts_with("clmigrate_layer::"))
            .map_or(0, |i| i + 1);
        frames
            .into_iter()
            .skip(own)
            .filter(|f| f.file.is_some())
            .collect()
    }
}

/// Reads std's full backtrace format: `  N:     0xADDR - function` lines, each followed by
/// `at file:line:col` when the frame has debug info (inlined frames repeat the address).
fn parse(text: &str) -> Vec<Frame> {
    let mut frames: Vec<Frame> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(at) = trimmed.strip_prefix("at ") {
            if let Some(last) = frames.last_mut() {
                let mut parts = at.rsplitn(3, ':');
                let col = parts.next().and_then(|c| c.parse().ok());
                let line = parts.next().and_then(|l| l.parse().ok());
                if let (Some(col), Some(line), Some(file)) = (col, line, parts.next()) {
                    last.file = Some(file.to_string());
                    last.line = line;
                    last.col = col;
                }
            }
            continue;
        }
        let Some((index, rest)) = trimmed.split_once(':') else {
            continue;
        };
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let function = rest.split_once(" - ").map_or("", |(_, f)| f).trim();
        frames.push(Frame {
            function: strip_hash(function).to_string(),
            file: None,
            line: 0,
            col: 0,
        });
    }
    frames
}

/// `path::name::h0123456789abcdef` → `path::name`.
fn strip_hash(function: &str) -> &str {
    match function.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head
        }
        _ => function,
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The frames as a JSON array of `{"function", "file", "line", "col"}`.
pub fn frames_json(frames: &[Frame]) -> String {
    let items: Vec<String> = frames
        .iter()
        .map(|f| {
            format!(
                "{{\"function\":{},\"file\":{},\"line\":{},\"col\":{}}}",
                json_str(&f.function),
                json_str(f.file.as_deref().unwrap_or("")),
                f.line,
                f.col
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_full_backtrace_format() {
        let text = "   0:     0x5557a044fecb - std::backtrace::Backtrace::create::h0123456789abcdef\n\
                    \x20                              at /rustc/x/library/std/src/backtrace.rs:331:13\n\
                    \x20  1:     0x5557a0434aaa - app::main::hbaef0b59387dad33\n\
                    \x20                              at /work/app/src/main.rs:12:20\n\
                    \x20  2:     0x7f00 - <unknown>\n";
        let frames = parse(text);
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[1].function, "app::main");
        assert_eq!(frames[1].file.as_deref(), Some("/work/app/src/main.rs"));
        assert_eq!((frames[1].line, frames[1].col), (12, 20));
        assert_eq!(frames[2].file, None);
    }

    #[test]
    fn escapes_json() {
        assert_eq!(json_str("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
    }
}
