//! Suppression comments: `// clmigrate-lint: allow(CLM003) -- reason` on a finding's anchor
//! line (a trailing comment) or on its own line just above it, and
//! `// clmigrate-lint: allow-file(CLM003)` anywhere in the file. Codes or names, several
//! separated by commas. A suppression that suppresses nothing is reported (CLM900), and so is
//! a comment that starts with `clmigrate-lint` but does not parse (CLM901).

use std::ops::Range;

use crate::ir::Span;
use crate::rules::{self, Finding, Rule};
use crate::source::SourceFile;

/// The byte ranges of the comments of Rust source, found by a lexer that knows strings, raw
/// strings, character literals and nested block comments.
pub fn comments(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                out.push(i..end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(start..i.min(b.len()));
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'r' if (i == 0 || !ident(b[i - 1]) || raw_prefix(b, i)) && {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                b.get(i + 1 + hashes) == Some(&b'"')
            } =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let body = i + 2 + hashes;
                i = text[body..]
                    .find(&close)
                    .map_or(b.len(), |n| body + n + close.len());
            }
            b'\'' => {
                // A character literal, or a lifetime (`'a`), which has no closing quote.
                let rest = &text[i + 1..];
                let mut chars = rest.char_indices();
                match chars.next() {
                    Some((_, '\\')) => {
                        let close = rest
                            .get(2..)
                            .and_then(|s| s.find('\''))
                            .map_or(rest.len(), |n| n + 3);
                        i += 1 + close;
                    }
                    Some((_, c)) if rest[c.len_utf8()..].starts_with('\'') => {
                        i += 2 + c.len_utf8();
                    }
                    _ => i += 1,
                }
            }
            c if ident(c) => {
                while i < b.len() && ident(b[i]) {
                    if b[i] == b'r' && raw_prefix(b, i) {
                        break;
                    }
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// `br"..."` or `cr"..."`: an `r` right after a one-letter string prefix.
fn raw_prefix(b: &[u8], i: usize) -> bool {
    i >= 1
        && matches!(b[i - 1], b'b' | b'c')
        && (i == 1 || !(b[i - 2].is_ascii_alphanumeric() || b[i - 2] == b'_'))
        && b.get(i + 1).is_some_and(|&c| c == b'"' || c == b'#')
}

/// What a suppression covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Findings anchored on this 1-based line.
    Line(usize),
    File,
}

/// One `clmigrate-lint: allow(...)` comment.
#[derive(Clone)]
pub struct Suppression {
    /// The comment.
    pub span: Span,
    /// The span of the code list inside the parentheses.
    pub list: Span,
    pub scope: Scope,
    pub rules: Vec<&'static Rule>,
    /// Whether the comment is alone on its line (else it trails code).
    pub own_line: bool,
}

/// A comment that looks like a suppression but is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed {
    pub span: Span,
    pub message: String,
}

/// The suppressions of one file.
pub fn parse(file_id: usize, src: &SourceFile) -> (Vec<Suppression>, Vec<Malformed>) {
    let mut sups = Vec::new();
    let mut bad = Vec::new();
    let ranges = match crate::frontend::Lang::of(&src.path) {
        Some(_) => crate::frontend::clike::comments::comments(&src.text),
        None => comments(&src.text),
    };
    for r in ranges {
        let c = &src.text[r.clone()];
        let (body, body_at) = if let Some(b) = c.strip_prefix("/*") {
            if b.starts_with('*') || b.starts_with('!') {
                continue;
            }
            (b.strip_suffix("*/").unwrap_or(b), r.start + 2)
        } else {
            let b = &c[2..];
            if b.starts_with('/') || b.starts_with('!') {
                continue;
            }
            (b, r.start + 2)
        };
        let lead = body.len() - body.trim_start().len();
        let body = body.trim_start();
        if !body.starts_with("clmigrate-lint") {
            continue;
        }
        let span = Span {
            file: file_id,
            start: r.start,
            end: r.end,
        };
        match directive(body) {
            Ok((file_wide, names, list)) => {
                let mut rules = Vec::new();
                let mut unknown = Vec::new();
                for n in names {
                    match rules::find(n) {
                        Some(rule) => rules.push(rule),
                        None => unknown.push(format!("`{n}`")),
                    }
                }
                if !unknown.is_empty() {
                    bad.push(Malformed {
                        span,
                        message: format!(
                            "no rule {} (`cargo clmigrate-lint rules` lists them)",
                            unknown.join(", ")
                        ),
                    });
                    continue;
                }
                let (line, _) = src.line_col(r.start);
                // Alone on its line: no code before it, and none after it (a block comment
                // can lead a statement: it then covers its own line). Both looks stop at
                // the first thing that is not a blank, so a long line costs nothing.
                let before = src.text[..r.start].trim_end_matches([' ', '\t', '\r']);
                let own_line =
                    (before.is_empty() || before == "\u{feff}" || before.ends_with('\n'))
                        && only_comments(&src.text[r.end..]);
                let scope = match (file_wide, own_line) {
                    (true, _) => Scope::File,
                    (false, true) => Scope::Line(line + 1),
                    (false, false) => Scope::Line(line),
                };
                let at = body_at + lead;
                sups.push(Suppression {
                    span,
                    list: Span {
                        file: file_id,
                        start: at + list.start,
                        end: at + list.end,
                    },
                    scope,
                    rules,
                    own_line,
                });
            }
            Err(message) => bad.push(Malformed { span, message }),
        }
    }
    (sups, bad)
}

/// Parses `clmigrate-lint: allow(A, B) -- reason`: whether it is `allow-file`, the names,
/// and the byte range of the list within `body`.
fn directive(body: &str) -> Result<(bool, Vec<&str>, Range<usize>), String> {
    const EXPECTED: &str =
        "expected `clmigrate-lint: allow(CODE, ...)` or `clmigrate-lint: allow-file(CODE, ...)`, then optionally `-- reason`";
    let rest = body["clmigrate-lint".len()..]
        .strip_prefix(':')
        .ok_or_else(|| format!("malformed suppression: {EXPECTED}"))?;
    let trimmed = rest.trim_start();
    let (file_wide, after) = if let Some(a) = trimmed.strip_prefix("allow-file") {
        (true, a)
    } else if let Some(a) = trimmed.strip_prefix("allow") {
        (false, a)
    } else {
        return Err(format!("malformed suppression: {EXPECTED}"));
    };
    let after_ws = after.trim_start();
    let inner = after_ws
        .strip_prefix('(')
        .ok_or_else(|| format!("malformed suppression: {EXPECTED}"))?;
    let close = inner
        .find(')')
        .ok_or_else(|| "malformed suppression: the code list has no closing `)`".to_string())?;
    let list = &inner[..close];
    let names: Vec<&str> = list.split(',').map(str::trim).collect();
    if names.iter().any(|n| n.is_empty()) {
        return Err("malformed suppression: empty code in the list".into());
    }
    let tail = inner[close + 1..].trim();
    if !(tail.is_empty() || tail.starts_with("--")) {
        return Err(
            "malformed suppression: unexpected text after the list; write the reason after `--`"
                .into(),
        );
    }
    let list_start = body.len() - inner.len();
    Ok((file_wide, names, list_start..list_start + close))
}

/// Whether the line that `s` starts holds nothing but blanks and comments (a doc comment
/// is an attribute, code).
fn only_comments(mut s: &str) -> bool {
    loop {
        s = s.trim_start_matches([' ', '\t', '\r']);
        if s.starts_with('\n') {
            return true;
        }
        let doc = (s.starts_with("///") && !s.starts_with("////"))
            || s.starts_with("//!")
            || (s.starts_with("/**") && !s.starts_with("/***") && !s.starts_with("/**/"))
            || s.starts_with("/*!");
        if doc {
            return false;
        }
        if s.is_empty() || s.starts_with("//") {
            return true;
        }
        match s
            .strip_prefix("/*")
            .and_then(|r| r.find("*/").map(|i| &r[i + 2..]))
        {
            Some(rest) => s = rest,
            None => return false,
        }
    }
}

/// What applying suppressions did to one file's findings.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The findings that remain.
    pub kept: Vec<Finding>,
    pub suppressed: usize,
    /// CLM900 and CLM901 findings.
    pub reported: Vec<Finding>,
}

