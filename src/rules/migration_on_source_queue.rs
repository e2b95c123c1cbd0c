//! CLM005: a device-to-device migration enqueued on the queue where the buffer already is.

use super::{Applicability, Edit, Fix, Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM005",
    name: "migration-on-source-queue",
    level: Level::Warning,
    summary: "a migration is enqueued on the queue of the device that already holds the buffer",
    doc: include_str!("../../rules/CLM005-migration-on-source-queue.md"),
    check,
};

fn check(fact: &Fact, _: Spelling) -> Option<Finding> {
    // Only migrations on the source's queue.
    let Fact::SourceQueueMigration {
        migration,
        last,
        next,
        buffer,
    } = fact
    else {
        return None;
    };
    let mut f = RULE.finding(
        format!(
            "`{buffer}` moves to the device of `{}`, but the migration is enqueued on `{}`, where it already is",
            next.queue, migration.queue
        ),
        migration.span,
        Label {
            span: migration.span,
            message: format!("enqueued on the source queue `{}`", migration.queue),
        },
    );
    if let Some(q) = &migration.queue_arg {
        f.secondary.push(Label {
            span: q.span,
            message: "the queue of the device the buffer is on".into(),
        });
    }
    f.secondary.push(Label {
        span: last.span,
        message: format!("last used here on `{}`", last.queue),
    });
    f.secondary.push(Label {
        span: next.span,
        message: format!("next used here on `{}`", next.queue),
    });
    f.help = Some(format!(
        "enqueue the migration on `{}`, the queue of the device the buffer moves to",
        next.queue
    ));
    if let (Some(from), Some(to)) = (&migration.queue_arg, &next.queue_arg) {
        // The destination as the migration writes its queue: `&` where it has one (an
        // argument), none where it has none (a receiver, `q.enqueue_migrate_mem_object(..)`).
        let bare = to.text.trim_start_matches('&').trim_start();
        let replacement = match from.text.starts_with('&') {
            true => format!("&{bare}"),
            false => bare.to_string(),
        };
        // The same text names another queue here (`slab.queue` of another loop's member):
        // no edit can be read off the code.
        if replacement != from.text {
            f.fix = Some(Fix {
                message: format!("enqueue on `{replacement}`"),
                applicability: Applicability::MaybeIncorrect,
                edits: vec![Edit {
                    span: from.span,
                    replacement,
                }],
            });
        }
    }
    Some(f)
}
