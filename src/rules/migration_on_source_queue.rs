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
        // The destination as the migration's code can name it: as written where that is a
        // path with constant indices (`queues[0]`, `pair.second`), else as the analysis
        // names the member (`queues[0]` for `queues[d]` in another loop); none where it
        // is written in another function, whose names are not this one's.
        let written = to.text.trim_start_matches('&').trim_start();
        let root = |t: &str| t.split(['.', '[', '-']).next().map(str::to_string);
        let dest = if constant_path(written) {
            Some(written.to_string())
        } else {
            Some(next.queue.clone()).filter(|q| constant_path(q) && root(q) == root(written))
        };
        let callee = |c: &crate::analysis::CmdInfo| c.via.last().map(|h| h.callee.clone());
        // `&` as the migration writes its own queue: none for a receiver
        // (`q.enqueue_migrate_mem_object(..)`).
        let replacement = dest.map(|d| match from.text.starts_with('&') {
            true => format!("&{d}"),
            false => d,
        });
        if let Some(replacement) =
            replacement.filter(|r| *r != from.text && callee(migration) == callee(next))
        {
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

/// Whether `t` is a path to one place whatever the loop it is read in: identifiers joined
/// by `.`, `->` or `::`, indexed by integer literals (`queues[0]`, `st->q[1]`).
fn constant_path(t: &str) -> bool {
    let mut rest = t;
    let ident = |s: &str| {
        let n = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        (n > 0 && !s.as_bytes()[0].is_ascii_digit()).then_some(n)
    };
    let Some(n) = ident(rest) else {
        return false;
    };
    rest = &rest[n..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let Some(close) = r.find(']') else {
                return false;
            };
            if close == 0 || !r[..close].bytes().all(|b| b.is_ascii_digit()) {
                return false;
            }
            rest = &r[close + 1..];
            continue;
        }
        let Some(r) = (rest.strip_prefix('.'))
            .or_else(|| rest.strip_prefix("->"))
            .or_else(|| rest.strip_prefix("::"))
        else {
            return false;
        };
        let Some(n) = ident(r) else {
            return false;
        };
        rest = &r[n..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::constant_path;

    #[test]
    fn paths_with_constant_indices() {
        for ok in [
            "q1",
            "queues[0]",
            "pair.second",
            "st->q[1]",
            "self.slabs[0].queue",
            "cl::q",
        ] {
            assert!(constant_path(ok), "{ok}");
        }
        for no in [
            "queues[d]",
            "slabs[(d + 1) % n].queue",
            "q()",
            "",
            "0",
            "a.",
            "x[]",
            "`q`",
        ] {
            assert!(!constant_path(no), "{no}");
        }
    }
}
