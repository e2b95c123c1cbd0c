//! `macro_rules!` macros of the file, expanded where they are called: host code wraps its
//! calls in small macros of its own (`arg!(kernel, 2, &value)` around `clSetKernelArg`,
//! `check!(call, "what")`), and what they run is the function's code.
//!
//! Only rules whose matcher is a list of `$name:fragment`s separated by commas are
//! expanded (no repetitions, no literal tokens); a call is expanded by the first rule of as
//! many parameters as it has arguments. The expansion's own tokens take the call's place in
//! the source, so what is found in it is reported on the call.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use syn::Expr;

/// One rule of a macro: its parameters (name and fragment kind) and its body.
#[derive(Clone)]
pub(super) struct Rule {
    params: Vec<(String, String)>,
    body: TokenStream,
}

/// The rules of a `macro_rules!` item that can be expanded; empty when none can.
pub(super) fn rules(m: &syn::ItemMacro) -> Vec<Rule> {
    if !m.mac.path.is_ident("macro_rules") {
        return Vec::new();
    }
    let tokens: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // `(matcher) => { body }` and an optional `;`.
        let (
            Some(TokenTree::Group(matcher)),
            Some(TokenTree::Punct(eq)),
            Some(TokenTree::Punct(gt)),
        ) = (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
        else {
            return out;
        };
        let Some(TokenTree::Group(body)) = tokens.get(i + 3) else {
            return out;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            return out;
        }
        if let Some(params) = params(matcher.stream()) {
            out.push(Rule {
                params,
                body: body.stream(),
            });
        }
        i += 4;
        if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    out
}

/// `$a:expr, $b:ident`: the parameters, or `None` for any other matcher.
fn params(matcher: TokenStream) -> Option<Vec<(String, String)>> {
    let tokens: Vec<TokenTree> = matcher.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match (
            tokens.get(i),
            tokens.get(i + 1),
            tokens.get(i + 2),
            tokens.get(i + 3),
        ) {
            (
                Some(TokenTree::Punct(dollar)),
                Some(TokenTree::Ident(name)),
                Some(TokenTree::Punct(colon)),
                Some(TokenTree::Ident(kind)),
            ) if dollar.as_char() == '$' && colon.as_char() == ':' => {
                out.push((name.to_string(), kind.to_string()));
            }
            _ => return None,
        }
        i += 4;
        match tokens.get(i) {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => i += 1,
            Some(_) => return None,
        }
    }
    Some(out)
}

/// The expression a call of the macro expands to, where a rule takes its arguments.
pub(super) fn expand(rules: &[Rule], call: &syn::Macro, at: Span) -> Option<Expr> {
    let args = split_args(call.tokens.clone());
    let rule = rules.iter().find(|r| r.params.len() == args.len())?;
    let body = substitute(rule.body.clone(), &rule.params, &args, at);
    // The body's statements, as a block.
    let mut block = Group::new(Delimiter::Brace, body);
    block.set_span(at);
    let block = TokenTree::Group(block);
    syn::parse2::<Expr>(block.into()).ok()
}

/// A call's arguments: its tokens split at the commas outside groups (a trailing comma
/// ends the last).
fn split_args(tokens: TokenStream) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for t in tokens {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(t),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|ts| ts.into_iter().collect()).collect()
}

/// The body with each `$param` replaced by its argument (an expression in parentheses, as
/// it is one expression), and the body's own tokens placed at the call.
fn substitute(
    body: TokenStream,
    params: &[(String, String)],
    args: &[TokenStream],
    at: Span,
) -> TokenStream {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let (TokenTree::Punct(p), Some(TokenTree::Ident(name))) = (&tokens[i], tokens.get(i + 1))
        {
            if p.as_char() == '$' {
                if let Some(k) = params.iter().position(|(n, _)| name == n) {
                    let arg = args[k].clone();
                    if params[k].1 == "expr" {
                        // Where the argument is written.
                        let first = arg.clone().into_iter().next().map_or(at, |t| t.span());
                        let mut g = Group::new(Delimiter::Parenthesis, arg);
                        g.set_span(first);
                        out.push(TokenTree::Group(g));
                    } else {
                        out.extend(arg);
                    }
                    i += 2;
                    continue;
                }
            }
        }
        let mut t = tokens[i].clone();
        match &mut t {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), substitute(g.stream(), params, args, at));
                inner.set_span(at);
                t = TokenTree::Group(inner);
            }
            other => other.set_span(at),
        }
        out.push(t);
        i += 1;
    }
    out.into_iter().collect()
}
