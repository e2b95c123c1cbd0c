//! Applying fixes: `--fix` (Safe fixes), `--fix --unsafe` (also MaybeIncorrect ones) and
//! `--diff` (print the edits, write nothing). Display-only fixes are never applied.
//!
//! Per file, fixes are taken in source order and one that overlaps a fix already taken is
//! dropped (the next pass may take it). The fixed text must still parse, else the file is
//! left alone. Writes are atomic: a temporary file in the same directory, with the original's
//! permissions, renamed over the original. `--fix` repeats check-and-fix until nothing
//! changes (at most [`PASSES`] times), so running it again changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::rules::{Applicability, Fix};
use crate::source::SourceFile;
use crate::{check, Problem, Report, Settings};

/// The most check-and-fix passes of one `--fix` run.
pub const PASSES: usize = 8;

/// Whether `--fix` (with `--unsafe` when `unsafe_fixes`) applies a fix of this kind.
pub fn applies(a: Applicability, unsafe_fixes: bool) -> bool {
    match a {
        Applicability::Safe => true,
        Applicability::MaybeIncorrect => unsafe_fixes,
        Applicability::DisplayOnly => false,
    }
}

/// The new text of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub path: PathBuf,
    /// The path as shown to the user.
    pub display: String,
    pub old: String,
    pub new: String,
    /// How many fixes it applies.
    pub fixes: usize,
}

/// Applies non-overlapping fixes to `text`; returns the new text and how many were applied.
/// Every edit of a fix must lie in `text`; a fix whose edits overlap one taken earlier (in
/// source order) is left out whole.
pub fn apply_fixes(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let (taken, count) = select(text, fixes);
    (splice(text, &taken), count)
}

/// An edit taken: the byte range of the old text and what replaces it.
type Taken<'a> = (usize, usize, &'a str);

/// The edits of the fixes [`apply_fixes`] takes, in source order, and how many fixes.
fn select<'a>(text: &str, fixes: &[&'a Fix]) -> (Vec<Taken<'a>>, usize) {
    let mut order: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    order.sort_by_key(|f| f.edits.iter().map(|e| (e.span.start, e.span.end)).min());
    let mut taken: Vec<Taken> = Vec::new();
    let mut count = 0;
    for fix in order {
        let overlaps = |s: usize, e: usize| {
            taken
                .iter()
                .any(|&(ts, te, _)| (s < te && ts < e) || s == ts)
        };
        let fits = fix.edits.iter().all(|e| {
            e.span.start <= e.span.end
                && e.span.end <= text.len()
                && text.is_char_boundary(e.span.start)
                && text.is_char_boundary(e.span.end)
                && !overlaps(e.span.start, e.span.end)
        });
        let mut own: Vec<(usize, usize)> = fix
            .edits
            .iter()
            .map(|e| (e.span.start, e.span.end))
            .collect();
        own.sort_unstable();
        let self_overlap = own.windows(2).any(|w| w[1].0 < w[0].1 || w[1].0 == w[0].0);
        if !fits || self_overlap {
            continue;
        }
        taken.extend(
            fix.edits
                .iter()
                .map(|e| (e.span.start, e.span.end, e.replacement.as_str())),
        );
        count += 1;
    }
    taken.sort_by_key(|&(s, e, _)| (s, e));
    (taken, count)
}

/// `text` with the `taken` edits (in source order, not overlapping) made.
fn splice(text: &str, taken: &[Taken]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(s, e, r) in taken {
        out.push_str(&text[at..s]);
        out.push_str(r);
        at = e;
    }
    out.push_str(&text[at..]);
    out
}

/// One token of Rust source, delimiters included: its text, whether a punctuation mark is
/// joined to the next one (`+=` is not `+ =`), and its byte range.
#[derive(Debug)]
struct Token {
    text: String,
    joint: bool,
    start: usize,
    end: usize,
}

