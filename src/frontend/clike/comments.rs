//! The comments of C and C++ source, for suppression comments: `//` to the end of the line
//! (a `\` at the end of the line continues it), `/* */` (not nested), skipping string and
//! character literals and C++ raw strings (`R"delim( .. )delim"`).

use std::ops::Range;

/// The byte ranges of the comments of `text`.
pub fn comments(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let mut end = i + 2;
                while end < b.len() && !(b[end] == b'\n' && b[end - 1] != b'\\') {
                    end += 1;
                }
                out.push(i..end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                out.push(i..end);
                i = end;
            }
            b'R' if b.get(i + 1) == Some(&b'"')
                && (i == 0
                    || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
                    || matches!(b[i - 1], b'u' | b'U' | b'L' | b'8')) =>
            {
                let open = text[i + 2..].find('(').map(|n| i + 2 + n);
                i = match open {
                    Some(o) => {
                        let close = format!("){}\"", &text[i + 2..o]);
                        text[o..]
                            .find(&close)
                            .map_or(b.len(), |n| o + n + close.len())
                    }
                    None => b.len(),
                };
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::comments;

    #[test]
    fn comments_skip_strings_chars_and_raw_strings() {
        let src = r#"char c = '"'; /* a /* b */ x = "// no"; // yes
const char *k = R"CLC( // not a comment )CLC"; /* last */"#;
        let got: Vec<&str> = comments(src).into_iter().map(|r| &src[r]).collect();
        assert_eq!(got, ["/* a /* b */", "// yes", "/* last */"]);
    }
}
