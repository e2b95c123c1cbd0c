//! CLM901: a comment that starts like a suppression but is not one.

use super::{Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::ir::Span;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM901",
    name: "invalid-suppression",
    level: Level::Warning,
    summary: "a `clmigrate-lint:` comment that does not parse or names no rule",
    doc: include_str!("../../rules/CLM901-invalid-suppression.md"),
    check,
};

/// Reads comments, not facts: `suppress::apply` reports it through [`finding`].
fn check(_: &Fact, _: Spelling) -> Option<Finding> {
    None
}

/// The finding for a malformed suppression comment.
pub fn finding(comment: Span, message: String) -> Finding {
    let mut f = RULE.finding(
        message,
        comment,
        Label {
            span: comment,
            message: "this comment suppresses nothing".into(),
        },
    );
    f.help = Some(
        "write `// clmigrate-lint: allow(CLM003) -- reason` or `// clmigrate-lint: allow-file(CLM003)`"
            .into(),
    );
    f
}