/// The tokens of `text` in order, or `None` when it does not tokenize. A byte-order mark
/// and a shebang line are not tokens.
fn tokens(text: &str) -> Option<Vec<Token>> {
    use proc_macro2::{Delimiter, TokenTree};
    let mut skip = if text.starts_with('\u{feff}') { 3 } else { 0 };
    if let Some(rest) = text[skip..].strip_prefix("#!") {
        if !rest.trim_start().starts_with('[') {
            skip = rest.find('\n').map_or(text.len(), |i| skip + 2 + i);
        }
    }
    let body = &text[skip..];
    let lines = SourceFile::new(PathBuf::new(), String::new(), body.to_string());
    let stream: proc_macro2::TokenStream = body.parse().ok()?;
    let range = |s: proc_macro2::Span| {
        let (a, b) = (s.start(), s.end());
        (
            skip + lines.offset(a.line, a.column),
            skip + lines.offset(b.line, b.column),
        )
    };
    let mut out = Vec::new();
    let mut stack = vec![(stream.into_iter(), None)];
    while let Some((iter, close)) = stack.last_mut() {
        let Some(tt) = iter.next() else {
            if let Some(t) = close.take() {
                out.push(t);
            }
            stack.pop();
            continue;
        };
        let (text, joint) = match &tt {
            TokenTree::Group(g) => {
                let (open, shut) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                let (s, e) = range(g.span_open());
                out.push(Token {
                    text: open.into(),
                    joint: false,
                    start: s,
                    end: e,
                });
                let (s, e) = range(g.span_close());
                let shut = Token {
                    text: shut.into(),
                    joint: false,
                    start: s,
                    end: e,
                };
                stack.push((g.stream().into_iter(), Some(shut)));
                continue;
            }
            TokenTree::Punct(p) => (
                p.as_char().to_string(),
                p.spacing() == proc_macro2::Spacing::Joint,
            ),
            other => (other.to_string(), false),
        };
        let (start, end) = range(tt.span());
        out.push(Token {
            text,
            joint,
            start,
            end,
        });
    }
    proc_macro2::extra::invalidate_current_thread_spans();
    Some(out)
}

/// Checks that `new`, which is `old` with the `taken` edits made, differs from it in the
/// edited code only: every token of `old` outside the edits is in `new`, in order, spelled
/// and joined the same, and no token of either text runs across the edge of an edit (a
/// removal that glues `mut` to `x` makes `mutx`). `bare` are the byte ranges of `old`
/// (of comment edits) that must hold no token.
fn same_tokens(
    old: &str,
    new: &str,
    taken: &[Taken],
    bare: &[(usize, usize)],
) -> Result<(), String> {
    let before = tokens(old).ok_or("the file does not tokenize")?;
    let after = tokens(new).ok_or("the fixed file would not parse (it does not tokenize)")?;
    // The edited ranges, in the old text and in the new one.
    let mut shift = 0isize;
    let mut regions = Vec::new();
    let mut bare_new = Vec::new();
    for &(s, e, r) in taken {
        let at = s.saturating_add_signed(shift);
        regions.push(((s, e), (at, at + r.len())));
        if bare.contains(&(s, e)) {
            bare_new.push((at, at + r.len()));
        }
        shift += r.len() as isize - (e - s) as isize;
    }
    let crosses = |t: &Token, (a, b): (usize, usize)| {
        (t.start < a && a < t.end) || (t.start < b && b < t.end)
    };
    let inside = |t: &Token, (a, b): (usize, usize)| a <= t.start && t.end <= b && t.start < b;
    let line = |text: &str, at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    for t in &before {
        if regions.iter().any(|&(r, _)| crosses(t, r)) {
            return Err(format!(
                "an edit cuts the token `{}` on line {}",
                t.text,
                line(old, t.start)
            ));
        }
        if bare.iter().any(|&r| inside(t, r)) {
            return Err(format!(
                "the removal of a comment would remove `{}` on line {}",
                t.text,
                line(old, t.start)
            ));
        }
    }
    for t in &after {
        if bare_new.iter().any(|&r| inside(t, r)) {
            return Err(format!(
                "the edit of a comment would add `{}` on line {}",
                t.text,
                line(new, t.start)
            ));
        }
        if regions.iter().any(|&(_, r)| crosses(t, r)) {
            return Err(format!(
                "the fix would make the token `{}` on line {}",
                t.text,
                line(new, t.start)
            ));
        }
    }
    let kept = |ts: &[Token], old_side: bool| -> Vec<(String, bool)> {
        ts.iter()
            .filter(|t| {
                !regions
                    .iter()
                    .any(|&(o, n)| inside(t, if old_side { o } else { n }))
            })
            .map(|t| (t.text.clone(), t.joint))
            .collect()
    };
    let (a, b) = (kept(&before, true), kept(&after, false));
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        let what =
            |x: Option<&(String, bool)>| x.map_or("the end".to_string(), |(t, _)| format!("`{t}`"));
        return Err(format!(
            "the fix would change the code outside its edits ({} would become {})",
            what(a.get(i)),
            what(b.get(i))
        ));
    }
    Ok(())
}

