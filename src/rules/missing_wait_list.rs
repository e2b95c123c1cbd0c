//! CLM003: two commands on different queues touch a buffer, one writes, nothing orders them.

use super::{what, Label, Level, Rule, Spelling};
use crate::analysis::{Fact, Mode};
use crate::ir::CommandKind;
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

fn does(m: Mode) -> &'static str {
    match m {
        Mode::Read => "reads",
        Mode::Write => "writes",
        Mode::MaybeWrite => "uses",
        Mode::Migrate => "migrates",
    }
}

fn check(fact: &Fact, _: Spelling) -> Option<Finding> {
    // Only unordered pairs of commands.
    let Fact::Unordered {
        producer,
        producer_mode,
        consumer,
        consumer_mode,
        buffer,
        same_queue,
        ..
    } = fact
    else {
        return None;
    };
    let (pq, cq) = (&producer.queue, &consumer.queue);
    let message = if producer_mode.writes_data() && consumer_mode.writes_data() {
        if *same_queue {
            format!("`{buffer}` is written twice on the out-of-order queue `{cq}`, and nothing orders the two writes")
        } else {
            format!(
                "`{buffer}` is written on `{pq}` and on `{cq}`, and nothing orders the two writes"
            )
        }
    } else if *same_queue {
        // One out-of-order queue: naming it twice would read as if nothing were wrong.
        let (v, w) = (verb(*consumer_mode), what(producer));
        match producer_mode {
            Mode::Read => format!(
                "`{buffer}` is {v} on the out-of-order queue `{cq}` while {w}, enqueued before it there, may still read it"
            ),
            m => format!(
                "`{buffer}` is {v} on the out-of-order queue `{cq}` without waiting for {w}, which {} it on the same queue",
                does(*m)
            ),
        }
    } else if *producer_mode == Mode::Read {
        format!(
            "`{buffer}` is {} on `{cq}` while {} on `{pq}` may still read it",
            verb(*consumer_mode),
            what(producer)
        )
    } else {
        format!(
            "`{buffer}` is {} on `{cq}` without waiting for {}, which {} it on `{pq}`",
            verb(*consumer_mode),
            what(producer),
            does(*producer_mode)
        )
    };
    let mut f = RULE.finding(
        message,
        consumer.span,
        Label {
            span: consumer.span,
            message: format!("{} here on `{cq}`", verb(*consumer_mode)),
        },
    );
    f.secondary.push(Label {
        span: producer.span,
        message: format!("{} here on `{pq}`", verb(*producer_mode)),
    });
    if *same_queue {
        f.note = Some(format!(
            "`{cq}` is an out-of-order queue: its commands are ordered only by events and barriers"
        ));
    } else if producer.blocking
        && *producer_mode == Mode::Write
        && producer.kind == CommandKind::Write
    {
        // The spec's words for `blocking_write`: the host may reuse `ptr` when the call
        // returns; the write is only enqueued.
        f.note = Some(String::from(
            "a blocking write returns once its host memory may be reused; it does not complete the write for other queues (OpenCL 3.0, `clEnqueueWriteBuffer`)"
        ));
    }
    f.help = Some(match &producer.event_var {
        // ocl-core's wait lists are `Option`s of an event or a slice of events.
        Some(ev) if consumer.binding == "ocl-core" => {
            format!("wait on `{ev}` here: pass `Some(&{ev})` as this command's wait list")
        }
        // ocl's commands wait through their builder.
        Some(ev) if consumer.binding == "ocl" => {
            format!("wait on `{ev}` here: add `.ewait(&{ev})` to this command")
        }
        // opencl3's wait lists hold the raw handles of its `Event`s.
        Some(ev) if consumer.binding == "opencl3" => {
            format!("wait on `{ev}` here: pass `{ev}.get()` in this command's wait list")
        }
        // A raw `cl_event` (C, raw FFI, cl3) or a `cl::Event` goes in the list as it is.
        Some(ev) => format!("wait on `{ev}` here: pass `{ev}` in this command's wait list"),
        None => format!(
            "keep the event of {} on `{pq}` and pass it in this command's wait list",
            what(producer)
        ),
    });
    Some(f)
}
