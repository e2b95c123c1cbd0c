//! What the analysis reports: [`Fact`]s about commands and buffers, recorded with instance
//! numbers while a function is interpreted and resolved to names when it is done.

use super::*;

/// A command as the rules see it.
#[derive(Clone, Debug)]
pub struct CmdInfo {
    pub id: usize,
    pub api: String,
    /// The binding of the API (`opencl3`, `ocl-core`).
    pub binding: String,
    pub kind: CommandKind,
    pub span: Span,
    /// The queue's name (`cmdq_dev0`).
    pub queue: String,
    pub queue_arg: Option<ArgSpan>,
    pub flags_arg: Option<ArgSpan>,
    pub wait_arg: Option<ArgSpan>,
    /// For launches: the kernel's name in the host code.
    pub kernel: Option<String>,
    /// The variable the command's event was bound to, if any.
    pub event_var: Option<String>,
    /// The calls, from the analyzed function inwards, that made the command: empty when
    /// the analyzed function made it.
    pub via: Vec<Hop>,
    /// Its wait list names what a parameter of the function that made it holds: the caller
    /// gave the events, and the function chose which to wait for.
    pub waits_given: bool,
    /// The frame whose code wrote its wait list, where the list came in through
    /// parameters (`pull(.., &[], ..)` of a helper that waits for its `wait`): 0 for the
    /// analyzed function, else a [`Hop::frame`].
    pub wait_from: Option<usize>,
    /// The function that made it takes no events (no parameter for them, none given): it
    /// cannot be handed a wait list.
    pub takes_no_events: bool,
    /// The frame whose code wrote a migration's flags, where they came in through
    /// parameters (`migrate(q, &[c], MIGRATE_MEM_OBJECT_HOST)`): as for `wait_from`.
    pub flags_from: Option<usize>,
    /// Its buffers or host data came in through the parameters of the function that made
    /// it: its caller chose them.
    pub operands_given: bool,
    /// They came in only through a method's `self`: the method's own fields.
    pub receiver_only: bool,
    /// Its buffers came in only through a method's `self`.
    pub buffers_own: bool,
    /// Its wait list is a parameter of the helper that made it, passed on as it came.
    pub list_given: bool,
    /// Its queue came in through a parameter of the function that made it, other than a
    /// method's `self`.
    pub queue_given: bool,
    /// A blocking call (`blocking_write` or `blocking_read` true).
    pub blocking: bool,
}

/// One call on the way from the analyzed function to a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The call statement, in the caller.
    pub call: Span,
    /// The function called (`hand_over`, `Halo::produce`).
    pub callee: String,
    /// The callee's invocation: commands of one invocation share it.
    pub frame: usize,
}

/// How an argument fails the kernel's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// The index is past the last parameter; the kernel has `count`.
    PastEnd { count: usize },
    /// A buffer for a parameter passed by value.
    BufferByValue { param: String, decl: String },
    /// A scalar for a parameter that takes a memory object.
    ScalarForPointer { param: String, decl: String },
    /// A buffer for a `__local` pointer, whose argument is a size and a null value.
    BufferForLocal { param: String, decl: String },
    /// A value of `size` bytes for a parameter taken by value of `expected` bytes.
    ScalarSize {
        param: String,
        decl: String,
        size: u64,
        expected: u64,
    },
}

/// How a command uses a buffer, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Read,
    Write,
    /// A kernel argument whose access is not known (no visible source).
    MaybeWrite,
    Migrate,
}

impl Mode {
    /// Whether the command changes where or what the buffer's contents are.
    pub fn writes(self) -> bool {
        matches!(self, Mode::Write | Mode::Migrate)
    }

    /// Whether the command changes the buffer's contents.
    pub fn writes_data(self) -> bool {
        self == Mode::Write
    }
}