/// The edits `--fix` would make to the files of `report`, and the files it refuses to
/// change: the result would not parse, or it would change a token the fixes do not edit
/// (see [`same_tokens`]). It runs on a thread with the checker's stack, as parsing needs.
pub fn plan(report: &Report, unsafe_fixes: bool) -> (Vec<FileEdit>, Vec<Problem>) {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(crate::STACK_SIZE)
            .spawn_scoped(scope, || plan_here(report, unsafe_fixes))
            .map_or_else(
                |_| plan_here(report, unsafe_fixes),
                |worker| worker.join().unwrap_or_default(),
            )
    })
}

fn plan_here(report: &Report, unsafe_fixes: bool) -> (Vec<FileEdit>, Vec<Problem>) {
    let mut by_file: BTreeMap<usize, Vec<&Fix>> = BTreeMap::new();
    // The ranges of the edits that only rewrite or remove a comment.
    let mut comment_edits: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    for f in &report.findings {
        let Some(fix) = &f.fix else { continue };
        // A fix edits the file of its finding.
        if applies(fix.applicability, unsafe_fixes)
            && fix.edits.iter().all(|e| e.span.file == f.anchor.file)
        {
            by_file.entry(f.anchor.file).or_default().push(fix);
            if f.code == crate::rules::unused_suppression::RULE.code {
                comment_edits
                    .entry(f.anchor.file)
                    .or_default()
                    .extend(fix.edits.iter().map(|e| (e.span.start, e.span.end)));
            }
        }
    }
    let mut edits = Vec::new();
    let mut refused = Vec::new();
    for (file, fixes) in by_file {
        let src = &report.files[file];
        let bare = comment_edits.get(&file).map_or(&[][..], Vec::as_slice);
        let fixed = match fix_file(src, &fixes, bare) {
            Ok(Some(f)) => f,
            Ok(None) => continue,
            Err(e) => {
                refused.push(Problem {
                    path: src.path.clone(),
                    span: None,
                    message: format!("fixes not applied: {e}"),
                    internal: true,
                    error: false,
                });
                continue;
            }
        };
        edits.push(FileEdit {
            path: src.path.clone(),
            display: src.display.clone(),
            old: src.text.clone(),
            new: fixed.text,
            fixes: fixed.count,
        });
    }
    (edits, refused)
}

/// A file with fixes applied.
struct Fixed<'a> {
    text: String,
    /// The fixes' edits, as ranges of the old text.
    taken: Vec<Taken<'a>>,
    /// The imports removed after them, as ranges of the old text with `taken` made.
    removed: Vec<(usize, usize)>,
    /// How many fixes.
    count: usize,
}

/// `src` with the `fixes` of its findings that [`select`] takes, and, in Rust, without the
/// imports that only the code they replaced used; `None` when that changes nothing. `Err`
/// says why the fixes are refused: the result would not parse, or it would change a token
/// the fixes do not edit (see [`same_tokens`]; `bare` are the ranges of the edits that only
/// rewrite or remove a comment).
fn fix_file<'a>(
    src: &SourceFile,
    fixes: &[&'a Fix],
    bare: &[(usize, usize)],
) -> Result<Option<Fixed<'a>>, String> {
    let (taken, count) = select(&src.text, fixes);
    let new = splice(&src.text, &taken);
    if count == 0 || new == src.text {
        return Ok(None);
    }
    // C and C++ are checked by their own parser; Rust by its token stream.
    let checked = match crate::frontend::Lang::of(&src.path) {
        Some(lang) => crate::frontend::clike::still_parses(&src.text, &new, lang)
            .map(|()| (new, Vec::new()))
            .map_err(|e| format!("the fixed file would not parse: {e}")),
        None => same_tokens(&src.text, &new, &taken, bare).and_then(|()| {
            let fixed = reparse(src, new)?;
            // The names the fixes took out of the code: an import only they used goes.
            let gone = removed_names(&src.text, &taken);
            let unused = unused_imports(&fixed.0, &fixed.1, &gone);
            if unused.is_empty() {
                return Ok((fixed.0.text, unused));
            }
            let removals: Vec<Taken> = unused.iter().map(|&(s, e)| (s, e, "")).collect();
            let text = splice(&fixed.0.text, &removals);
            same_tokens(&fixed.0.text, &text, &removals, &[])?;
            Ok((reparse(src, text)?.0.text, unused))
        }),
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    let (text, removed) = checked?;
    Ok(Some(Fixed {
        text,
        taken,
        removed,
        count,
    }))
}

