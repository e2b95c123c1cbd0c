//! CLM004: a buffer already initialized from host data is written again from the same data.

use super::{Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::ir::CommandKind;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM004",
    name: "duplicate-shared-buffer-init",
    level: Level::Warning,
    summary: "a buffer already initialized from host data is initialized again from the same data",
    doc: include_str!("../../rules/CLM004-duplicate-shared-buffer-init.md"),
    check,
};

fn check(fact: &Fact, _: Spelling) -> Option<Finding> {
    // Only repeated uploads of unchanged host data.
    let Fact::Reinit {
        write,
        first,
        first_queue,
        buffer,
        host,
        ..
    } = fact
    else {
        return None;
    };
    // A fill again with the same pattern over the same range.
    let fill = write.kind == CommandKind::Fill;
    let mut f = RULE.finding(
        match fill {
            true => format!("`{buffer}` is filled again with `{host}`, which it already holds"),
            false => {
                format!("`{buffer}` is initialized again from `{host}`, which it already holds")
            }
        },
        write.span,
        Label {
            span: write.span,
            message: match fill {
                true => format!("filled again on `{}`", write.queue),
                false => format!("uploaded again on `{}`", write.queue),
            },
        },
    );
    f.secondary.push(Label {
        span: *first,
        message: match (first_queue, fill) {
            (Some(q), true) => format!("first filled here on `{q}`"),
            (Some(q), false) => format!("first written here on `{q}`"),
            (None, _) => format!("created here from `{host}`"),
        },
    });
    f.note =
        Some("a buffer belongs to its context: every device in it sees the same contents".into());
    f.help = Some(match fill {
        true => "fill the buffer once; remove this fill".into(),
        false => "write the buffer once; remove this upload".into(),
    });
    Some(f)
}
