//! CLM900: a suppression comment that suppresses nothing.

use super::{Applicability, Edit, Fix, Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::ir::Span;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM900",
    name: "unused-suppression",
    level: Level::Warning,
    summary: "a `clmigrate-lint: allow(...)` comment that suppresses nothing",
    doc: include_str!("../../rules/CLM900-unused-suppression.md"),
    check,
};

/// Reads comments, not facts: `suppress::apply` reports it through [`finding`].
fn check(_: &Fact, _: Spelling) -> Option<Finding> {
    None
}

/// The finding for a suppression whose `unused` rules matched nothing; `kept` are the codes
/// that did, and `removal` is what deleting the whole comment deletes and what it leaves in
/// its place.
pub fn finding(
    comment: Span,
    list: Span,
    unused: &[&Rule],
    kept: &[&str],
    removal: (Span, &str),
) -> Finding {
    let names: Vec<String> = unused
        .iter()
        .map(|r| format!("`{}` (`{}`)", r.code, r.name))
        .collect();
    let mut f = RULE.finding(
        format!(
            "unused suppression: nothing here is reported by {}",
            names.join(", ")
        ),
        comment,
        Label {
            span: comment,
            message: "suppresses nothing".into(),
        },
    );
    f.help = Some(
        "remove it, or move it onto the line where the finding starts or the line above".into(),
    );
    f.fix = Some(if kept.is_empty() {
        Fix {
            message: "remove the suppression".into(),
            applicability: Applicability::Safe,
            edits: vec![Edit {
                span: removal.0,
                replacement: removal.1.into(),
            }],
        }
    } else {
        Fix {
            message: format!("keep only `{}`", kept.join(", ")),
            applicability: Applicability::Safe,
            edits: vec![Edit {
                span: list,
                replacement: kept.join(", "),
            }],
        }
    });
    f
}
