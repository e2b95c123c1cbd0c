//! A bound on how deeply a file nests, from its tokens, before it is parsed.
//!
//! The parser, the lowering and dropping a syntax tree all recurse once per level of
//! nesting; a file nested deeply enough would overflow the stack, which aborts the process.
//! Tokenizing does not recurse, so the tokens give a bound first: within each delimited
//! group, every token of the current statement or list element (up to `;` or `,`) counts,
//! so chains such as `a.b().c()`, `1 + 2 + 3` or `- - x` count one or more per level, and a
//! group nests one deeper than the tokens before it. Real code stays far below the limit.

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Files whose bound exceeds this are reported and not checked.
pub const MAX_NESTING: usize = 5_000;

/// Files with a number literal longer than this are reported and not checked: the parser
/// takes time quadratic in a literal's length, and no type holds such a number (rustc
/// rejects an integer above `u128::MAX`, 39 digits).
pub const MAX_LITERAL_DIGITS: usize = 1_024;

/// What the tokens say about a file before it is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The nesting bound.
    pub depth: usize,
    /// The length of the longest number literal.
    pub longest_number: usize,
}

/// Keywords that start an item: nothing before one continues into it, unless it follows a
/// punctuation mark (`-> fn()`, `: impl Fn()`, `= fn()`): it then starts a type, which
/// nests like any other.
const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "impl", "mod", "trait", "use", "type", "pub", "extern", "union",
];

/// The shape of `text`, or `None` when it does not tokenize (the parser then reports it).
pub fn shape(text: &str) -> Option<Shape> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // A `#!` line that is not an inner attribute is a shebang, which the tokenizer rejects.
    let text = match text.strip_prefix("#!") {
        Some(rest) if !rest.trim_start().starts_with('[') => {
            rest.find('\n').map_or("", |i| &rest[i..])
        }
        _ => text,
    };
    let tokens: TokenStream = text.parse().ok()?;
    Some(walk(tokens))
}

/// The shape of a file's tokens, for a file tokenized once for both this and the parser.
pub fn of_tokens(tokens: &TokenStream) -> Shape {
    walk(tokens.clone())
}

struct Frame {
    tokens: proc_macro2::token_stream::IntoIter,
    /// Depth of the group's contents.
    base: usize,
    /// Tokens of the current statement or element so far.
    run: usize,
    /// Whether the previous token was a `{ }` group (a statement may have ended there).
    after_block: bool,
    /// Whether the previous token was a punctuation mark.
    after_punct: bool,
}

fn walk(tokens: TokenStream) -> Shape {
    let mut max = 0;
    let mut longest_number = 0;
    let mut stack = vec![Frame {
        tokens: tokens.into_iter(),
        base: 0,
        run: 0,
        after_block: false,
        after_punct: false,
    }];
    while let Some(top) = stack.last_mut() {
        let Some(tt) = top.tokens.next() else {
            stack.pop();
            continue;
        };
        let continues = match &tt {
            TokenTree::Punct(_) | TokenTree::Group(_) => true,
            TokenTree::Ident(i) => i == "else" || i == "as",
            TokenTree::Literal(_) => false,
        };
        if top.after_block && !continues {
            top.run = 0;
        }
        top.after_block = false;
        let after_punct =
            std::mem::replace(&mut top.after_punct, matches!(tt, TokenTree::Punct(_)));
        match &tt {
            TokenTree::Punct(p) if matches!(p.as_char(), ';' | ',') => {
                top.run = 0;
                continue;
            }
            TokenTree::Ident(i) if !after_punct && ITEM_KEYWORDS.iter().any(|k| i == k) => {
                top.run = 0
            }
            _ => {}
        }
        if let TokenTree::Literal(l) = &tt {
            let len = l.span().byte_range().len();
            if len > longest_number && l.to_string().starts_with(|c: char| c.is_ascii_digit()) {
                longest_number = len;
            }
        }
        top.run += 1;
        let depth = top.base + top.run;
        max = max.max(depth);
        if let TokenTree::Group(g) = tt {
            top.after_block = g.delimiter() == Delimiter::Brace;
            // The group is dropped before its stream is walked, so the stream is its only
            // owner and is walked in place, not copied token by token.
            let inner = g.stream();
            drop(g);
            stack.push(Frame {
                tokens: inner.into_iter(),
                base: depth,
                run: 0,
                after_block: false,
                after_punct: false,
            });
        }
    }
    Shape {
        depth: max,
        longest_number,
    }
}

#[cfg(test)]
mod tests {
    use super::{shape, MAX_LITERAL_DIGITS};

    fn bound(text: &str) -> Option<usize> {
        shape(text).map(|s| s.depth)
    }

    #[test]
    fn statements_and_items_do_not_add_up() {
        let flat = "fn a() { let x = 1; let y = 2; }\n".repeat(1000);
        assert!(bound(&flat).unwrap() < 20);
        let ifs = format!("fn a() {{ {} }}", "if x == 1 { y(); } ".repeat(1000));
        assert!(bound(&ifs).unwrap() < 20);
    }

    #[test]
    fn every_kind_of_nesting_counts() {
        let n = 100;
        for text in [
            format!("fn f() {{ {}1{} }}", "(".repeat(n), ")".repeat(n)),
            format!("fn f() {{ a{} }}", ".m()".repeat(n)),
            format!("fn f() {{ {}1 }}", "- ".repeat(n)),
            format!("fn f() {{ {}1 }}", "1 + ".repeat(n)),
            format!("fn f() {{ if a {{}} {} }}", "else if a {} ".repeat(n)),
            format!("fn f() {{ {}1 }}", "|| ".repeat(n)),
            format!("type T = {}u8;", "fn() -> ".repeat(n)),
            format!("fn f() -> {}u8 {{ 0 }}", "impl Fn() -> ".repeat(n)),
            format!("fn f(g: {}u8) {{}}", "&dyn Fn() -> ".repeat(n)),
            format!("fn f() {{ let c = {}1; }}", "move |x: u8| ".repeat(n)),
        ] {
            assert!(bound(&text).unwrap() >= n, "{text}");
        }
    }

    #[test]
    fn a_shebang_and_a_bom_are_skipped() {
        assert_eq!(bound("#!/usr/bin/env run\nfn f() {}"), Some(4));
        assert_eq!(bound("\u{feff}fn f() {}"), Some(4));
        assert_eq!(bound("#![allow(x)]"), Some(6));
        assert_eq!(bound("\"unterminated"), None);
    }

    #[test]
    fn the_longest_number_literal_is_measured() {
        let long = "1".repeat(MAX_LITERAL_DIGITS + 1);
        let s = shape(&format!(
            "fn f() {{ let s = \"{long}\"; let x = 0x{long}; }}"
        ))
        .unwrap();
        assert_eq!(s.longest_number, long.len() + 2);
        assert_eq!(shape("const X: f64 = 1.5e3;").unwrap().longest_number, 5);
    }
}