/// Whether an access of a buffer and a later one must be ordered. A kernel whose access is
/// not known is taken to write what a later command reads (it makes what is read back);
/// after a read it is not taken to write: nothing says it does.
///
/// Two migrations do not: neither changes the contents, and moving a buffer that is read
/// on several devices to each of them (a broadcast) leaves every copy what was written.
pub(super) fn conflict(earlier: Mode, later: Mode) -> bool {
    if earlier == Mode::Migrate && later == Mode::Migrate {
        return false;
    }
    earlier.writes() || later.writes() || (earlier == Mode::MaybeWrite && later == Mode::Read)
}

/// What the analysis found; each rule reads the kinds it cares about.
#[derive(Clone, Debug)]
pub enum Fact {
    /// A kernel argument is host data.
    HostArg {
        set_arg: Span,
        arg: ArgSpan,
        kernel: String,
        index: u64,
        host: HostKind,
        /// The parameter's name when the kernel source is visible.
        param: Option<String>,
        /// The one buffer made from that host data.
        suggestion: Option<String>,
        /// The call of the helper that set the argument at an index it was given, and the
        /// helper's name: the caller chose the index.
        call: Option<(Span, String)>,
    },
    /// A kernel argument that cannot match the kernel's signature in its source.
    ArgMismatch {
        set_arg: Span,
        arg: ArgSpan,
        kernel: String,
        index: u64,
        problem: Mismatch,
        /// As for [`Fact::HostArg`].
        call: Option<(Span, String)>,
    },
    /// Two commands on different queues touch a buffer, one writes, nothing orders them.
    Unordered {
        producer: Box<CmdInfo>,
        producer_mode: Mode,
        consumer: Box<CmdInfo>,
        consumer_mode: Mode,
        buffer: String,
        /// Both on one out-of-order queue.
        same_queue: bool,
        /// The helper that enqueued the consumer was handed the producer's event, and left
        /// it out of the wait list itself.
        waitable: bool,
    },
    /// A migration to the host whose buffer is next used on a device.
    HostMigration {
        migration: Box<CmdInfo>,
        next: Box<CmdInfo>,
        buffer: String,
    },
    /// A buffer initialized from host data written again from the same data.
    Reinit {
        write: Box<CmdInfo>,
        first: Span,
        /// The queue of the first write, when it was a command.
        first_queue: Option<String>,
        /// The call frames of the first write, from the analyzed function inwards.
        first_frames: Vec<usize>,
        buffer: String,
        host: String,
    },
    /// A raw event that is never released on some path.
    Unreleased {
        /// Where the event is made: the command or `create_user_event` call.
        site: Span,
        /// The API that made it.
        api: String,
        /// The variable it was bound to, if any.
        event_var: Option<String>,
        /// Where the only reference to it was overwritten, if that is how it was lost.
        overwritten: Option<Span>,
        /// The early `return` it is held at, where it is released on the other paths.
        early: Option<Span>,
        /// The call that returned it to the function that lost it, and the callee.
        returned: Option<(Span, String)>,
    },
    /// A device-to-device migration enqueued where the buffer already is.
    SourceQueueMigration {
        migration: Box<CmdInfo>,
        last: Box<CmdInfo>,
        next: Box<CmdInfo>,
        buffer: String,
    },
}

impl Fact {
    /// One line for `debug trace`: the kind, the buffer or kernel, and the commands by API
    /// and queue.
    fn summary(&self) -> String {
        let cmd = |c: &CmdInfo| format!("{} #{} on {}", c.api, c.id, c.queue);
        match self {
            Fact::HostArg { kernel, index, .. } => format!("fact host-arg {kernel}[{index}]"),
            Fact::ArgMismatch {
                kernel,
                index,
                problem,
                ..
            } => format!("fact arg-mismatch {kernel}[{index}]: {problem:?}"),
            Fact::Unordered {
                producer,
                consumer,
                buffer,
                ..
            } => format!(
                "fact unordered {buffer}: {} / {}",
                cmd(producer),
                cmd(consumer)
            ),
            Fact::HostMigration {
                migration, buffer, ..
            } => {
                format!("fact host-migration {buffer}: {}", cmd(migration))
            }
            Fact::Reinit { write, buffer, .. } => format!("fact reinit {buffer}: {}", cmd(write)),
            Fact::Unreleased { api, event_var, .. } => {
                format!("fact unreleased {api} {event_var:?}")
            }
            Fact::SourceQueueMigration {
                migration, buffer, ..
            } => format!("fact source-queue {buffer}: {}", cmd(migration)),
        }
    }
}

