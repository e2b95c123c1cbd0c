//! CLM003: two commands on different queues touch a buffer, one writes, nothing orders them.

use super::{what, Label, Level, Rule};
use crate::analysis::{Fact, Mode};
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM003",
    name: "missing-wait-list",
    level: Level::Error,
    summary: "commands on different queues share a buffer, one writes, and no event orders them",
    doc: include_str!("../../rules/CLM003-missing-wait-list.md"),
    check,
};

fn verb(m: Mode) -> &'static str {
    match m {
        Mode::Read => "read",
        Mode::Write => "written",
        Mode::MaybeWrite => "used",
        Mode::Migrate => "migrated",
    }
}

fn check(fact: &Fact) -> Option<Finding> {
    // Only unordered pairs of commands.
    let Fact::Unordered {
        producer,
        producer_mode,
        consumer,
        consumer_mode,
        buffer,
    } = fact
    else {
        return None;
    };
    let both_write = producer_mode.writes_data() && consumer_mode.writes_data();
    let message = if both_write {
        format!(
            "`{buffer}` is written on `{}` and on `{}`, and nothing orders the two writes",
            producer.queue, consumer.queue
        )
    } else {
        format!(
            "`{buffer}` is {} on `{}` without waiting for {} on `{}`",
            verb(*consumer_mode),
            consumer.queue,
            what(producer),
            producer.queue
        )
    };
    let mut f = RULE.finding(
        message,
        consumer.span,
        Label {
            span: consumer.span,
            message: format!("{} here on `{}`", verb(*consumer_mode), consumer.queue),
        },
    );
    f.secondary.push(Label {
        span: producer.span,
        message: format!("{} here on `{}`", verb(*producer_mode), producer.queue),
    });
    f.help = Some(match &producer.event_var {
        Some(ev) => format!("wait on `{ev}` here: pass `{ev}.get()` in this command's wait list"),
        None => format!(
            "keep the event of {} on `{}` and pass it in this command's wait list",
            what(producer),
            producer.queue
        ),
    });
    Some(f)
}