/// The edits that applying `fix` to `src`, the file of its finding, makes as `--fix` makes
/// them: the fix's own, and the removal of the imports that only the code it replaced used.
/// Each is a byte range of `src`'s text and its replacement, in source order, none
/// overlapping another. Empty when the fix changes nothing; `Err` when `--fix` would refuse
/// it (see [`plan`]). `comment` says that the fix only rewrites or removes a comment.
pub fn fix_edits(
    src: &SourceFile,
    fix: &Fix,
    comment: bool,
) -> Result<Vec<(usize, usize, String)>, String> {
    let bare: Vec<(usize, usize)> = if comment {
        fix.edits
            .iter()
            .map(|e| (e.span.start, e.span.end))
            .collect()
    } else {
        Vec::new()
    };
    let Some(fixed) = fix_file(src, &[fix], &bare)? else {
        return Ok(Vec::new());
    };
    let mut edits: Vec<(usize, usize, String)> = fixed
        .taken
        .iter()
        .map(|&(s, e, r)| (s, e, r.to_string()))
        .collect();
    let mut whole = false;
    for &(s, e) in &fixed.removed {
        match (before_edits(&fixed.taken, s), before_edits(&fixed.taken, e)) {
            (Some(a), Some(b)) => edits.push((a, b, String::new())),
            _ => whole = true,
        }
    }
    edits.sort();
    let taken: Vec<Taken> = edits.iter().map(|(s, e, r)| (*s, *e, r.as_str())).collect();
    let apart = taken.windows(2).all(|w| w[0].1 <= w[1].0);
    if whole || !apart || splice(&src.text, &taken) != fixed.text {
        // A removal meets an edit: one edit from the first change to the last.
        return Ok(vec![changed_range(&src.text, &fixed.text)]);
    }
    Ok(edits)
}

/// The offset in the old text of `at`, an offset in the text with the `taken` edits made,
/// when it is outside every edit or on its edge (for an edit that leaves nothing, that
/// edge is both of the old range's ends: `None`).
fn before_edits(taken: &[Taken], at: usize) -> Option<usize> {
    let mut shift = 0isize;
    for &(s, e, r) in taken {
        let start = s.checked_add_signed(shift)?;
        let end = start + r.len();
        if at < start {
            break;
        }
        if at == start && !r.is_empty() {
            return Some(s);
        }
        if at == end && !r.is_empty() {
            return Some(e);
        }
        if at <= end {
            return None;
        }
        shift += r.len() as isize - (e - s) as isize;
    }
    at.checked_add_signed(-shift)
}

/// The one edit that turns `old` into `new`: the range between their common prefix and
/// suffix, and what replaces it.
fn changed_range(old: &str, new: &str) -> (usize, usize, String) {
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (
        prefix,
        old.len() - suffix,
        new[prefix..new.len() - suffix].to_string(),
    )
}

/// `text` as a file like `src`, parsed (as edition 2015 code where only that parses).
fn reparse(src: &SourceFile, text: String) -> Result<(SourceFile, syn::File), String> {
    let fixed = SourceFile::new(src.path.clone(), src.display.clone(), text);
    match crate::parse(0, &fixed, None) {
        Ok(ast) => Ok((fixed, ast)),
        Err(p) => {
            let why = p.message.trim_end_matches("; the file was not checked");
            Err(format!("the fixed file would not parse ({why})"))
        }
    }
}

/// The identifiers of the code the `taken` edits replaced that their replacements do not
/// bring back.
fn removed_names(old: &str, taken: &[Taken]) -> BTreeSet<String> {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            .map(str::to_string)
            .collect()
    };
    let mut gone: BTreeSet<String> = taken
        .iter()
        .flat_map(|&(s, e, _)| words(&old[s..e]))
        .collect();
    for &(_, _, r) in taken {
        for w in words(r) {
            gone.remove(&w);
        }
    }
    gone
}