/// A fact with instance numbers, resolved to names when the function is done.
pub(super) enum RawFact {
    /// A fact that needs no names resolved at the end.
    Ready(Box<Fact>),
    Unordered {
        producer: usize,
        pm: Mode,
        consumer: usize,
        cm: Mode,
        buffer: ObjId,
    },
    HostMigration {
        migration: usize,
        next: usize,
        buffer: ObjId,
    },
    Reinit {
        write: usize,
        first: Init,
        buffer: ObjId,
    },
    SourceQueue {
        migration: usize,
        last: usize,
        next: usize,
        buffer: ObjId,
    },
    Unreleased {
        key: RawKey,
        site: Span,
        overwritten: Option<Span>,
        early: Option<Span>,
    },
}

impl<'f> Analyzer<'f> {
    /// What a fact says of instance `i`; its event's variable is the one in scope where
    /// instance `seen_from` is enqueued (any one for `None`).
    fn info(&self, i: usize, seen_from: Option<usize>) -> Box<CmdInfo> {
        let inst = &self.insts[i];
        let c = &inst.cmd;
        let event_var = self
            .event_vars
            .range((i, 0)..=(i, usize::MAX))
            .find(|((_, frame), _)| seen_from.is_none_or(|s| self.insts[s].frame == *frame))
            .map(|(_, name)| name.clone());
        Box::new(CmdInfo {
            id: c.id,
            api: c.api.clone(),
            binding: c.binding.clone(),
            kind: c.kind,
            span: c.span,
            queue: inst.queue_name.clone(),
            queue_arg: c.queue_arg.clone(),
            flags_arg: c.flags_arg.clone(),
            wait_arg: c.wait_arg.clone(),
            kernel: inst.kernel.clone(),
            event_var,
            waits_given: inst.waits_given,
            wait_from: inst.wait_from,
            flags_from: inst.flags_from,
            takes_no_events: self.eventless_frames.contains(&inst.frame),
            operands_given: inst.operands_given,
            receiver_only: inst.receiver_only,
            buffers_own: inst.buffers_own,
            list_given: inst.list_given,
            queue_given: inst.queue_given,
            blocking: c.blocking == Blocking::Yes,
            via: self
                .frames_of(inst.frame)
                .into_iter()
                .filter_map(|f| {
                    let (_, call, callee) = self.frame_sites.get(&f)?;
                    Some(Hop {
                        call: *call,
                        callee: callee.clone(),
                        frame: f,
                    })
                })
                .collect(),
        })
    }

    /// Objects made under one name in two passes or threads (`b` of `let b = ..;
    /// bufs.push([a, b])` in a loop over devices) are shown by the list member each became
    /// (`bufs[1][1]`), so no finding names two objects alike.
    fn tell_apart(&mut self) {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for obj in &self.objs {
            *count.entry(obj.name.as_str()).or_default() += 1;
        }
        let renamed: Vec<(usize, String)> = (self.objs.iter().enumerate())
            .filter(|(_, obj)| count[obj.name.as_str()] > 1)
            .filter_map(|(o, obj)| Some((o, obj.member.clone()?)))
            .collect();
        for (o, member) in renamed {
            self.objs[o].name = member;
        }
    }

