//! Kernel sources written as a stringified macro argument: `#define STRINGIFY(x) #x` and
//! `const char *src = STRINGIFY(__kernel void f(..) { .. });`, or `"#define TILE "
//! STR(TILE)` through `#define STR(x) STR_(x)`. tree-sitter cannot read a kernel as a
//! macro argument, so each such call is replaced, before parsing, by a name the
//! preprocessor's string is a constant of. The replacement has the call's length and
//! keeps its line breaks: every position after it stays where it was.

use std::collections::HashMap;

/// The text to parse, and the strings the names put in it stand for, where the file
/// stringifies any macro argument.
pub(super) struct Stringified {
    pub text: String,
    pub strings: Vec<(String, String)>,
}

/// How a function-like macro makes a string of its argument.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `#define S(x) #x`: the argument's text as written.
    Direct,
    /// `#define STR(x) S(x)` of a direct one: the argument with its macros replaced first.
    Expanding,
}

pub(super) fn stringified(text: &str) -> Option<Stringified> {
    if !text.contains("#define") {
        return None;
    }
    let (macros, objects) = definitions(text);
    if macros.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut strings = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            // A directive (`#define S(x) #x` itself) is not a call.
            b'#' if line_start => {
                i = directive_end(bytes, i);
                continue;
            }
            _ => {}
        }
        line_start = false;
        if let Some(end) = skip_literal_or_comment(bytes, i) {
            i = end;
            continue;
        }
        if !is_ident_start(b) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        let Some(&kind) = macros.get(&text[start..i]) else {
            continue;
        };
        let mut open = i;
        while open < bytes.len() && bytes[open].is_ascii_whitespace() {
            open += 1;
        }
        if bytes.get(open) != Some(&b'(') {
            continue;
        }
        let Some(close) = matching_paren(bytes, open) else {
            break;
        };
        let name = format!("_S{}", strings.len());
        let span = start..close + 1;
        if span.len() >= name.len() {
            let value = tokens_text(&text[open + 1..close]);
            let value = match kind {
                Kind::Direct => value,
                Kind::Expanding => expand(&value, &objects),
            };
            for (k, slot) in out[span].iter_mut().enumerate() {
                *slot = match name.as_bytes().get(k) {
                    Some(&c) => c,
                    None if matches!(*slot, b'\n' | b'\r') => *slot,
                    None => b' ',
                };
            }
            strings.push((name, value));
        }
        i = close + 1;
    }
    if strings.is_empty() {
        return None;
    }
    // Only ASCII bytes replaced whole characters, so the text is still UTF-8.
    let text = String::from_utf8(out).ok()?;
    Some(Stringified { text, strings })
}

/// The file's stringifying macros, and its object-like macros' replacement texts.
fn definitions(text: &str) -> (HashMap<String, Kind>, HashMap<String, String>) {
    let mut direct: HashMap<String, Kind> = HashMap::new();
    let mut forwarding: Vec<(String, String)> = Vec::new();
    let mut objects: HashMap<String, String> = HashMap::new();
    for line in logical_lines(text) {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let name_len = rest.bytes().take_while(|&b| is_ident(b)).count();
        let (name, after) = rest.split_at(name_len);
        if name.is_empty() {
            continue;
        }
        let Some(params) = after.strip_prefix('(') else {
            objects.insert(name.to_string(), after.trim().to_string());
            continue;
        };
        let Some((param, body)) = params.split_once(')') else {
            continue;
        };
        let param = match param.trim() {
            "..." => "__VA_ARGS__",
            p if p.bytes().all(is_ident) && !p.is_empty() => p,
            _ => continue,
        };
        let body = body.trim();
        if body.strip_prefix('#').map(str::trim_start) == Some(param) {
            direct.insert(name.to_string(), Kind::Direct);
        } else if let Some(inner) = body
            .strip_suffix(')')
            .and_then(|b| b.split_once('('))
            .filter(|(_, arg)| arg.trim() == param)
            .map(|(callee, _)| callee.trim())
        {
            forwarding.push((name.to_string(), inner.to_string()));
        }
    }
    for (name, callee) in forwarding {
        if direct.get(&callee) == Some(&Kind::Direct) {
            direct.insert(name, Kind::Expanding);
        }
    }
    (direct, objects)
}