/// The byte ranges to delete from `src` (parsed as `ast`) to drop its imports of `names`
/// that nothing uses any more: an import by that very name (not renamed, not `pub`) whose
/// name is no other token of the file. A file that declares a module in another file keeps
/// them all (the module may name them through `super::`). An import in a list goes with
/// the comma that joins it to the list; an import that is all of its `use` goes with the
/// declaration and the rest of its line.
fn unused_imports(
    src: &SourceFile,
    ast: &syn::File,
    names: &BTreeSet<String>,
) -> Vec<(usize, usize)> {
    use syn::visit::Visit;
    if names.is_empty() {
        return Vec::new();
    }
    struct Uses<'a> {
        src: &'a SourceFile,
        names: &'a BTreeSet<String>,
        /// Every `use` declaration's range.
        decls: Vec<(usize, usize)>,
        /// The ranges that would remove imports, with the names they import.
        drops: Vec<(Vec<String>, (usize, usize))>,
        outlined_mod: bool,
    }
    impl Uses<'_> {
        fn range(&self, s: proc_macro2::Span) -> (usize, usize) {
            let r = self.src.span(0, s);
            (r.start, r.end)
        }
        fn tree_range(&self, t: &syn::UseTree) -> (usize, usize) {
            use syn::spanned::Spanned;
            self.range(t.span())
        }
        /// The names `t` imports when they all go; the ranges that remove those of its
        /// parts that go when not all of it does.
        fn gone(
            &self,
            t: &syn::UseTree,
            out: &mut Vec<(Vec<String>, (usize, usize))>,
        ) -> Option<Vec<String>> {
            match t {
                syn::UseTree::Name(n) => {
                    let name = n.ident.to_string();
                    self.names.contains(&name).then(|| vec![name])
                }
                syn::UseTree::Path(p) => self.gone(&p.tree, out),
                syn::UseTree::Group(g) => {
                    let items: Vec<&syn::UseTree> = g.items.iter().collect();
                    let all: Vec<Option<Vec<String>>> = items
                        .iter()
                        .map(|i| {
                            let mut inner = Vec::new();
                            let whole = self.gone(i, &mut inner);
                            out.extend(inner);
                            whole
                        })
                        .collect();
                    if all.iter().all(Option::is_some) {
                        return Some(all.into_iter().flatten().flatten().collect());
                    }
                    // Each run of items that go, with the commas on one side of it.
                    let mut k = 0;
                    while k < all.len() {
                        if all[k].is_none() {
                            k += 1;
                            continue;
                        }
                        let first = k;
                        let mut run = Vec::new();
                        while let Some(Some(names)) = all.get(k) {
                            run.extend(names.iter().cloned());
                            k += 1;
                        }
                        let cut = if first > 0 {
                            let end = self.tree_range(items[k - 1]).1;
                            (self.tree_range(items[first - 1]).1, end)
                        } else {
                            // Not every item goes: one follows the run.
                            (self.tree_range(items[0]).0, self.tree_range(items[k]).0)
                        };
                        out.push((run, cut));
                    }
                    None
                }
                syn::UseTree::Rename(_) | syn::UseTree::Glob(_) => None,
            }
        }
    }
    impl<'ast> Visit<'ast> for Uses<'_> {
        fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
            let (start, _) = self.range(u.use_token.span);
            let (_, end) = self.range(u.semi_token.span);
            self.decls.push((start, end));
            if !matches!(u.vis, syn::Visibility::Inherited) {
                return;
            }
            let mut parts = Vec::new();
            let whole = self.gone(&u.tree, &mut parts);
            match whole {
                Some(names) if u.attrs.is_empty() => {
                    let text = &self.src.text;
                    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
                    let rest = &text[end..];
                    let line_end = rest.find('\n').map_or(text.len(), |i| end + i + 1);
                    let alone = text[line_start..start].trim().is_empty()
                        && text[end..line_end].trim().is_empty();
                    let cut = if alone {
                        (line_start, line_end)
                    } else {
                        (start, end)
                    };
                    self.drops.push((names, cut));
                }
                Some(_) => {}
                None => self.drops.extend(parts),
            }
        }
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            self.outlined_mod |= m.content.is_none();
            syn::visit::visit_item_mod(self, m);
        }
    }
    let mut uses = Uses {
        src,
        names,
        decls: Vec::new(),
        drops: Vec::new(),
        outlined_mod: false,
    };
    uses.visit_file(ast);
    if uses.outlined_mod {
        return Vec::new();
    }
    let Some(tokens) = tokens(&src.text) else {
        return Vec::new();
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    let used = |name: &String| {
        tokens.iter().any(|t| {
            t.text == *name && !uses.decls.iter().any(|&(s, e)| s <= t.start && t.end <= e)
        })
    };
    for (names, cut) in uses.drops {
        if !names.iter().any(used) {
            out.push(cut);
        }
    }
    out.sort_unstable();
    out
}