    pub(super) fn finish(mut self) -> Vec<Fact> {
        self.tell_apart();
        let mut out = Vec::new();
        for r in &self.raw {
            out.push(match r {
                RawFact::Ready(f) => (**f).clone(),
                RawFact::Unordered {
                    producer,
                    pm,
                    consumer,
                    cm,
                    buffer,
                } => {
                    let (mut p, mut c) = (
                        self.info(*producer, Some(*consumer)),
                        self.info(*consumer, None),
                    );
                    let (pq, cq) = (self.insts[*producer].queue, self.insts[*consumer].queue);
                    // Two queues are never shown by one name.
                    if pq != cq && p.queue == c.queue {
                        p.queue = self.objs[pq].name.clone();
                        c.queue = self.objs[cq].name.clone();
                        // Queues made under one name by two threads or two passes (`q` of
                        // each thread of a team).
                        match (&self.objs[pq].member, &self.objs[cq].member) {
                            (Some(x), Some(y)) if p.queue == c.queue && x != y => {
                                (p.queue, c.queue) = (x.clone(), y.clone());
                            }
                            _ if p.queue == c.queue => {
                                p.queue = format!("{} (another queue of that name)", p.queue);
                            }
                            _ => {}
                        }
                    }
                    // Whether the caller chose the consumer's queue or this buffer.
                    let ci = &self.insts[*consumer];
                    c.operands_given =
                        ci.given.contains(buffer) || self.closure_frames.contains(&ci.frame);
                    let frame = self.insts[*consumer].frame;
                    let waitable = frame != 0
                        && (self.frame_events.get(&frame)).is_some_and(|e| e.contains(producer));
                    Fact::Unordered {
                        producer: p,
                        producer_mode: *pm,
                        consumer: c,
                        consumer_mode: *cm,
                        buffer: self.objs[*buffer].name.clone(),
                        same_queue: pq == cq,
                        waitable,
                    }
                }
                RawFact::HostMigration {
                    migration,
                    next,
                    buffer,
                } => Fact::HostMigration {
                    migration: self.info(*migration, None),
                    next: self.info(*next, None),
                    buffer: self.objs[*buffer].name.clone(),
                },
                // A reset whose later pass wrote what the buffer did not hold (the
                // loop changed it in between): a reset, not a second initialization.
                RawFact::Reinit { write, buffer, .. }
                    if (self.upload_fresh).get(&(
                        self.insts[*write].cmd.id,
                        self.insts[*write].frame,
                        *buffer,
                    )) == Some(&true) =>
                {
                    continue;
                }
                RawFact::Reinit {
                    write,
                    first,
                    buffer,
                } => Fact::Reinit {
                    write: self.info(*write, None),
                    first: first.site,
                    first_queue: first.queue.clone(),
                    first_frames: first.frames.clone(),
                    buffer: self.objs[*buffer].name.clone(),
                    host: self.hosts[first.host].clone(),
                },
                RawFact::Unreleased {
                    key,
                    site,
                    overwritten,
                    early,
                } => {
                    let (api, event_var, returned) = match key {
                        RawKey::Inst(i) => {
                            let info = self.info(*i, None);
                            let returned = (self.returned_from.get(i))
                                .and_then(|f| self.frame_sites.get(f))
                                .map(|(_, call, callee)| (*call, callee.clone()));
                            (info.api, info.event_var, returned)
                        }
                        RawKey::User(o) => (
                            "create_user_event".to_string(),
                            Some(self.objs[*o].name.clone()),
                            None,
                        ),
                    };
                    Fact::Unreleased {
                        site: *site,
                        api,
                        event_var: event_var.filter(|n| !n.starts_with('%')),
                        overwritten: *overwritten,
                        early: *early,
                        returned,
                    }
                }
                RawFact::SourceQueue {
                    migration,
                    last,
                    next,
                    buffer,
                } => Fact::SourceQueueMigration {
                    migration: self.info(*migration, None),
                    last: self.info(*last, None),
                    next: self.info(*next, None),
                    buffer: self.objs[*buffer].name.clone(),
                },
            });
        }
        if trace::on() {
            for f in &out {
                trace::line(format!("  {}", f.summary()));
            }
        }
        out
    }
}