/// Drops the findings a suppression covers and reports unused and malformed ones. `enabled`
/// says whether a rule is enabled: a suppression of a disabled rule is not reported unused.
pub fn apply(
    file_id: usize,
    src: &SourceFile,
    findings: Vec<Finding>,
    enabled: &dyn Fn(&Rule) -> bool,
) -> Outcome {
    let (sups, bad) = parse(file_id, src);
    let mut used: Vec<Vec<bool>> = sups.iter().map(|s| vec![false; s.rules.len()]).collect();
    let mut out = Outcome::default();
    for f in findings {
        let (line, _) = src.line_col(f.anchor.start);
        let mut hit = false;
        for (si, s) in sups.iter().enumerate() {
            if s.scope != Scope::File && s.scope != Scope::Line(line) {
                continue;
            }
            for (ri, r) in s.rules.iter().enumerate() {
                if r.code == f.code {
                    used[si][ri] = true;
                    hit = true;
                }
            }
        }
        if hit {
            out.suppressed += 1;
        } else {
            out.kept.push(f);
        }
    }
    for (s, u) in sups.iter().zip(&used) {
        let unused: Vec<&Rule> = s
            .rules
            .iter()
            .zip(u)
            .filter(|(r, &used)| !used && enabled(r))
            .map(|(r, _)| *r)
            .collect();
        if unused.is_empty() {
            continue;
        }
        let kept: Vec<&str> = s
            .rules
            .iter()
            .zip(u)
            .filter(|(r, &used)| used || !enabled(r))
            .map(|(r, _)| r.code)
            .collect();
        out.reported.push(rules::unused_suppression::finding(
            s.span,
            s.list,
            &unused,
            &kept,
            removal(src, s),
        ));
    }
    for m in bad {
        out.reported
            .push(rules::invalid_suppression::finding(m.span, m.message));
    }
    out
}