/// A unified diff of the edits, one file after another.
pub fn diff(edits: &[FileEdit]) -> String {
    let mut out = String::new();
    for e in edits {
        out.push_str(
            &similar::TextDiff::from_lines(&e.old, &e.new)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", e.display), &format!("b/{}", e.display))
                .to_string(),
        );
    }
    out
}

/// Replaces the contents of `path` atomically, keeping its permissions (set-user-ID and
/// set-group-ID bits included) and owner, where allowed: the original is either untouched
/// or wholly replaced.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(path, data, |f, d| f.write_all(d))
}

/// [`write_atomic`] with the function that writes the temporary file given, so a failure
/// while writing can be tested.
pub fn write_atomic_with(
    path: &Path,
    data: &[u8],
    write: impl FnOnce(&mut File, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    replace(path, None, data, write)
}

/// [`write_atomic`], unless the file no longer holds `old` (it changed after it was read):
/// that is an error and the file is left as it is.
pub fn replace_if_unchanged(path: &Path, old: &[u8], data: &[u8]) -> io::Result<()> {
    replace(path, Some(old), data, |f, d| f.write_all(d))
}

/// The suffix of the temporary files `--fix` writes, after `.NAME.PID`.
const TMP_SUFFIX: &str = ".clmigrate-lint.tmp";

fn replace(
    path: &Path,
    old: Option<&[u8]>,
    data: &[u8],
    write: impl FnOnce(&mut File, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    // Write through a symbolic link, not over it.
    let target = fs::canonicalize(path)?;
    let meta = fs::metadata(&target)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    remove_stale_temporaries(dir, &name);
    let tmp = dir.join(format!(".{name}.{}{TMP_SUFFIX}", std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let result = (|| {
        write(&mut file, data)?;
        // The owner first: changing it clears the set-user-ID and set-group-ID bits.
        keep_owner(&file, &meta)?;
        file.set_permissions(meta.permissions())?;
        file.sync_all()?;
        if let Some(old) = old {
            let now = crate::source::read_regular(&target, crate::source::MAX_FILE_BYTES)
                .map_err(io::Error::other)?;
            if now != old {
                return Err(io::Error::other(
                    "the file changed after it was read; run again",
                ));
            }
        }
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        // The original is untouched; only the temporary file is to go.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Removes the temporary files beside `name` in `dir` left by `--fix` runs that were
/// killed before they could clean up (their process is gone).
fn remove_stale_temporaries(dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix)?.strip_suffix(TMP_SUFFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !process_alive(pid) {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // Signal 0 checks that the process exists; EPERM means it does, as another user's.
    // SAFETY: kill with signal 0 sends nothing.
    let sent = unsafe { libc::kill(pid, 0) } == 0;
    sent || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(pid: u32) -> bool {
    pid == std::process::id()
}

#[cfg(unix)]
fn keep_owner(file: &File, original: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let now = file.metadata()?;
    if (now.uid(), now.gid()) == (original.uid(), original.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()))
}

#[cfg(not(unix))]
fn keep_owner(_: &File, _: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// What a `--fix` run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The findings that remain after fixing.
    pub report: Report,
    /// Fixes applied.
    pub fixed: usize,
    /// Files written.
    pub files: BTreeSet<PathBuf>,
    /// Files left alone: the result would not parse, or the write failed.
    pub refused: Vec<Problem>,
}

/// Checks `paths`, applies the fixes and checks again until nothing changes.
pub fn fix(paths: &[PathBuf], settings: &Settings, unsafe_fixes: bool) -> Outcome {
    let mut out = Outcome {
        report: check(paths, settings),
        ..Outcome::default()
    };
    for _ in 0..PASSES {
        let (edits, refused) = plan(&out.report, unsafe_fixes);
        out.refused.extend(refused);
        let mut wrote = false;
        for e in edits {
            match replace_if_unchanged(&e.path, e.old.as_bytes(), e.new.as_bytes()) {
                Ok(()) => {
                    out.fixed += e.fixes;
                    out.files.insert(e.path);
                    wrote = true;
                }
                Err(err) => out.refused.push(Problem {
                    path: e.path,
                    span: None,
                    message: format!("fixes not applied: could not write the file: {err}"),
                    internal: false,
                    error: false,
                }),
            }
        }
        if !wrote {
            break;
        }
        out.report = check(paths, settings);
    }
    out.refused
        .sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    out.refused.dedup();
    out
}
