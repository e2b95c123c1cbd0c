//! The rules: each reads analysis facts and emits findings. One file per rule; this is
//! the registry.

mod duplicate_shared_buffer_init;
mod host_migration_between_devices;
mod host_pointer_kernel_arg;
pub mod invalid_suppression;
mod kernel_arg_mismatch;
mod migration_on_source_queue;
mod missing_wait_list;
mod unreleased_event;
pub mod unused_suppression;

use crate::analysis::{CmdInfo, Fact};
use crate::ir::{CommandKind, Span};

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// Whether a fix can be applied without review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Applicability {
    /// Keeps the program's meaning apart from the bug: applied by `--fix`.
    Safe,
    /// Probably right, but needs a look: applied by `--fix --unsafe`.
    MaybeIncorrect,
    /// Shown, never applied.
    DisplayOnly,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub applicability: Applicability,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One reported problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub code: &'static str,
    pub name: &'static str,
    pub level: Level,
    pub message: String,
    /// The whole construct the finding is about (the command, the `set_arg` call): what
    /// markers, suppressions and baselines refer to.
    pub anchor: Span,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
    pub note: Option<String>,
    pub fix: Option<Fix>,
    /// Where a finding placed on a helper's call was found: the helper's command.
    pub moved_from: Option<Span>,
}

/// A rule: its identity, its spec and its check.
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub level: Level,
    pub summary: &'static str,
    /// The rule's spec, `rules/CLMxxx-name.md`.
    pub doc: &'static str,
    pub check: fn(&Fact, Spelling) -> Option<Finding>,
}

/// The language a finding's file is written in: messages and help name the APIs and types
/// as that language spells them (`clReleaseEvent` in C, `release_event` in Rust).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    Rust,
    C,
    Cpp,
}

impl Spelling {
    pub fn of(path: &std::path::Path) -> Spelling {
        match crate::frontend::Lang::of(path) {
            Some(crate::frontend::Lang::C) => Spelling::C,
            Some(crate::frontend::Lang::Cpp) => Spelling::Cpp,
            None => Spelling::Rust,
        }
    }
}

/// Every rule, in code order.
pub static RULES: &[Rule] = &[
    host_pointer_kernel_arg::RULE,
    host_migration_between_devices::RULE,
    missing_wait_list::RULE,
    duplicate_shared_buffer_init::RULE,
    migration_on_source_queue::RULE,
    unreleased_event::RULE,
    kernel_arg_mismatch::RULE,
    unused_suppression::RULE,
    invalid_suppression::RULE,
];

/// The rule with this code or name.
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// Runs every rule over the facts of one function, written in `spelling`.
pub fn run(facts: &[Fact], spelling: Spelling) -> Vec<Finding> {
    facts
        .iter()
        .flat_map(|f| {
            RULES
                .iter()
                .filter_map(move |r| (r.check)(f, spelling).map(|x| at_caller(f, x)))
        })
        .map(without_temporaries)
        .collect()
}