/// What to delete to remove a suppression comment, and what to put in its place: its whole
/// line when it is alone there, else the comment and the blanks on one side of it, or a
/// space where the code on both sides would otherwise touch (`mut /* .. */x`).
fn removal(src: &SourceFile, s: &Suppression) -> (Span, &'static str) {
    let text = &src.text;
    let span = |start, end| Span {
        file: s.span.file,
        start,
        end,
    };
    if s.own_line {
        let (line, _) = src.line_col(s.span.start);
        let start = src.offset(line, 0);
        let end = text[s.span.end..]
            .find('\n')
            .map_or(text.len(), |n| s.span.end + n + 1);
        return (span(start, end), "");
    }
    let blank = [' ', '\t'];
    let before = text[..s.span.start].trim_end_matches(blank).len();
    let after = text.len() - text[s.span.end..].trim_start_matches(blank).len();
    let code_before = before > 0 && !text[..before].ends_with(['\n', '\r']);
    let code_after = after < text.len() && !text[after..].starts_with(['\n', '\r']);
    match (code_before, code_after) {
        // Between two pieces of code: one space stays between them.
        (true, true) => (span(before, after), " "),
        // Code before only: the comment and the blanks before it (a line's end is kept).
        (true, false) => (span(before, s.span.end), ""),
        // Code after only: the comment and the blanks after it (the indentation is kept).
        _ => (span(s.span.start, after), ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        comments(src).into_iter().map(|r| &src[r]).collect()
    }

    #[test]
    fn comments_skip_strings_chars_and_lifetimes() {
        let src = r####"let a = "// no"; // yes
let b = r#"/* no */"#; /* yes /* nested */ */
fn f<'a>(x: &'a str) -> char { '"' } // last
let c = br"// no"; let d = '\''; // end"####;
        assert_eq!(
            texts(src),
            ["// yes", "/* yes /* nested */ */", "// last", "// end"]
        );
    }

    #[test]
    fn directives() {
        assert_eq!(
            directive("clmigrate-lint: allow(CLM003, missing-wait-list) -- reason")
                .map(|(f, n, _)| (f, n)),
            Ok((false, vec!["CLM003", "missing-wait-list"]))
        );
        assert_eq!(
            directive("clmigrate-lint: allow-file(CLM002)").map(|(f, n, _)| (f, n)),
            Ok((true, vec!["CLM002"]))
        );
        for bad in [
            "clmigrate-lint allow(CLM003)",
            "clmigrate-lint: deny(CLM003)",
            "clmigrate-lint: allow CLM003",
            "clmigrate-lint: allow(CLM003",
            "clmigrate-lint: allow(CLM003,)",
            "clmigrate-lint: allow(CLM003) because",
        ] {
            assert!(directive(bad).is_err(), "{bad}");
        }
    }
}