/// The file's lines with their continuations (`\` at the end) joined.
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        match line.strip_suffix('\\') {
            Some(part) => cur.push_str(part),
            None => {
                cur.push_str(line);
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    out.push(cur);
    out
}

/// An argument with object-like macros replaced, as many levels as there are (a few).
fn expand(arg: &str, objects: &HashMap<String, String>) -> String {
    let mut cur = arg.to_string();
    for _ in 0..8 {
        match objects.get(cur.as_str()) {
            Some(v) => cur = tokens_text(v),
            None => break,
        }
    }
    cur
}

/// A macro argument's text as the preprocessor makes a string of it: comments gone and
/// each run of white space one space.
fn tokens_text(arg: &str) -> String {
    let bytes = arg.as_bytes();
    let mut out = String::with_capacity(arg.len());
    let mut i = 0;
    let mut space = false;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        let end = skip_literal_or_comment(bytes, i);
        let comment = end.is_some() && b == b'/';
        if comment {
            space = true;
            i = end.unwrap_or(i + 1);
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        let end = end.unwrap_or_else(|| i + utf8_len(b));
        out.push_str(arg.get(i..end).unwrap_or(""));
        i = end;
    }
    out
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    }
}

/// Where a string or character literal or a comment that starts at `i` ends.
fn skip_literal_or_comment(bytes: &[u8], i: usize) -> Option<usize> {
    match (bytes[i], bytes.get(i + 1)) {
        (b'/', Some(b'/')) => {
            let mut j = i;
            while j < bytes.len() && bytes[j] != b'\n' {
                j += 1;
            }
            Some(j)
        }
        (b'/', Some(b'*')) => {
            let mut j = i + 2;
            while j + 1 < bytes.len() && !(bytes[j] == b'*' && bytes[j + 1] == b'/') {
                j += 1;
            }
            Some((j + 2).min(bytes.len()))
        }
        (q @ (b'"' | b'\''), _) => {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != q && bytes[j] != b'\n' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(bytes.len()))
        }
        _ => None,
    }
}

/// Where a directive that starts at `i` ends: the end of its line and of the lines it
/// continues onto.
fn directive_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => i += 3,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    i
}

/// The `)` that closes the `(` at `open`, past literals and comments.
fn matching_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        if let Some(end) = skip_literal_or_comment(bytes, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Vec<(String, String)> {
        stringified(text).map(|s| s.strings).unwrap_or_default()
    }

    #[test]
    fn a_stringified_kernel_is_its_tokens_and_keeps_every_position() {
        let text = "#define STRINGIFY(x) #x\nconst char *src = STRINGIFY(\n__kernel void f(__global float *a, /* n */ float b)\n{ a[0] = b; } // end\n);\nint after;\n";
        let s = stringified(text).expect("a stringified argument");
        assert_eq!(s.text.len(), text.len());
        assert_eq!(s.text.lines().count(), text.lines().count());
        assert!(s.text.ends_with("\nint after;\n"));
        assert!(s.text.contains("const char *src = _S0 "));
        assert_eq!(
            s.strings,
            [(
                "_S0".to_string(),
                "__kernel void f(__global float *a, float b) { a[0] = b; }".to_string()
            )]
        );
    }

    #[test]
    fn a_forwarding_macro_expands_its_argument_first() {
        let text = "#define TILE 16\n#define STR_(x) #x\n#define STR(x) STR_(x)\nconst char *s = \"#define TILE \" STR(TILE) \"\\n\" STR_(TILE);\n";
        assert_eq!(
            strings(text),
            [
                ("_S0".to_string(), "16".to_string()),
                ("_S1".to_string(), "TILE".to_string())
            ]
        );
    }

    #[test]
    fn variadic_macros_and_calls_inside_literals_comments_and_directives() {
        let text = "#define K(...) #__VA_ARGS__\n#define WRAP K(a)\n// K(b)\nconst char *s = \"K(c)\";\nconst char *t = K(int i, j;);\n";
        assert_eq!(
            strings(text),
            [("_S0".to_string(), "int i, j;".to_string())]
        );
    }

    #[test]
    fn no_stringifying_macro_no_rewrite() {
        assert!(stringified("#define N 4\nint f(int x) { return x; }\n").is_none());
        assert!(stringified("#define ID(x) (x)\nint y = ID(3);\n").is_none());
    }
}