/// A finding as the user reads it: a field of an object the analysis holds in a
/// temporary (`%11.kernel_[0]`, the object a constructor call made) is named by the field
/// alone (`kernel_[0]`), as it is within its class; not where two temporaries would then
/// read alike (`%8.queue` and `%10.queue`).
fn without_temporaries(mut f: Finding) -> Finding {
    let mut temps: Vec<String> = (texts(&mut f))
        .flat_map(|t| {
            temporaries(t)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    temps.sort_unstable();
    temps.dedup();
    if let [temp] = temps.as_slice() {
        let prefix = format!("{temp}.");
        for t in texts(&mut f) {
            *t = t.replace(&prefix, "");
        }
    }
    f
}

/// The texts of a finding a user reads: its message, labels, help and note.
fn texts(f: &mut Finding) -> impl Iterator<Item = &mut String> {
    [&mut f.message, &mut f.primary.message]
        .into_iter()
        .chain(f.secondary.iter_mut().map(|l| &mut l.message))
        .chain(f.help.iter_mut())
        .chain(f.note.iter_mut())
}

/// The temporaries (`%11`) whose fields a text names (`%11.kernel_`).
fn temporaries(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices('%') {
        let after = &text[at + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let starts_name = !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if digits > 0 && starts_name && after[digits..].starts_with('.') {
            out.push(&text[at..at + 1 + digits]);
        }
    }
    out
}

/// The call frames of a command, from the analyzed function inwards.
fn frames(c: &CmdInfo) -> Vec<usize> {
    c.via.iter().map(|h| h.frame).collect()
}

/// The calls on the way to a command, as the code has them: two invocations through one
/// call (the passes of a loop, threads started on one line) are one place in the code.
fn sites(c: &CmdInfo) -> Vec<(Span, &str)> {
    c.via.iter().map(|h| (h.call, h.callee.as_str())).collect()
}

/// How many calls from the analyzed function inwards `own` shares with each of `related`
/// (the fewest).
fn shared<T: PartialEq>(own: &[T], related: &[Vec<T>]) -> usize {
    related
        .iter()
        .map(|r| own.iter().zip(r).take_while(|(a, b)| a == b).count())
        .min()
        .unwrap_or(own.len())
}

/// Where a finding goes whose argument (a wait list, flags) was written by frame `from`
/// and handed down: the call from that frame, unless the commands meet further in.
fn written_in(cmd: &CmdInfo, from: Option<usize>, common: usize) -> usize {
    let written = from.and_then(|o| match o {
        0 => Some(0),
        o => (cmd.via.iter()).position(|h| h.frame == o).map(|j| j + 1),
    });
    written.map_or(common, |w| w.max(common))
}

/// A finding whose command sits in a helper while the command it relates to is outside
/// that call of the helper: the cause is in the caller (what it passes, what it runs
/// before), so the finding is where the user fixes it, on the call that leads to the
/// command from the innermost function both commands run in; the helper's command becomes
/// a secondary label.
fn at_caller(fact: &Fact, f: Finding) -> Finding {
    let (cmd, common) = match fact {
        // A helper set the argument at the index its caller gave it.
        Fact::HostArg {
            call: Some((call, callee)),
            ..
        }
        | Fact::ArgMismatch {
            call: Some((call, callee)),
            ..
        }
        // A helper made the event and returned it: the caller lost it.
        | Fact::Unreleased {
            returned: Some((call, callee)),
            ..
        } => return to_call(f, *call, callee, callee),
        // The helper had the producer's event and did not wait on it (unless its caller
        // hands it the wait list: `run(.., 0, NULL, ..)`), or was given the events to wait
        // for and chose too few: the fix is in it.
        Fact::Unordered {
            waitable: true,
            consumer,
            ..
        } if !consumer.list_given => return f,
        Fact::Unordered { consumer, .. } if consumer.waits_given && !consumer.list_given => {
            return f
        }
        // A helper that picks its queue and buffers itself and waits for nothing it could be
        // given, or picks its queue and cannot be given a wait (it takes no events): the
        // missing wait is its own.
        Fact::Unordered { consumer, .. }
            if consumer.wait_from.is_none()
                && !consumer.queue_given
                && (!consumer.operands_given || consumer.takes_no_events) =>
        {
            return f
        }
        // A method that uses its own buffers on a queue it picks itself and waits for
        // nothing: the missing wait is its own (`fn collect(&self)` reading `self.x_all`).
        Fact::Unordered { consumer, .. }
            if consumer.wait_from.is_none() && consumer.buffers_own && !consumer.queue_given =>
        {
            return f
        }
        // A wait list written further in than where both commands meet and handed down to
        // the helper is where a wait is missing (`pull(.., &[], ..)`).
        Fact::Unordered {
            producer, consumer, ..
        } => {
            let common = shared(&sites(consumer), &[sites(producer)]);
            (consumer, written_in(consumer, consumer.wait_from, common))
        }
        // A helper that uploads a global buffer from global data on its own decides so:
        // the fix is in it.
        Fact::Reinit { write, .. } if !write.operands_given => return f,
        // A method that uploads its own buffer again from the data the buffer was made from
        // is wrong wherever it is called: the fix is in it.
        Fact::Reinit {
            write,
            first_queue: None,
            ..
        } if write.receiver_only => return f,
        Fact::Reinit {
            write,
            first_frames,
            ..
        } => (
            write,
            shared(&frames(write), std::slice::from_ref(first_frames)),
        ),
        // The host flag written in the helper is the helper's choice.
        Fact::HostMigration { migration, .. }
            if (migration.flags_arg.as_ref()).is_some_and(|a| a.text.contains("HOST")) =>
        {
            return f
        }
        // Flags written further in than where the migration and its next use meet, and
        // handed down (`migrate(q, &[c], MIGRATE_MEM_OBJECT_HOST, ..)`): where they are written.
        Fact::HostMigration {
            migration, next, ..
        } => {
            let common = shared(&sites(migration), &[sites(next)]);
            (migration, written_in(migration, migration.flags_from, common))
        }
        // A helper that migrates a buffer it picks itself (a method's own `self.sums`, a
        // global) on a queue it picks itself decides where it goes: the fix is in it.
        Fact::SourceQueueMigration { migration, .. }
            if !migration.queue_given && (migration.buffers_own || !migration.operands_given) =>
        {
            return f
        }
        // Where the migration is enqueued is wrong for where the buffer goes next: the fix
        // is where the migration and its next use meet, wherever the buffer was before.
        Fact::SourceQueueMigration {
            migration, next, ..
        } => (migration, shared(&sites(migration), &[sites(next)])),
        _ => return f,
    };
    let (Some(hop), Some(inner)) = (cmd.via.get(common), cmd.via.last()) else {
        return f;
    };
    if f.anchor != cmd.span {
        return f;
    }
    let mut f = to_call(f, hop.call, &hop.callee, &inner.callee);
    // The command's own wait list is in the helper: what this call can do is different.
    if let Fact::Unordered { producer, .. } = fact {
        let event = match &producer.event_var {
            Some(ev) => format!("`{ev}`"),
            None => format!("the event of {} on `{}`", what(producer), producer.queue),
        };
        f.help = Some(format!(
            "hand `{}` {event} for its wait list, or wait for it before this call",
            hop.callee
        ));
    }
    f
}

/// Moves a finding onto `call`, a call of `callee` that leads to the helper `inner` where
/// the finding's command or argument is; that one becomes a secondary label.
fn to_call(mut f: Finding, call: Span, callee: &str, inner: &str) -> Finding {
    // After the rule's own labels: the first of those stays the related command.
    f.secondary.push(Label {
        span: f.primary.span,
        message: format!("{}, in `{inner}`", f.primary.message),
    });
    // An edit inside the helper would change it for every caller, and what is wrong here
    // is what this caller passes.
    f.fix = None;
    f.primary = Label {
        span: call,
        message: format!("in this call of `{callee}`"),
    };
    f.moved_from = Some(f.anchor);
    f.anchor = call;
    f
}

impl Rule {
    fn finding(&self, message: String, anchor: Span, primary: Label) -> Finding {
        Finding {
            code: self.code,
            name: self.name,
            level: self.level,
            message,
            anchor,
            primary,
            secondary: Vec::new(),
            help: None,
            note: None,
            fix: None,
            moved_from: None,
        }
    }
}

/// "kernel `kernel0`" or "`enqueue_write_buffer`": what a command is, for messages.
fn what(c: &CmdInfo) -> String {
    match (&c.kind, &c.kernel) {
        (CommandKind::Kernel, Some(k)) => format!("kernel `{k}`"),
        _ => format!("`{}`", c.api),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(message: &str, label: &str) -> Finding {
        Finding {
            code: "CLM007",
            name: "kernel-arg-mismatch",
            level: Level::Error,
            message: message.to_string(),
            anchor: Span::default(),
            primary: Label {
                span: Span::default(),
                message: label.to_string(),
            },
            secondary: Vec::new(),
            help: None,
            note: None,
            fix: None,
            moved_from: None,
        }
    }

    #[test]
    fn a_field_of_one_temporary_is_named_by_the_field() {
        let f = without_temporaries(finding(
            "argument 3 of `%11.kernel_[0]` passes 8 bytes",
            "set on `%11.kernel_[0]`",
        ));
        assert_eq!(f.message, "argument 3 of `kernel_[0]` passes 8 bytes");
        assert_eq!(f.primary.message, "set on `kernel_[0]`");
    }

    #[test]
    fn fields_of_two_temporaries_keep_them_apart() {
        let text = "moves to the device of `%10.queue`, but is enqueued on `%8.queue`";
        let f = without_temporaries(finding(text, "here"));
        assert_eq!(f.message, text);
    }

    #[test]
    fn a_percent_sign_that_names_no_temporary_stays() {
        let text = "`frames[i % 2]` of `w%3.x`";
        let f = without_temporaries(finding(text, "here"));
        assert_eq!(f.message, text);
    }
}
