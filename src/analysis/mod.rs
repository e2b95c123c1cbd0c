//! The analysis: an abstract interpretation of one lowered function.
//!
//! It tracks which OpenCL object each place holds, the commands enqueued so far with the
//! commands known to complete before each (happens-before), and per buffer its accesses,
//! how it was initialized, where it was last used and pending migrations. Loops run for
//! two iterations (one when nested more than four deep); at a branch join only what holds
//! on every path is kept. What the analysis cannot follow (including commands past the
//! 10,000th of one function) is forgotten, and nothing is reported through forgotten facts.
//! The result is a list of [`Fact`]s that the rules turn into findings.

mod bitset;
mod builders;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use crate::ir::*;
use crate::kernel_src::{self, AddrSpace, KernelSig, ParamAccess};
use bitset::BitSet;

type ObjId = usize;
type HostId = usize;

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

fn conflict(a: Mode, b: Mode) -> bool {
    a.writes() || b.writes() || ((a == Mode::MaybeWrite) != (b == Mode::MaybeWrite))
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
    },
    /// A kernel argument that cannot match the kernel's signature in its source.
    ArgMismatch {
        set_arg: Span,
        arg: ArgSpan,
        kernel: String,
        index: u64,
        problem: Mismatch,
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
    },
    /// A device-to-device migration enqueued where the buffer already is.
    SourceQueueMigration {
        migration: Box<CmdInfo>,
        last: Box<CmdInfo>,
        next: Box<CmdInfo>,
        buffer: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum AVal {
    Obj(ObjId),
    /// The event of any of these command instances (one per path).
    Events(BTreeSet<usize>),
    List(Vec<AVal>),
    Host {
        kind: HostKind,
        id: HostId,
    },
    Scalar,
    Int(u64),
    /// A string the lowering read: a kernel name or source.
    Str(String),
    Null,
    /// A value from outside the function (a parameter): its parts become objects when
    /// they are used in a role (a queue, a buffer).
    External,
    /// A host thread spawned here (an index into `Analyzer::threads`).
    Thread(usize),
    /// A struct value made here, by field.
    Struct(BTreeMap<String, AVal>),
    Unknown,
}

#[derive(Clone, Debug)]
enum ObjKind {
    Context,
    Device,
    Queue {
        device: Option<ObjId>,
        ooo: bool,
    },
    Buffer,
    Program {
        source: Option<String>,
    },
    Kernel {
        sig: Option<KernelSig>,
    },
    Launch {
        kernel: Option<ObjId>,
    },
    UserEvent,
    /// A command being built (ocl): `buffer.write(&v).queue(&q)`.
    CmdBuilder(Box<builders::CmdBuild>),
    /// `Buffer::builder()`.
    BufferBuilder(Box<builders::BufferBuild>),
    /// `Kernel::builder()`; `kernel` is the kernel it builds.
    KernelBuilder {
        kernel: ObjId,
        unknown_args: bool,
    },
    /// `ProQue::builder()`, `Program::builder()` (`program`).
    ProQueBuilder {
        source: Option<String>,
        program: bool,
    },
    /// A queue and a program (ocl `ProQue`).
    ProQue {
        queue: ObjId,
        source: Option<String>,
    },
}

#[derive(Clone, Debug)]
struct Obj {
    kind: ObjKind,
    name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleHint {
    Queue,
    Buffer,
    Kernel,
    Event,
}

#[derive(Clone, Debug, PartialEq)]
enum Arg {
    Buffer(ObjId),
    Other,
    Unknown,
}

#[derive(Clone, Debug, PartialEq)]
struct KernelArgs {
    /// Every argument is known (the kernel was created here).
    known: bool,
    args: Vec<(u64, Arg)>,
}

#[derive(Clone, Debug, PartialEq)]
struct LaunchState {
    args: Vec<Arg>,
    /// `None` when a wait list is not known.
    waits: Option<BTreeSet<usize>>,
}

#[derive(Clone, Debug, PartialEq)]
struct Init {
    host: HostId,
    version: u32,
    site: Span,
    queue: Option<String>,
    /// The uploads that put this data there (one, then its repetitions); none for a buffer
    /// created from the data.
    uploads: Vec<usize>,
    /// The call frames that made it, from the analyzed function inwards.
    frames: Vec<usize>,
}

/// One path's knowledge.
#[derive(Clone, Debug, Default)]
struct State {
    /// Ordered, so that the parts of a place (`x.f`, `x[1]`) follow it: removing them
    /// does not walk every binding.
    env: BTreeMap<Place, AVal>,
    /// Instances that exist on this path.
    trace: BitSet,
    /// Instances known complete on the host.
    completed: BitSet,
    /// Per queue: what the next command on it is ordered after.
    tail: HashMap<ObjId, BitSet>,
    /// Per queue: every instance enqueued on it.
    on_queue: HashMap<ObjId, BitSet>,
    kernel_args: HashMap<ObjId, KernelArgs>,
    launches: HashMap<ObjId, LaunchState>,
    accesses: HashMap<ObjId, Vec<(usize, Mode)>>,
    init: HashMap<ObjId, Init>,
    host_version: HashMap<HostId, u32>,
    /// Buffers made from, or written with, each host data.
    host_buffers: HashMap<HostId, BTreeSet<ObjId>>,
    pending_host: HashMap<ObjId, Vec<usize>>,
    pending_src: HashMap<ObjId, Vec<(usize, usize)>>,
    residency: HashMap<ObjId, usize>,
    /// Objects handed to code the analysis does not see.
    escaped: BTreeSet<ObjId>,
    /// Raw events made and not yet released or handed on.
    live_raw: BTreeSet<RawKey>,
    /// Buffers mapped for writing and not yet unmapped: the unmap writes them.
    mapped_for_write: BTreeSet<ObjId>,
}

/// A raw event: a command's, or a user event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RawKey {
    Inst(usize),
    User(ObjId),
}

/// How a command uses one buffer.
#[derive(Clone, Copy, Debug, Default)]
struct UseInfo {
    to_host: bool,
    /// The whole buffer from offset 0.
    whole: bool,
    /// Host data uploaded or filled.
    host: Option<HostId>,
}

/// A command with its values resolved to objects.
#[derive(Debug, Default)]
struct Resolved {
    queue: Option<ObjId>,
    uses: Vec<(ObjId, Mode, UseInfo)>,
    /// `None` when the wait list is not known.
    waits: Option<BTreeSet<usize>>,
    kernel_name: Option<String>,
    unknown_buffers: bool,
}

fn refers_to(v: &AVal, i: usize) -> bool {
    match v {
        AVal::Events(s) => s.contains(&i),
        AVal::List(items) => items.iter().any(|x| refers_to(x, i)),
        _ => false,
    }
}

fn join_map<K: Clone + Eq + std::hash::Hash, V: Clone + PartialEq>(
    a: &HashMap<K, V>,
    b: &HashMap<K, V>,
) -> HashMap<K, V> {
    a.iter()
        .filter(|(k, v)| b.get(*k) == Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn union_vec_map<K: Clone + Eq + std::hash::Hash, T: Clone + PartialEq>(
    a: &HashMap<K, Vec<T>>,
    b: &HashMap<K, Vec<T>>,
) -> HashMap<K, Vec<T>> {
    let mut r = a.clone();
    for (k, v) in b {
        let e = r.entry(k.clone()).or_default();
        for x in v {
            if !e.contains(x) {
                e.push(x.clone());
            }
        }
    }
    r
}

fn join_val(a: &AVal, b: &AVal) -> AVal {
    match (a, b) {
        _ if a == b => a.clone(),
        (AVal::Events(x), AVal::Events(y)) => AVal::Events(x.union(y).copied().collect()),
        _ => AVal::Unknown,
    }
}

impl State {
    fn join(&self, o: &State) -> State {
        let mut env = BTreeMap::new();
        for (k, v) in &self.env {
            if let Some(w) = o.env.get(k) {
                env.insert(k.clone(), join_val(v, w));
            }
        }
        let mut trace = self.trace.clone();
        trace.union_with(&o.trace);
        let completed = BitSet::join(&self.completed, &self.trace, &o.completed, &o.trace);
        let mut tail = HashMap::new();
        for q in self.tail.keys().chain(o.tail.keys()) {
            let e = BitSet::default();
            let a = self.tail.get(q).unwrap_or(&e);
            let b = o.tail.get(q).unwrap_or(&e);
            tail.insert(*q, BitSet::join(a, &self.trace, b, &o.trace));
        }
        let mut on_queue = self.on_queue.clone();
        for (q, s) in &o.on_queue {
            on_queue.entry(*q).or_default().union_with(s);
        }
        let mut kernel_args = HashMap::new();
        for (k, a) in &self.kernel_args {
            let joined = match o.kernel_args.get(k) {
                Some(b) if b == a => a.clone(),
                _ => KernelArgs {
                    known: false,
                    args: Vec::new(),
                },
            };
            kernel_args.insert(*k, joined);
        }
        let mut host_version = self.host_version.clone();
        for (h, v) in &o.host_version {
            let e = host_version.entry(*h).or_insert(*v);
            if *e != *v {
                *e = (*e).max(*v) + 1;
            }
        }
        let mut host_buffers = self.host_buffers.clone();
        for (h, s) in &o.host_buffers {
            host_buffers.entry(*h).or_default().extend(s);
        }
        let mut accesses = union_vec_map(&self.accesses, &o.accesses);
        for v in accesses.values_mut() {
            v.sort_unstable_by_key(|(i, _)| *i);
        }
        State {
            env,
            trace,
            completed,
            tail,
            on_queue,
            kernel_args,
            launches: join_map(&self.launches, &o.launches),
            accesses,
            init: join_map(&self.init, &o.init),
            host_version,
            host_buffers,
            pending_host: union_vec_map(&self.pending_host, &o.pending_host),
            pending_src: union_vec_map(&self.pending_src, &o.pending_src),
            residency: join_map(&self.residency, &o.residency),
            escaped: self.escaped.union(&o.escaped).copied().collect(),
            live_raw: self.live_raw.union(&o.live_raw).copied().collect(),
            mapped_for_write: self
                .mapped_for_write
                .intersection(&o.mapped_for_write)
                .copied()
                .collect(),
        }
    }
}

fn join_all(states: Vec<State>) -> Option<State> {
    let mut it = states.into_iter();
    let first = it.next()?;
    Some(it.fold(first, |acc, s| acc.join(&s)))
}

/// What a launch touches: `uses` is `None` when some argument is not known; `waits` is
/// `None` when its wait list is not known.
struct LaunchInfo {
    uses: Option<Vec<(ObjId, Mode)>>,
    waits: Option<BTreeSet<usize>>,
    kernel: Option<String>,
    /// Some arguments were set where the analysis does not see.
    partial: bool,
}

struct Inst {
    cmd: Command,
    queue: ObjId,
    /// The queue as the code names it where the command is made (`queues[1]`).
    queue_name: String,
    before: BitSet,
    kernel: Option<String>,
    /// The call frame that enqueued it.
    frame: usize,
}

/// A callee interpreted at its call site.
struct InlineCx {
    callee: String,
    /// Its frame: a number no other call shares (the analyzed function is frame 0).
    frame: usize,
    /// The state and value at each of its returns.
    returns: Vec<(State, AVal)>,
}

/// How deep calls are followed.
const MAX_CALL_DEPTH: usize = 4;

/// Statements of callees interpreted for one analyzed function, all calls together: past
/// this, calls forget. Following every call of a crate to depth `MAX_CALL_DEPTH` would be
/// exponential in it.
const MAX_INLINED_STMTS: usize = 4_000;

/// Statements in a body, nested ones included.
fn stmt_count(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match s {
            Stmt::Branch(arms) => 1 + arms.iter().map(|a| stmt_count(a)).sum::<usize>(),
            Stmt::Loop(b) | Stmt::ForEach { body: b, .. } | Stmt::Spawn { body: b, .. } => {
                1 + stmt_count(b)
            }
            _ => 1,
        })
        .sum()
}

/// A callee's statements with its variables moved past the caller's.
fn shift_block(body: &[Stmt], by: usize) -> Vec<Stmt> {
    body.iter().map(|s| shift_stmt(s, by)).collect()
}

fn shift_place(p: &Place, by: usize) -> Place {
    Place {
        var: p.var + by,
        proj: p
            .proj
            .iter()
            .map(|x| match x {
                Proj::Var(v) => Proj::Var(v + by),
                other => other.clone(),
            })
            .collect(),
    }
}

fn shift_value(v: &Value, by: usize) -> Value {
    match v {
        Value::Place(p) => Value::Place(shift_place(p, by)),
        Value::Host { kind, base } => Value::Host {
            kind: *kind,
            base: base.as_ref().map(|p| shift_place(p, by)),
        },
        Value::List(items) => Value::List(items.iter().map(|i| shift_value(i, by)).collect()),
        Value::Struct(fields) => Value::Struct(
            fields
                .iter()
                .map(|(n, x)| (n.clone(), shift_value(x, by)))
                .collect(),
        ),
        Value::New(o) => Value::New(match o {
            NewObject::Queue {
                device,
                out_of_order,
            } => NewObject::Queue {
                device: device.as_ref().map(|d| Box::new(shift_value(d, by))),
                out_of_order: *out_of_order,
            },
            NewObject::Buffer { host_init } => NewObject::Buffer {
                host_init: host_init.as_ref().map(|h| Box::new(shift_value(h, by))),
            },
            NewObject::Kernel { program, name } => NewObject::Kernel {
                program: Box::new(shift_value(program, by)),
                name: name.clone(),
            },
            NewObject::Launch { kernel } => NewObject::Launch {
                kernel: Box::new(shift_value(kernel, by)),
            },
            other => other.clone(),
        }),
        other => other.clone(),
    }
}

fn shift_stmt(s: &Stmt, by: usize) -> Stmt {
    let v = |x: &Value| shift_value(x, by);
    let pl = |x: &Place| shift_place(x, by);
    match s {
        Stmt::Assign { dst, value, span } => Stmt::Assign {
            dst: pl(dst),
            value: v(value),
            span: *span,
        },
        Stmt::Enqueue { cmd, event } => {
            let mut c = cmd.clone();
            c.queue = v(&c.queue);
            c.kernel = c.kernel.as_ref().map(v);
            c.waits = c.waits.as_ref().map(|w| w.iter().map(v).collect());
            for b in &mut c.buffers {
                b.buffer = v(&b.buffer);
                b.host = b.host.as_ref().map(v);
            }
            Stmt::Enqueue {
                cmd: c,
                event: event.as_ref().map(pl),
            }
        }
        Stmt::SetArg {
            kernel,
            index,
            name,
            value,
            arg,
            span,
        } => Stmt::SetArg {
            kernel: v(kernel),
            index: *index,
            name: name.clone(),
            value: v(value),
            arg: arg.clone(),
            span: *span,
        },
        Stmt::LaunchArg {
            launch,
            value,
            arg,
            span,
        } => Stmt::LaunchArg {
            launch: v(launch),
            value: v(value),
            arg: arg.clone(),
            span: *span,
        },
        Stmt::LaunchWait { launch, events } => Stmt::LaunchWait {
            launch: v(launch),
            events: v(events),
        },
        Stmt::Push { list, item } => Stmt::Push {
            list: pl(list),
            item: v(item),
        },
        Stmt::Finish { queue, span } => Stmt::Finish {
            queue: v(queue),
            span: *span,
        },
        Stmt::Wait { events, span } => Stmt::Wait {
            events: v(events),
            span: *span,
        },
        Stmt::Release { events, span } => Stmt::Release {
            events: v(events),
            span: *span,
        },
        Stmt::Op {
            op,
            recv,
            args,
            arg_spans,
            dst,
            id,
            span,
        } => Stmt::Op {
            op: *op,
            recv: v(recv),
            args: args.iter().map(v).collect(),
            arg_spans: arg_spans.clone(),
            dst: pl(dst),
            id: *id,
            span: *span,
        },
        Stmt::Forget { values, span } => Stmt::Forget {
            values: values.iter().map(v).collect(),
            span: *span,
        },
        Stmt::Branch(arms) => Stmt::Branch(arms.iter().map(|a| shift_block(a, by)).collect()),
        Stmt::Loop(body) => Stmt::Loop(shift_block(body, by)),
        Stmt::ForEach {
            sources,
            binds,
            body,
            tail,
            dst,
        } => Stmt::ForEach {
            sources: sources
                .iter()
                .map(|s| match s {
                    EachSource::Members(x) => EachSource::Members(v(x)),
                    EachSource::Upto(x) => EachSource::Upto(v(x)),
                    EachSource::UptoLen(x) => EachSource::UptoLen(v(x)),
                })
                .collect(),
            binds: binds.iter().map(|(p, part)| (pl(p), *part)).collect(),
            body: shift_block(body, by),
            tail: v(tail),
            dst: dst.as_ref().map(pl),
        },
        Stmt::Spawn {
            body,
            value,
            handle,
            span,
        } => Stmt::Spawn {
            body: shift_block(body, by),
            value: v(value),
            handle: pl(handle),
            span: *span,
        },
        Stmt::Join { handle, dst } => Stmt::Join {
            handle: v(handle),
            dst: pl(dst),
        },
        Stmt::Call {
            callee,
            recv,
            args,
            dst,
            span,
        } => Stmt::Call {
            callee: callee.clone(),
            recv: recv.as_ref().map(v),
            args: args.iter().map(v).collect(),
            dst: pl(dst),
            span: *span,
        },
        Stmt::Break => Stmt::Break,
        Stmt::Continue => Stmt::Continue,
        Stmt::Return { value } => Stmt::Return { value: v(value) },
    }
}

/// Loops nested up to this depth run for two iterations; deeper ones for one, so the work
/// stays linear in the size of the function (at most `2^TWO_ITERATION_DEPTH` times).
const TWO_ITERATION_DEPTH: usize = 4;

/// A loop over a known list runs once per member when the list has at most this many.
const MAX_UNROLL: usize = 16;

/// Statements interpreted in loops run once per member, all loops of a function together:
/// past this, loops run as loops over "some member" (nested unrolling would multiply).
const MAX_UNROLLED_STMTS: usize = 20_000;

/// Loops run once per member nest at most this deep: a deeper one runs as a loop over "some
/// member", so nested unrolling cannot multiply past `MAX_UNROLL^MAX_UNROLL_DEPTH` times.
const MAX_UNROLL_DEPTH: usize = 2;

/// Commands tracked per function (each iteration of a loop counts): happens-before is
/// quadratic in them. Past this the analysis forgets what later commands touch.
const MAX_COMMANDS: usize = 10_000;

#[derive(Default)]
struct LoopCx {
    breaks: Vec<State>,
    continues: Vec<State>,
}

/// Kernel signatures: those of each program source, parsed once for all the functions of
/// a file, and those of the OpenCL C files beside the file's package, for programs whose
/// source the analysis does not see.
#[derive(Debug, Default)]
pub struct Kernels {
    parsed: HashMap<String, Vec<KernelSig>>,
    beside: Arc<KernelFiles>,
}

/// The kernels of a package's `.cl` files, by name; `None` for a name that two kernels
/// with different signatures have.
#[derive(Debug, Default)]
pub struct KernelFiles(HashMap<String, Option<KernelSig>>);

impl KernelFiles {
    /// The kernels of these OpenCL C sources.
    pub fn new<'s>(sources: impl IntoIterator<Item = &'s str>) -> KernelFiles {
        let mut by_name: HashMap<String, Option<KernelSig>> = HashMap::new();
        for src in sources {
            for sig in kernel_src::parse_kernels(src) {
                match by_name.get_mut(&sig.name) {
                    Some(e) if e.as_ref() != Some(&sig) => *e = None,
                    Some(_) => {}
                    None => {
                        by_name.insert(sig.name.clone(), Some(sig));
                    }
                }
            }
        }
        KernelFiles(by_name)
    }
}

impl Kernels {
    pub fn new(beside: Arc<KernelFiles>) -> Kernels {
        Kernels {
            parsed: HashMap::new(),
            beside,
        }
    }

    /// The signature of kernel `name`: from `source` when the program's source is known,
    /// else from the `.cl` files beside the package when exactly one signature has it.
    pub(crate) fn sig(&mut self, source: Option<&str>, name: &str) -> Option<KernelSig> {
        let Some(source) = source else {
            return self.beside.0.get(name).cloned().flatten();
        };
        if !self.parsed.contains_key(source) {
            let sigs = kernel_src::parse_kernels(source);
            self.parsed.insert(source.to_string(), sigs);
        }
        self.parsed[source].iter().find(|s| s.name == name).cloned()
    }
}

/// The functions of a crate, by qualified name, for calls.
#[derive(Debug, Default)]
pub struct Index<'f> {
    /// `None` for a name two functions have (as under different `#[cfg]`s): which one
    /// runs is not known.
    exact: HashMap<&'f str, Option<Callee<'f>>>,
    /// Methods (`Type::method`) by their last two segments: an `impl` can be in a module
    /// other than its type's, and a call names the type as it was imported.
    methods: HashMap<(&'f str, &'f str), Option<Callee<'f>>>,
}

/// A function of the index, with the size of its body.
#[derive(Clone, Copy, Debug)]
pub struct Callee<'f> {
    pub function: &'f Function,
    /// Its statements, nested ones included: what following a call of it costs.
    pub stmts: usize,
}

fn insert_unique<'f, K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, Option<Callee<'f>>>,
    key: K,
    c: Callee<'f>,
) {
    map.entry(key).and_modify(|e| *e = None).or_insert(Some(c));
}

/// The last two segments of a method's name (`Type`, `method`); `None` for a function.
pub fn method_key(name: &str) -> Option<(&str, &str)> {
    let (head, method) = name.rsplit_once("::")?;
    let ty = head.rsplit("::").next()?;
    ty.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some((ty, method))
}

impl<'f> Index<'f> {
    pub fn new<I: IntoIterator<Item = &'f Function>>(functions: I) -> Index<'f> {
        let mut index = Index::default();
        for f in functions {
            let c = Callee {
                function: f,
                stmts: stmt_count(&f.body),
            };
            insert_unique(&mut index.exact, f.name.as_str(), c);
            if let Some(key) = method_key(&f.name) {
                insert_unique(&mut index.methods, key, c);
            }
        }
        index
    }

    /// The one function a call of `name` runs, when it is known.
    pub fn get(&self, name: &str) -> Option<Callee<'f>> {
        match self.exact.get(name) {
            Some(f) => *f,
            None => method_key(name).and_then(|k| self.methods.get(&k).copied().flatten()),
        }
    }
}

struct Analyzer<'f> {
    /// The variables of the function and of every callee interpreted at a call site.
    vars: Vec<VarInfo>,
    /// Functions of the crate, for calls.
    index: &'f Index<'f>,
    /// Callees being interpreted, innermost last, with where their returns go.
    inlined: Vec<InlineCx>,
    /// Callee parameter variables standing for places of their callers.
    ext_alias: HashMap<Var, Place>,
    objs: Vec<Obj>,
    hosts: Vec<String>,
    insts: Vec<Inst>,
    loops: Vec<LoopCx>,
    default_device: Option<ObjId>,
    /// Variables an instance's event was bound to, by instance and the frame of the
    /// variable: a name is only worth showing where it is in scope.
    event_vars: BTreeMap<(usize, usize), String>,
    /// Frames entered so far.
    frames: usize,
    /// Statements of the callees followed so far.
    inlined_stmts: usize,
    raw: Vec<RawFact>,
    seen: HashSet<(u8, usize, usize)>,
    kernels: &'f mut Kernels,
    /// The span of the statement being interpreted.
    cur_span: Span,
    /// Where each user event was made.
    user_sites: HashMap<ObjId, Span>,
    /// States at each `return`.
    returns: Vec<State>,
    /// Per kernel: its default queue (ocl).
    default_queue: HashMap<ObjId, ObjId>,
    /// Per kernel: the names of its arguments, by index (ocl named arguments).
    arg_names: HashMap<ObjId, Vec<(String, u64)>>,
    /// Per kernel made by a builder: its program's source, when visible.
    program_sources: HashMap<ObjId, Option<String>>,
    /// Host threads spawned: what they completed on the host when they end, and the
    /// value they return.
    threads: Vec<(BitSet, AVal)>,
    /// Statements interpreted in unrolled loops so far.
    unrolled: usize,
    /// Unrolled loops around the statement being interpreted.
    unroll_depth: usize,
    /// Per object: the member or field place the code last named it by (`queues[1]`).
    shown: HashMap<ObjId, String>,
    /// Parameters of the callees interpreted at call sites: a name only the callee knows.
    callee_params: HashSet<Var>,
    /// The analyzed function's parameters: what is stored into them is the caller's.
    params: HashSet<Var>,
    /// Per call frame: its caller's frame, the call and the callee.
    frame_sites: HashMap<usize, (usize, Span, String)>,
}

/// A fact with instance numbers, resolved to names when the function is done.
enum RawFact {
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
    },
}

/// Analyzes one function. Calls of functions in `index` (the crate) are followed: the
/// callee is interpreted at the call site with its parameters bound to the arguments.
/// Kernel sources are parsed once per file, in `kernels`.
pub fn analyze<'f>(func: &Function, index: &'f Index<'f>, kernels: &mut Kernels) -> Vec<Fact> {
    let mut a = Analyzer {
        vars: func.vars.clone(),
        index,
        inlined: Vec::new(),
        ext_alias: HashMap::new(),
        objs: Vec::new(),
        hosts: Vec::new(),
        insts: Vec::new(),
        loops: Vec::new(),
        default_device: None,
        event_vars: BTreeMap::new(),
        frames: 0,
        inlined_stmts: 0,
        raw: Vec::new(),
        seen: HashSet::new(),
        kernels,
        cur_span: Span::default(),
        user_sites: HashMap::new(),
        returns: Vec::new(),
        default_queue: HashMap::new(),
        arg_names: HashMap::new(),
        program_sources: HashMap::new(),
        threads: Vec::new(),
        unrolled: 0,
        unroll_depth: 0,
        shown: HashMap::new(),
        callee_params: HashSet::new(),
        params: func.params.iter().copied().collect(),
        frame_sites: HashMap::new(),
    };
    let mut st = State::default();
    for &p in &func.params {
        let info = &func.vars[p];
        let v = a.hinted(info.hint, &info.name);
        st.env.insert(Place::var(p), v);
    }
    let end = a.block(&func.body, st);
    // Raw events still held where the function ends, on any path, leak.
    let finals: Vec<State> = end
        .into_iter()
        .chain(std::mem::take(&mut a.returns))
        .collect();
    for st in finals {
        for key in st.live_raw {
            a.leak(key, None);
        }
    }
    a.finish()
}

impl<'f> Analyzer<'f> {
    fn new_obj(&mut self, kind: ObjKind, name: String) -> ObjId {
        self.objs.push(Obj { kind, name });
        self.objs.len() - 1
    }

    /// The device of queues made without one: a context's default device.
    fn default_device_obj(&mut self) -> ObjId {
        match self.default_device {
            Some(d) => d,
            None => {
                let d = self.new_obj(ObjKind::Device, "default device".into());
                self.default_device = Some(d);
                d
            }
        }
    }

    fn new_host(&mut self, name: String) -> HostId {
        self.hosts.push(name);
        self.hosts.len() - 1
    }

    fn hinted(&mut self, hint: TypeHint, name: &str) -> AVal {
        let n = name.to_string();
        match hint {
            TypeHint::Queue => AVal::Obj(self.new_obj(
                ObjKind::Queue {
                    device: None,
                    ooo: false,
                },
                n,
            )),
            TypeHint::Buffer => AVal::Obj(self.new_obj(ObjKind::Buffer, n)),
            TypeHint::Kernel => AVal::Obj(self.new_obj(ObjKind::Kernel { sig: None }, n)),
            TypeHint::Context => AVal::Obj(self.new_obj(ObjKind::Context, n)),
            TypeHint::Device => AVal::Obj(self.new_obj(ObjKind::Device, n)),
            TypeHint::Program => AVal::Obj(self.new_obj(ObjKind::Program { source: None }, n)),
            TypeHint::Event => AVal::Events(BTreeSet::new()),
            TypeHint::EventList => AVal::List(Vec::new()),
            TypeHint::Host(kind) => AVal::Host {
                kind,
                id: self.new_host(n),
            },
            TypeHint::Scalar => AVal::Scalar,
            TypeHint::Unknown => AVal::External,
        }
    }

    fn materialize(&mut self, role: RoleHint, name: String) -> AVal {
        match role {
            RoleHint::Queue => AVal::Obj(self.new_obj(
                ObjKind::Queue {
                    device: None,
                    ooo: false,
                },
                name,
            )),
            RoleHint::Buffer => AVal::Obj(self.new_obj(ObjKind::Buffer, name)),
            RoleHint::Kernel => AVal::Obj(self.new_obj(ObjKind::Kernel { sig: None }, name)),
            RoleHint::Event => AVal::Events(BTreeSet::new()),
        }
    }

    /// The value of a place; parts of outside values become objects of the role they play.
    /// A place as the user wrote it: `queues[1]`, `self.halo`.
    fn place_name(&self, place: &Place) -> String {
        place_name(&self.vars, place)
    }

    /// A place with each index by a local replaced by the constant the local holds, or by
    /// "some member".
    fn concrete(&self, st: &State, p: &Place) -> Place {
        if !p.proj.iter().any(|x| matches!(x, Proj::Var(_))) {
            return p.clone();
        }
        let proj = p
            .proj
            .iter()
            .map(|x| match x {
                Proj::Var(v) => match st.env.get(&self.canonical(&Place::var(*v))) {
                    Some(AVal::Int(n)) => Proj::Index(*n),
                    _ => Proj::AnyIndex,
                },
                other => other.clone(),
            })
            .collect();
        Place { var: p.var, proj }
    }

    /// The place a callee's parameter stands for in its caller, so that an outside value
    /// keeps one identity however many calls pass it on.
    fn canonical(&self, p: &Place) -> Place {
        let mut p = p.clone();
        while let Some(q) = self.ext_alias.get(&p.var) {
            p = Place {
                var: q.var,
                proj: q.proj.iter().chain(&p.proj).cloned().collect(),
            };
        }
        p
    }

    /// The value of a place; parts of outside values become objects of the role they play,
    /// or of the type their struct field declares.
    fn resolve(&mut self, st: &mut State, p: &Place, role: Option<RoleHint>) -> AVal {
        let p = &self.concrete(st, p);
        let v = self.resolve_place(st, p, role);
        // A member or field of the function's own variables names the object as the code
        // does where it is used (`queueball_th[1]`); a callee's parameter would not.
        if let AVal::Obj(o) = v {
            if !p.proj.is_empty()
                && p.is_definite()
                && !self.callee_params.contains(&p.var)
                && !self.vars[p.var].name.starts_with('%')
            {
                let name = self.place_name(p);
                self.shown.insert(o, name);
            }
        }
        v
    }

    fn resolve_place(&mut self, st: &mut State, p: &Place, role: Option<RoleHint>) -> AVal {
        let p = &self.canonical(p);
        if let Some(v) = st.env.get(p) {
            if *v == AVal::External {
                if let Some(r) = role.filter(|_| p.is_definite()) {
                    let v = self.materialize(r, self.place_name(p));
                    st.env.insert(p.clone(), v.clone());
                    return v;
                }
            }
            return v.clone();
        }
        if p.proj.is_empty() {
            return AVal::Unknown;
        }
        // A part of an outside value is itself outside.
        let mut root = p.clone();
        while !root.proj.is_empty() {
            root.proj.pop();
            let Some(v) = st.env.get(&root) else {
                continue;
            };
            // A constant index into a list, a field of a struct made here: that part.
            if matches!(v, AVal::List(_) | AVal::Struct(_)) {
                return project(v, &p.proj[root.proj.len()..]);
            }
            if *v != AVal::External || !p.is_definite() {
                return AVal::Unknown;
            }
            let field_hint = match (root.proj.is_empty(), p.proj.first()) {
                (true, Some(Proj::Field(f))) if p.proj.len() == 1 => self.vars[p.var]
                    .fields
                    .iter()
                    .find(|(n, _)| n == f)
                    .map(|(_, h)| *h),
                _ => None,
            };
            let name = self.place_name(p);
            let v = match (role, field_hint) {
                (Some(r), _) => self.materialize(r, name),
                (None, Some(h)) => self.hinted(h, &name),
                (None, None) => AVal::External,
            };
            st.env.insert(p.clone(), v.clone());
            return v;
        }
        AVal::Unknown
    }

    fn eval(&mut self, st: &mut State, v: &Value, role: Option<RoleHint>, name: &str) -> AVal {
        match v {
            Value::Place(p) => self.resolve(st, p, role),
            Value::Host { kind, base: None } => AVal::Host {
                kind: *kind,
                id: self.new_host(name.to_string()),
            },
            Value::Host {
                kind,
                base: Some(p),
            } => match self.resolve(st, p, None) {
                AVal::Host { id, .. } => AVal::Host { kind: *kind, id },
                AVal::Obj(_) | AVal::Events(_) => AVal::Unknown,
                // `&events[..]` (ocl-core's wait lists are slices): the list's events. A
                // sub-slice is taken as the whole list: more waits, never a false finding.
                AVal::List(items) if self.all_events(&items) => AVal::List(items),
                // `&mems[..]`, `mems.as_ptr()` of a list of buffers: those buffers.
                AVal::List(items)
                    if !items.is_empty()
                        && items.iter().all(|i| {
                            matches!(i, AVal::Obj(o) if matches!(self.objs[*o].kind, ObjKind::Buffer))
                        }) =>
                {
                    AVal::List(items)
                }
                _ if *kind == HostKind::Slice => AVal::Host {
                    kind: *kind,
                    id: self.new_host(self.place_name(p)),
                },
                _ => AVal::Unknown,
            },
            Value::Scalar => AVal::Scalar,
            Value::Int(n) => AVal::Int(*n),
            Value::Null => AVal::Null,
            Value::Struct(fields) => AVal::Struct(
                fields
                    .iter()
                    .map(|(f, x)| {
                        // A struct made to be returned is named by its fields.
                        let part = match name.starts_with('%') {
                            true => f.clone(),
                            false => format!("{name}.{f}"),
                        };
                        let v = self.eval(st, x, None, &part);
                        (f.clone(), v)
                    })
                    .collect(),
            ),
            Value::List(items) => AVal::List(
                items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| self.eval(st, i, role, &format!("{name}[{k}]")))
                    .collect(),
            ),
            Value::New(obj) => self.create(st, obj, name),
            Value::Str(t) => AVal::Str(t.clone()),
            Value::Unknown => AVal::Unknown,
        }
    }

    /// A non-empty list of command events and user events.
    fn all_events(&self, items: &[AVal]) -> bool {
        !items.is_empty()
            && items.iter().all(|i| match i {
                AVal::Events(_) => true,
                AVal::Obj(o) => matches!(self.objs[*o].kind, ObjKind::UserEvent),
                _ => false,
            })
    }

    fn create(&mut self, st: &mut State, obj: &NewObject, name: &str) -> AVal {
        let n = name.to_string();
        let id = match obj {
            NewObject::Context => self.new_obj(ObjKind::Context, n),
            NewObject::Queue {
                device,
                out_of_order,
            } => {
                let device = match device {
                    Some(d) => match self.eval(st, d, None, "device") {
                        AVal::Obj(o) => Some(o),
                        AVal::External => match &**d {
                            Value::Place(p) if p.is_definite() => {
                                let o = self.new_obj(ObjKind::Device, self.place_name(p));
                                st.env.insert(p.clone(), AVal::Obj(o));
                                Some(o)
                            }
                            _ => None,
                        },
                        _ => None,
                    },
                    None => Some(self.default_device_obj()),
                };
                self.new_obj(
                    ObjKind::Queue {
                        device,
                        ooo: *out_of_order,
                    },
                    n,
                )
            }
            NewObject::Buffer { host_init } => {
                let b = self.new_obj(ObjKind::Buffer, n);
                if let Some(h) = host_init {
                    if let AVal::Host { id, .. } = self.eval(st, h, None, "host") {
                        let version = st.host_version.get(&id).copied().unwrap_or(0);
                        st.init.insert(
                            b,
                            Init {
                                host: id,
                                version,
                                site: self.cur_span,
                                queue: None,
                                uploads: Vec::new(),
                                frames: self.frames_of(self.frame()),
                            },
                        );
                        st.host_buffers.entry(id).or_default().insert(b);
                    }
                }
                b
            }
            NewObject::Program { source } => self.new_obj(
                ObjKind::Program {
                    source: source.clone(),
                },
                n,
            ),
            NewObject::Kernel {
                program,
                name: kname,
            } => {
                let sig = match (self.eval(st, program, None, "program"), kname) {
                    (AVal::Obj(p), Some(k)) => match &self.objs[p].kind {
                        ObjKind::Program { source } => {
                            let source = source.clone();
                            self.kernels.sig(source.as_deref(), k)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let k = self.new_obj(ObjKind::Kernel { sig }, n);
                st.kernel_args.insert(
                    k,
                    KernelArgs {
                        known: true,
                        args: Vec::new(),
                    },
                );
                k
            }
            NewObject::Launch { kernel } => {
                // Every argument of a launch is set through it, so even a kernel the
                // analysis cannot follow has known arguments here.
                let k = match self.eval(st, kernel, Some(RoleHint::Kernel), "kernel") {
                    AVal::Obj(k) => k,
                    _ => {
                        let name = match &**kernel {
                            Value::Place(p) => self.place_name(p),
                            _ => "kernel".into(),
                        };
                        self.new_obj(ObjKind::Kernel { sig: None }, name)
                    }
                };
                let k = Some(k);
                let l = self.new_obj(ObjKind::Launch { kernel: k }, n);
                st.launches.insert(
                    l,
                    LaunchState {
                        args: Vec::new(),
                        waits: Some(BTreeSet::new()),
                    },
                );
                l
            }
            NewObject::UserEvent { raw } => {
                let o = self.new_obj(ObjKind::UserEvent, n);
                if *raw {
                    st.live_raw.insert(RawKey::User(o));
                    self.user_sites.insert(o, self.cur_span);
                }
                o
            }
            NewObject::EmptyEvent => return AVal::Events(BTreeSet::new()),
        };
        AVal::Obj(id)
    }

    fn block(&mut self, body: &[Stmt], mut st: State) -> Option<State> {
        for s in body {
            st = self.stmt(s, st)?;
        }
        Some(st)
    }

    fn stmt(&mut self, s: &Stmt, mut st: State) -> Option<State> {
        match s {
            Stmt::Assign { dst, value, span } => {
                self.cur_span = *span;
                // A callee's store through its parameter (`s->q0 = ..` of `setup(&s)`)
                // is a store into the caller's place; a store into the parameter itself
                // rebinds it alone.
                if dst.proj.is_empty() {
                    self.ext_alias.remove(&dst.var);
                }
                let dst = &self.canonical(&self.concrete(&st, dst));
                let name = self.place_name(dst);
                let mut v = self.eval(&mut st, value, None, &name);
                let hint = self.vars[dst.var].hint;
                if dst.proj.is_empty()
                    && matches!(v, AVal::Unknown | AVal::External)
                    && hint != TypeHint::Unknown
                {
                    // The annotation says what an unknown value is.
                    v = self.hinted(hint, &name);
                }
                if let AVal::Obj(o) = v {
                    if self.objs[o].name.starts_with('%') && !name.starts_with('%') {
                        self.objs[o].name = name.clone();
                    }
                }
                if let AVal::Events(evs) = &v {
                    if !name.starts_with('%') {
                        let frame = self.frame();
                        for &i in evs {
                            self.event_vars.entry((i, frame)).or_insert(name.clone());
                        }
                    }
                }
                // A value stored outside the function's locals, or gathered into a list,
                // is handed on: raw events in it are no longer this function's to release.
                let root_outside = !dst.proj.is_empty()
                    && st
                        .env
                        .get(&Place::var(dst.var))
                        .is_none_or(|r| *r == AVal::External);
                if root_outside || matches!(v, AVal::List(_) | AVal::Struct(_)) {
                    let v2 = v.clone();
                    self.hand_on(&mut st, &v2);
                }
                self.overwrite(&mut st, dst);
                remove_parts(&mut st.env, dst, false);
                if let [Proj::Field(f)] = dst.proj.as_slice() {
                    if let Some(AVal::Struct(fields)) = st.env.get_mut(&Place::var(dst.var)) {
                        fields.insert(f.clone(), v.clone());
                    }
                }
                if dst.is_definite() {
                    st.env.insert(dst.clone(), v);
                } else {
                    let base = Place {
                        var: dst.var,
                        proj: dst
                            .proj
                            .iter()
                            .take_while(|p| **p != Proj::AnyIndex)
                            .cloned()
                            .collect(),
                    };
                    remove_parts(&mut st.env, &base, true);
                }
            }
            Stmt::Enqueue { cmd, event } => self.enqueue(&mut st, cmd, event.as_ref()),
            Stmt::SetArg {
                kernel,
                index,
                name: arg_name,
                value,
                arg,
                span,
            } => {
                let k = self.eval(&mut st, kernel, Some(RoleHint::Kernel), "kernel");
                let AVal::Obj(k) = k else {
                    // A kernel the analysis cannot follow: its argument is still checked.
                    let name = match kernel {
                        Value::Place(p) => self.place_name(p),
                        _ => "kernel".into(),
                    };
                    if let Some(index) = index {
                        let anon = self.new_obj(ObjKind::Kernel { sig: None }, name);
                        self.classify_arg(&mut st, anon, *index, value, arg, *span);
                    }
                    self.forget(&mut st, std::slice::from_ref(value));
                    return Some(st);
                };
                let named = arg_name.as_ref().and_then(|n| {
                    self.arg_names
                        .get(&k)
                        .and_then(|ns| ns.iter().find(|(m, _)| m == n))
                        .map(|(_, i)| *i)
                });
                let Some(index) = index.or(named) else {
                    st.kernel_args.insert(
                        k,
                        KernelArgs {
                            known: false,
                            args: Vec::new(),
                        },
                    );
                    self.forget(&mut st, std::slice::from_ref(value));
                    return Some(st);
                };
                let a = self.classify_arg(&mut st, k, index, value, arg, *span);
                let entry = st.kernel_args.entry(k).or_insert(KernelArgs {
                    known: false,
                    args: Vec::new(),
                });
                entry.args.retain(|(i, _)| *i != index);
                entry.args.push((index, a));
                entry.args.sort_by_key(|(i, _)| *i);
            }
            Stmt::LaunchArg {
                launch,
                value,
                arg,
                span,
            } => {
                if let AVal::Obj(l) = self.eval(&mut st, launch, None, "launch") {
                    if let (ObjKind::Launch { kernel: Some(k) }, Some(ls)) =
                        (&self.objs[l].kind, st.launches.get(&l))
                    {
                        let (k, index) = (*k, ls.args.len() as u64);
                        let a = self.classify_arg(&mut st, k, index, value, arg, *span);
                        if let Some(ls) = st.launches.get_mut(&l) {
                            ls.args.push(a);
                        }
                        return Some(st);
                    }
                }
                self.forget(&mut st, std::slice::from_ref(value));
            }
            Stmt::LaunchWait { launch, events } => {
                if let AVal::Obj(l) = self.eval(&mut st, launch, None, "launch") {
                    let w = self.wait_set(&mut st, events);
                    if let Some(ls) = st.launches.get_mut(&l) {
                        ls.waits = match (ls.waits.take(), w) {
                            (Some(mut a), Some(b)) => {
                                a.extend(b);
                                Some(a)
                            }
                            _ => None,
                        };
                    }
                }
            }
            Stmt::Push { list, item } => {
                let v = self.eval(&mut st, item, None, "item");
                self.hand_on(&mut st, &v);
                match st.env.get_mut(list) {
                    Some(AVal::List(items)) => items.push(v),
                    Some(other) => *other = AVal::Unknown,
                    None => {}
                }
            }
            Stmt::Finish { queue, .. } => {
                match self.eval(&mut st, queue, Some(RoleHint::Queue), "queue") {
                    AVal::Obj(q) => {
                        if matches!(self.objs[q].kind, ObjKind::Queue { .. }) {
                            self.complete_queue(&mut st, q);
                        }
                    }
                    AVal::Unknown | AVal::External => {
                        let all = st.trace.clone();
                        st.completed.union_with(&all);
                    }
                    _ => {}
                }
            }
            Stmt::Wait { events, .. } => match self.wait_set(&mut st, events) {
                Some(evs) => {
                    for i in evs {
                        self.complete(&mut st, i);
                    }
                }
                None => {
                    let all = st.trace.clone();
                    st.completed.union_with(&all);
                }
            },
            Stmt::Forget { values, .. } => {
                self.forget(&mut st, values);
                // A list something unknown had may have other members now.
                for v in values {
                    if let Value::Place(p) = v {
                        let p = self.canonical(p);
                        if let Some(x @ AVal::List(_)) = st.env.get_mut(&p) {
                            *x = AVal::Unknown;
                        }
                    }
                }
            }
            Stmt::Branch(arms) => {
                let outs: Vec<State> = arms
                    .iter()
                    .filter_map(|arm| self.block(arm, st.clone()))
                    .collect();
                return join_all(outs);
            }
            Stmt::Loop(body) => {
                let second_in_depth = self.loops.len() < TWO_ITERATION_DEPTH;
                self.loops.push(LoopCx::default());
                let first = self.block(body, st.clone());
                let mut cx = self.loops.pop().unwrap_or_default();
                let mut ends: Vec<State> = first.into_iter().collect();
                ends.append(&mut cx.continues);
                let mut exits = vec![st];
                exits.append(&mut cx.breaks);
                // Two iterations at every level would be exponential in the nesting depth.
                let second_in = if second_in_depth {
                    join_all(ends.clone())
                } else {
                    None
                };
                if let Some(second_in) = second_in {
                    self.loops.push(LoopCx::default());
                    let second = self.block(body, second_in);
                    let mut cx2 = self.loops.pop().unwrap_or_default();
                    exits.extend(ends);
                    exits.extend(second);
                    exits.append(&mut cx2.continues);
                    exits.append(&mut cx2.breaks);
                }
                return join_all(exits);
            }
            Stmt::ForEach {
                sources,
                binds,
                body,
                tail,
                dst,
            } => return self.for_each(st, sources, binds, body, tail, dst.as_ref()),
            Stmt::Spawn {
                body,
                value,
                handle,
                span,
            } => {
                self.cur_span = *span;
                let before = st.clone();
                let (ended, v) = match self.block(body, st) {
                    Some(mut end) => {
                        let v = self.eval(&mut end, value, None, "%returned");
                        (end, v)
                    }
                    // The thread always panics or diverges: nothing to join.
                    None => (before.clone(), AVal::Unknown),
                };
                let t = self.threads.len();
                self.threads.push((ended.completed.clone(), v));
                // The spawning thread goes on with its own bindings and host knowledge;
                // the thread's commands exist, unordered with what it enqueues next except
                // through one in-order queue.
                let mut st = before.join(&ended);
                st.env = before.env;
                st.completed = before.completed;
                st.tail = ended.tail;
                st.live_raw = before
                    .live_raw
                    .intersection(&ended.live_raw)
                    .copied()
                    .chain(ended.live_raw.difference(&before.live_raw).copied())
                    .collect();
                self.overwrite(&mut st, handle);
                st.env.insert(handle.clone(), AVal::Thread(t));
                return Some(st);
            }
            Stmt::Join { handle, dst } => {
                let joined: Vec<usize> = match self.eval(&mut st, handle, None, "thread") {
                    AVal::Thread(t) => vec![t],
                    // Not known which thread: every one spawned so far.
                    _ => (0..self.threads.len()).collect(),
                };
                let mut value = AVal::Unknown;
                for &t in &joined {
                    let (done, v) = self.threads[t].clone();
                    st.completed.union_with(&done);
                    if joined.len() == 1 {
                        value = v;
                    }
                }
                st.env.insert(dst.clone(), value);
            }
            Stmt::Break => {
                if let Some(cx) = self.loops.last_mut() {
                    cx.breaks.push(st);
                }
                return None;
            }
            Stmt::Continue => {
                if let Some(cx) = self.loops.last_mut() {
                    cx.continues.push(st);
                }
                return None;
            }
            Stmt::Return { value } => {
                if self.inlined.is_empty() {
                    // What the function returns leaves it.
                    self.forget(&mut st, std::slice::from_ref(value));
                    self.returns.push(st);
                } else {
                    let v = self.eval(&mut st, value, None, "%returned");
                    if let Some(cx) = self.inlined.last_mut() {
                        cx.returns.push((st, v));
                    }
                }
                return None;
            }
            Stmt::Call {
                callee,
                recv,
                args,
                dst,
                span,
            } => {
                self.cur_span = *span;
                return self.call(st, callee, recv.as_ref(), args, dst);
            }
            Stmt::Release { events, span } => {
                self.cur_span = *span;
                let a = self.eval(&mut st, events, Some(RoleHint::Event), "event");
                self.release(&mut st, &a);
            }
            Stmt::Op {
                op,
                recv,
                args,
                arg_spans,
                dst,
                id,
                span,
            } => {
                self.cur_span = *span;
                self.op(&mut st, *op, recv, args, arg_spans, dst, *id, *span);
            }
        }
        Some(st)
    }

    /// A call of a function of the crate: its body is interpreted here, with its
    /// parameters bound to the arguments; recursion, depth and unknown callees forget.
    fn call(
        &mut self,
        mut st: State,
        callee: &str,
        recv: Option<&Value>,
        args: &[Value],
        dst: &Place,
    ) -> Option<State> {
        let n_args = args.len() + usize::from(recv.is_some());
        let target = self.index.get(callee).filter(|c| {
            c.function.params.len() == n_args
                && self.inlined.len() < MAX_CALL_DEPTH
                && self.inlined_stmts + c.stmts <= MAX_INLINED_STMTS
                && !self.inlined.iter().any(|i| i.callee == callee)
        });
        let all: Vec<Value> = recv.into_iter().chain(args).cloned().collect();
        let Some(Callee { function: f, stmts }) = target else {
            self.forget(&mut st, &all);
            st.env.insert(dst.clone(), AVal::Unknown);
            return Some(st);
        };
        self.inlined_stmts += stmts;
        let offset = self.vars.len();
        self.vars.extend(f.vars.iter().cloned());
        for (param, arg) in f.params.iter().zip(&all) {
            let p = Place::var(param + offset);
            self.callee_params.insert(p.var);
            match arg {
                // An outside value keeps its identity; a local aggregate not known yet
                // (`Sys s; setup(&s);`) is filled in by the callee through its parameter.
                Value::Place(a)
                    if matches!(
                        self.resolve(&mut st, a, None),
                        AVal::External | AVal::Unknown | AVal::Struct(_)
                    ) =>
                {
                    let c = self.canonical(a);
                    self.ext_alias.insert(p.var, c);
                }
                _ => {
                    let v = self.eval(&mut st, arg, None, "%argument");
                    st.env.insert(p, v);
                }
            }
        }
        let body = shift_block(&f.body, offset);
        self.frames += 1;
        let shown = match method_key(callee) {
            Some((ty, m)) => format!("{ty}::{m}"),
            None => callee.rsplit("::").next().unwrap_or(callee).to_string(),
        };
        let parent = self.frame();
        self.frame_sites
            .insert(self.frames, (parent, self.cur_span, shown));
        self.inlined.push(InlineCx {
            callee: callee.to_string(),
            frame: self.frames,
            returns: Vec::new(),
        });
        let end = self.block(&body, st);
        let cx = self.inlined.pop()?;
        let mut outs = cx.returns;
        outs.extend(end.map(|s| (s, AVal::Unknown)));
        let value = outs
            .iter()
            .map(|(_, v)| v.clone())
            .reduce(|a, b| join_val(&a, &b))?;
        let mut st = join_all(outs.into_iter().map(|(s, _)| s).collect())?;
        st.env.insert(dst.clone(), value);
        Some(st)
    }

    /// A loop over lists or a range: once per member when every list is known and short,
    /// else as a loop whose bindings are "some member".
    fn for_each(
        &mut self,
        mut st: State,
        sources: &[EachSource],
        binds: &[(Place, EachPart)],
        body: &[Stmt],
        tail: &Value,
        dst: Option<&Place>,
    ) -> Option<State> {
        let mut members: Vec<Vec<AVal>> = Vec::new();
        for src in sources {
            let items = match src {
                EachSource::Members(v) => match self.eval(&mut st, v, None, "list") {
                    AVal::List(items) => Some(items),
                    _ => None,
                },
                EachSource::Upto(v) => match self.eval(&mut st, v, None, "n") {
                    AVal::Int(n) if n as usize <= MAX_UNROLL => {
                        Some((0..n).map(AVal::Int).collect())
                    }
                    _ => None,
                },
                EachSource::UptoLen(v) => match self.eval(&mut st, v, None, "list") {
                    AVal::List(items) => Some((0..items.len() as u64).map(AVal::Int).collect()),
                    _ => None,
                },
            };
            match items {
                Some(i) => members.push(i),
                None => break,
            }
        }
        let n = members.iter().map(Vec::len).min().unwrap_or(0);
        let cost = stmt_count(body) * n;
        let known = members.len() == sources.len() && !sources.is_empty();
        if !known
            || n > MAX_UNROLL
            || self.unroll_depth >= MAX_UNROLL_DEPTH
            || self.unrolled + cost > MAX_UNROLLED_STMTS
        {
            // Some member: a place `list[_]` never proves two members equal.
            let mut looped: Vec<Stmt> = binds
                .iter()
                .map(|(p, part)| Stmt::Assign {
                    dst: p.clone(),
                    value: match (
                        part,
                        sources.get(match part {
                            EachPart::Member(s) => *s,
                            _ => usize::MAX,
                        }),
                    ) {
                        (EachPart::Member(_), Some(EachSource::Members(Value::Place(l)))) => {
                            let mut l = l.clone();
                            l.proj.push(Proj::AnyIndex);
                            Value::Place(l)
                        }
                        (EachPart::Count, _) => Value::Scalar,
                        (
                            EachPart::Member(_),
                            Some(EachSource::Upto(_) | EachSource::UptoLen(_)),
                        ) => Value::Scalar,
                        _ => Value::Unknown,
                    },
                    span: Span::default(),
                })
                .collect();
            looped.extend(body.iter().cloned());
            let mut out = self.stmt(&Stmt::Loop(looped), st)?;
            if let Some(d) = dst {
                out.env.insert(d.clone(), AVal::Unknown);
            }
            return Some(out);
        }
        self.unrolled += cost;
        let mut cur = Some(st);
        let mut exits = Vec::new();
        let mut values = Vec::new();
        // One row per iteration: the current member of each source.
        let rows: Vec<Vec<AVal>> = (0..n)
            .map(|k| members.iter().map(|m| m[k].clone()).collect())
            .collect();
        for (k, row) in rows.into_iter().enumerate() {
            let Some(mut s) = cur.take() else { break };
            for (p, part) in binds {
                let v = match part {
                    EachPart::Member(src) => row[*src].clone(),
                    EachPart::Count => AVal::Int(k as u64),
                    EachPart::Unknown => AVal::Unknown,
                };
                remove_parts(&mut s.env, p, true);
                s.env.insert(p.clone(), v);
            }
            self.loops.push(LoopCx::default());
            self.unroll_depth += 1;
            let end = self.block(body, s);
            self.unroll_depth -= 1;
            let cx = self.loops.pop().unwrap_or_default();
            let mut ends: Vec<State> = Vec::new();
            if let Some(mut e) = end {
                if dst.is_some() {
                    values.push(self.eval(&mut e, tail, None, "%item"));
                }
                ends.push(e);
            }
            if !cx.continues.is_empty() {
                values.clear();
            }
            ends.extend(cx.continues);
            if !cx.breaks.is_empty() {
                values.clear();
            }
            exits.extend(cx.breaks);
            cur = join_all(ends);
        }
        let complete = cur.is_some() && values.len() == n;
        exits.extend(cur);
        let mut out = join_all(exits)?;
        if let Some(d) = dst {
            let v = if complete {
                AVal::List(values)
            } else {
                AVal::Unknown
            };
            out.env.insert(d.clone(), v);
        }
        Some(out)
    }

    /// The frames from the analyzed function (not included) in to `frame`.
    fn frames_of(&self, mut frame: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while let Some((parent, _, _)) = self.frame_sites.get(&frame) {
            out.push(frame);
            frame = *parent;
        }
        out.reverse();
        out
    }

    /// The frame being interpreted.
    fn frame(&self) -> usize {
        self.inlined.last().map_or(0, |c| c.frame)
    }

    /// Marks an instance and everything before it complete.
    fn complete(&mut self, st: &mut State, i: usize) {
        st.completed.insert(i);
        let before = self.insts[i].before.clone();
        st.completed.union_with(&before);
    }

    fn complete_queue(&mut self, st: &mut State, q: ObjId) {
        let on = st.on_queue.get(&q).cloned().unwrap_or_default();
        for i in on.iter() {
            self.complete(st, i);
        }
    }

    /// Instances a wait list names; `None` when it is not known.
    fn wait_set(&mut self, st: &mut State, v: &Value) -> Option<BTreeSet<usize>> {
        let a = self.eval(st, v, Some(RoleHint::Event), "events");
        let mut out = BTreeSet::new();
        fn walk(a: &AVal, objs: &[Obj], out: &mut BTreeSet<usize>) -> bool {
            match a {
                AVal::Events(s) => {
                    out.extend(s);
                    true
                }
                AVal::List(items) => items.iter().all(|i| walk(i, objs, out)),
                AVal::Obj(o) => matches!(objs[*o].kind, ObjKind::UserEvent),
                AVal::Null | AVal::Scalar | AVal::Int(_) => true,
                _ => false,
            }
        }
        walk(&a, &self.objs, &mut out).then_some(out)
    }

    fn forget(&mut self, st: &mut State, values: &[Value]) {
        let mut objs = Vec::new();
        for v in values {
            let a = self.eval(st, v, None, "value");
            self.collect_forgotten(st, &a, &mut objs);
        }
        st.escaped.extend(objs.iter().copied());
        let all: Vec<ObjId> = st.escaped.iter().copied().collect();
        for o in all {
            self.forget_obj(st, o);
        }
    }

    fn collect_forgotten(&mut self, st: &mut State, a: &AVal, objs: &mut Vec<ObjId>) {
        match a {
            AVal::Obj(o) => {
                st.live_raw.remove(&RawKey::User(*o));
                objs.push(*o);
            }
            AVal::Events(s) => {
                for &i in s {
                    self.complete(st, i);
                    st.live_raw.remove(&RawKey::Inst(i));
                }
            }
            AVal::List(items) => {
                for i in items {
                    self.collect_forgotten(st, i, objs);
                }
            }
            AVal::Struct(fields) => {
                for i in fields.values() {
                    self.collect_forgotten(st, i, objs);
                }
            }
            AVal::Host { id, .. } => {
                *st.host_version.entry(*id).or_insert(0) += 1;
            }
            _ => {}
        }
    }

    fn forget_obj(&mut self, st: &mut State, o: ObjId) {
        match self.objs[o].kind {
            ObjKind::Buffer => self.forget_buffer(st, o),
            ObjKind::Queue { .. } => self.complete_queue(st, o),
            ObjKind::Kernel { .. } => {
                st.kernel_args.insert(
                    o,
                    KernelArgs {
                        known: false,
                        args: Vec::new(),
                    },
                );
            }
            ObjKind::Launch { .. } => {
                st.launches.remove(&o);
            }
            _ => {}
        }
    }

    fn forget_buffer(&mut self, st: &mut State, b: ObjId) {
        st.init.remove(&b);
        st.pending_host.remove(&b);
        st.pending_src.remove(&b);
        st.accesses.remove(&b);
        st.residency.remove(&b);
    }

    /// Forgets every buffer: a command touched buffers the analysis cannot name.
    fn forget_all_buffers(&mut self, st: &mut State) {
        st.init.clear();
        st.pending_host.clear();
        st.pending_src.clear();
        st.residency.clear();
    }

    fn classify_arg(
        &mut self,
        st: &mut State,
        kernel: ObjId,
        index: u64,
        value: &Value,
        arg: &ArgSpan,
        span: Span,
    ) -> Arg {
        let a = self.eval(st, value, None, "arg");
        self.check_signature(kernel, index, &a, arg, span);
        match a {
            AVal::Obj(o) if matches!(self.objs[o].kind, ObjKind::Buffer) => Arg::Buffer(o),
            AVal::Host { kind, id } => {
                let sig = match &self.objs[kernel].kind {
                    ObjKind::Kernel { sig, .. } => sig.clone(),
                    _ => None,
                };
                let param = sig.as_ref().and_then(|s| s.params.get(index as usize));
                let fires = match param {
                    Some(p) => p.takes_mem_object(),
                    None => sig.is_none() && !kind.could_be_by_value(),
                };
                if !fires {
                    return Arg::Other;
                }
                let bufs = st.host_buffers.get(&id).cloned().unwrap_or_default();
                let suggestion = (bufs.len() == 1).then(|| *bufs.iter().next().unwrap_or(&0));
                if self.seen.insert((1, span.start, span.file)) {
                    self.raw.push(RawFact::Ready(Box::new(Fact::HostArg {
                        set_arg: span,
                        arg: arg.clone(),
                        kernel: self.objs[kernel].name.clone(),
                        index,
                        host: kind,
                        param: param.map(|p| p.name.clone()),
                        suggestion: suggestion.map(|b| self.objs[b].name.clone()),
                    })));
                }
                match suggestion {
                    Some(b) => Arg::Buffer(b),
                    None => Arg::Other,
                }
            }
            AVal::Scalar | AVal::Int(_) | AVal::Null => Arg::Other,
            _ => {
                self.collect_and_forget(st, &a);
                Arg::Unknown
            }
        }
    }

    /// Compares an argument with the kernel's signature, when its source is visible.
    fn check_signature(&mut self, kernel: ObjId, index: u64, a: &AVal, arg: &ArgSpan, span: Span) {
        let ObjKind::Kernel { sig: Some(sig) } = &self.objs[kernel].kind else {
            return;
        };
        let problem = match sig.params.get(index as usize) {
            None => Some(Mismatch::PastEnd {
                count: sig.params.len(),
            }),
            Some(p) => match a {
                AVal::Obj(o) if matches!(self.objs[*o].kind, ObjKind::Buffer) => {
                    let (param, decl) = (p.name.clone(), p.decl.clone());
                    match p.space {
                        _ if p.takes_mem_object() => None,
                        AddrSpace::Local => Some(Mismatch::BufferForLocal { param, decl }),
                        _ if p.pointer => None,
                        _ => Some(Mismatch::BufferByValue { param, decl }),
                    }
                }
                AVal::Scalar | AVal::Int(_) if p.takes_mem_object() => {
                    Some(Mismatch::ScalarForPointer {
                        param: p.name.clone(),
                        decl: p.decl.clone(),
                    })
                }
                _ => None,
            },
        };
        if let Some(problem) = problem {
            if self.seen.insert((7, span.start, span.file)) {
                self.raw.push(RawFact::Ready(Box::new(Fact::ArgMismatch {
                    set_arg: span,
                    arg: arg.clone(),
                    kernel: self.objs[kernel].name.clone(),
                    index,
                    problem,
                })));
            }
        }
    }

    fn collect_and_forget(&mut self, st: &mut State, a: &AVal) {
        let mut objs = Vec::new();
        self.collect_forgotten(st, a, &mut objs);
        for o in objs {
            st.escaped.insert(o);
            self.forget_obj(st, o);
        }
    }

    /// The buffers a launch touches and how, its wait list and the kernel's name.
    fn launch_accesses(&self, st: &State, kernel: &AVal) -> LaunchInfo {
        let AVal::Obj(o) = kernel else {
            return LaunchInfo {
                uses: None,
                waits: Some(BTreeSet::new()),
                kernel: None,
                partial: false,
            };
        };
        let (k, args, waits): (ObjId, Vec<(u64, Arg)>, Option<BTreeSet<usize>>) =
            match &self.objs[*o].kind {
                ObjKind::Kernel { .. } => match st.kernel_args.get(o) {
                    Some(ka) if ka.known => (*o, ka.args.clone(), Some(BTreeSet::new())),
                    // A kernel from outside with arguments set here: those accesses are
                    // known; what the others touch is not.
                    Some(ka) if !ka.args.is_empty() => {
                        let mut args = ka.args.clone();
                        args.push((u64::MAX, Arg::Unknown));
                        (*o, args, Some(BTreeSet::new()))
                    }
                    _ => {
                        return LaunchInfo {
                            uses: None,
                            waits: Some(BTreeSet::new()),
                            kernel: Some(self.objs[*o].name.clone()),
                            partial: false,
                        }
                    }
                },
                ObjKind::Launch { kernel: Some(k) } => match st.launches.get(o) {
                    Some(ls) => (
                        *k,
                        ls.args
                            .iter()
                            .enumerate()
                            .map(|(i, a)| (i as u64, a.clone()))
                            .collect(),
                        ls.waits.clone(),
                    ),
                    None => {
                        return LaunchInfo {
                            uses: None,
                            waits: None,
                            kernel: Some(self.objs[*k].name.clone()),
                            partial: false,
                        }
                    }
                },
                _ => {
                    return LaunchInfo {
                        uses: None,
                        waits: Some(BTreeSet::new()),
                        kernel: None,
                        partial: false,
                    }
                }
            };
        let sig = match &self.objs[k].kind {
            ObjKind::Kernel { sig, .. } => sig.clone(),
            _ => None,
        };
        let mut out = Vec::new();
        let mut partial = false;
        for (i, a) in args {
            match a {
                Arg::Buffer(b) => {
                    let mode = match sig.as_ref().and_then(|s| s.params.get(i as usize)) {
                        Some(p) => match p.access {
                            ParamAccess::Read => Mode::Read,
                            ParamAccess::Write | ParamAccess::ReadWrite => Mode::Write,
                            ParamAccess::Unknown => Mode::MaybeWrite,
                        },
                        None => Mode::MaybeWrite,
                    };
                    out.push((b, mode));
                }
                Arg::Other => {}
                // Arguments set elsewhere: the known ones still count, and what the
                // launch may write besides is forgotten.
                Arg::Unknown if i == u64::MAX => partial = true,
                Arg::Unknown => {
                    return LaunchInfo {
                        uses: None,
                        waits,
                        kernel: Some(self.objs[k].name.clone()),
                        partial: false,
                    }
                }
            }
        }
        LaunchInfo {
            uses: Some(out),
            waits,
            kernel: Some(self.objs[k].name.clone()),
            partial,
        }
    }

    fn same_device(&self, a: ObjId, b: ObjId) -> bool {
        let dev = |q: ObjId| match self.objs[q].kind {
            ObjKind::Queue { device, .. } => device,
            _ => None,
        };
        a == b || matches!((dev(a), dev(b)), (Some(x), Some(y)) if x == y)
    }

    /// Resolves a lowered command's queue, buffers, wait list and kernel arguments.
    fn resolve_cmd(&mut self, st: &mut State, cmd: &Command) -> Resolved {
        let queue = match self.eval(st, &cmd.queue, Some(RoleHint::Queue), "queue") {
            AVal::Obj(q) if matches!(self.objs[q].kind, ObjKind::Queue { .. }) => Some(q),
            _ => None,
        };
        let mut r = Resolved {
            queue,
            ..Resolved::default()
        };
        for bu in &cmd.buffers {
            let a = self.eval(st, &bu.buffer, Some(RoleHint::Buffer), "buffer");
            let mut found = Vec::new();
            flatten_buffers(&a, &self.objs, &mut found, &mut r.unknown_buffers);
            let mode = match bu.access {
                Access::Read => Mode::Read,
                Access::Write | Access::ReadWrite => Mode::Write,
                Access::Migrate { .. } => Mode::Migrate,
            };
            let host = match &bu.host {
                Some(h) => match self.eval(st, h, None, "host") {
                    AVal::Host { id, .. } => Some(id),
                    _ => None,
                },
                None => None,
            };
            let info = UseInfo {
                to_host: matches!(bu.access, Access::Migrate { to_host: true }),
                whole: bu.whole,
                host,
            };
            r.uses.extend(found.into_iter().map(|b| (b, mode, info)));
        }
        r.waits = match &cmd.waits {
            Some(ws) => {
                let mut all = Some(BTreeSet::new());
                for w in ws {
                    match (self.wait_set(st, w), all.as_mut()) {
                        (Some(s), Some(a)) => a.extend(s),
                        _ => all = None,
                    }
                }
                all
            }
            None => None,
        };
        if cmd.kind == CommandKind::Kernel {
            let k = match &cmd.kernel {
                Some(v) => self.eval(st, v, Some(RoleHint::Kernel), "kernel"),
                None => AVal::Unknown,
            };
            self.add_launch(st, &k, &mut r);
        }
        r
    }

    /// Adds a launch's buffer accesses and wait list to a command.
    fn add_launch(&self, st: &State, kernel: &AVal, r: &mut Resolved) {
        let LaunchInfo {
            uses,
            waits,
            kernel: name,
            partial,
        } = self.launch_accesses(st, kernel);
        r.kernel_name = name;
        r.unknown_buffers |= partial;
        match uses {
            Some(acc) => r
                .uses
                .extend(acc.into_iter().map(|(b, m)| (b, m, UseInfo::default()))),
            None => r.unknown_buffers = true,
        }
        r.waits = match (r.waits.take(), waits) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            _ => None,
        };
    }

    fn enqueue(&mut self, st: &mut State, cmd: &Command, event: Option<&Place>) {
        let r = self.resolve_cmd(st, cmd);
        // `&ev[i]`: the element `i` names where it is known.
        let event = event.map(|e| self.canonical(&self.concrete(st, e)));
        self.push_command(st, cmd.clone(), r, event.as_ref());
    }

    /// Records one command instance: its happens-before set, what it does to each buffer,
    /// host syncs it implies and where its event goes.
    fn push_command(&mut self, st: &mut State, cmd: Command, r: Resolved, event: Option<&Place>) {
        if r.unknown_buffers {
            self.forget_all_buffers(st);
        }
        // Past the budget a command is one the analysis cannot follow.
        let q = r.queue.filter(|_| self.insts.len() < MAX_COMMANDS);
        let Some(q) = q else {
            for (b, _, _) in &r.uses {
                self.forget_buffer(st, *b);
            }
            if let Some(e) = event {
                st.env.insert(e.clone(), AVal::Unknown);
            }
            return;
        };
        let i = self.insts.len();
        let mut before = st.completed.clone();
        match &r.waits {
            Some(ws) => {
                for &w in ws {
                    before.insert(w);
                    before.union_with(&self.insts[w].before);
                }
            }
            None => before.union_with(&st.trace),
        }
        let ooo = matches!(self.objs[q].kind, ObjKind::Queue { ooo: true, .. });
        if let Some(t) = st.tail.get(&q) {
            before.union_with(t);
        }
        if matches!(cmd.kind, CommandKind::Barrier | CommandKind::Marker)
            && r.waits.as_ref().is_some_and(|w| w.is_empty())
        {
            if let Some(on) = st.on_queue.get(&q) {
                for j in on.iter() {
                    before.insert(j);
                    before.union_with(&self.insts[j].before);
                }
            }
        }
        let (kind, blocking, raw) = (cmd.kind, cmd.blocking, cmd.raw_event);
        let queue_name = self
            .shown
            .get(&q)
            .cloned()
            .unwrap_or_else(|| self.objs[q].name.clone());
        self.insts.push(Inst {
            cmd,
            queue: q,
            queue_name,
            before: before.clone(),
            kernel: r.kernel_name,
            frame: self.frame(),
        });
        for (b, mode, info) in &r.uses {
            // The host writes a region mapped for writing between the map and the unmap, and
            // the buffer holds what it wrote once the unmap has run: the map reads the buffer,
            // the unmap writes it.
            let mode = match kind {
                CommandKind::Map if *mode == Mode::Write => {
                    st.mapped_for_write.insert(*b);
                    Mode::Read
                }
                CommandKind::Unmap if st.mapped_for_write.remove(b) => Mode::Write,
                _ => *mode,
            };
            self.check_buffer(st, i, q, *b, mode, info);
        }
        st.trace.insert(i);
        st.on_queue.entry(q).or_default().insert(i);
        if !ooo || kind == CommandKind::Barrier {
            let mut t = before;
            t.insert(i);
            st.tail.insert(q, t);
        }
        // A blocking read or map returns once the command has completed. A blocking write
        // does not complete anything: clEnqueueWriteBuffer with `blocking_write` "copies the
        // data referred to by ptr and enqueues the write operation in the command-queue. The
        // memory pointed to by ptr can be reused by the application after the
        // clEnqueueWriteBuffer call returns" (OpenCL 3.0): the host may reuse its data, and
        // the write is merely enqueued.
        if blocking != Blocking::No && kind != CommandKind::Write {
            self.complete(st, i);
        }
        if let Some(e) = event {
            let ev = AVal::Events(BTreeSet::from([i]));
            if let Some(AVal::List(items)) = st.env.get_mut(e) {
                // `enew(&mut event_list)` appends.
                items.push(ev);
            } else {
                self.overwrite(st, e);
                let name = self.place_name(e);
                if !name.starts_with('%') {
                    let frame = self.frame();
                    self.event_vars.entry((i, frame)).or_insert(name);
                }
                st.env.insert(e.clone(), ev);
            }
            if raw {
                st.live_raw.insert(RawKey::Inst(i));
                // Written into an element of the caller's array (`&ev[i]` of a parameter):
                // the caller's to release.
                let root = self.canonical(&Place::var(e.var));
                let root_outside = !e.proj.is_empty()
                    && (self.params.contains(&root.var)
                        || st.env.get(&root).is_none_or(|r| *r == AVal::External));
                if root_outside {
                    self.hand_on(st, &AVal::Events(BTreeSet::from([i])));
                }
            }
        }
    }

    fn check_buffer(
        &mut self,
        st: &mut State,
        i: usize,
        q: ObjId,
        b: ObjId,
        mode: Mode,
        info: &UseInfo,
    ) {
        let (kind, cmd_id, cmd_span) = {
            let c = &self.insts[i].cmd;
            (c.kind, c.id, c.span)
        };
        // Races with earlier accesses: report the latest unordered ones, since waiting on
        // them orders the earlier ones too.
        let before = self.insts[i].before.clone();
        // A second upload of the data the buffer already holds (CLM004) does not race with
        // the uploads it repeats: any order leaves the same bytes.
        let repeats: &[usize] = info
            .host
            .filter(|_| kind == CommandKind::Write && info.whole && mode == Mode::Write)
            .and_then(|h| {
                let version = st.host_version.get(&h).copied().unwrap_or(0);
                st.init
                    .get(&b)
                    .filter(|init| init.host == h && init.version == version)
            })
            .map_or(&[], |init| &init.uploads);
        let unordered: Vec<(usize, Mode)> = st
            .accesses
            .get(&b)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter(|(a, am)| {
                // A command does not race with itself (a kernel reading and writing one buffer).
                *a != i
                    && !repeats.contains(a)
                    && conflict(*am, mode)
                    && !before.contains(*a)
                    && !st.completed.contains(*a)
            })
            .copied()
            .collect();
        for &(a, am) in &unordered {
            let covered = unordered
                .iter()
                .any(|&(c, _)| c != a && self.insts[c].before.contains(a));
            if !covered && self.seen.insert((3, self.insts[a].cmd.id, q)) {
                self.raw.push(RawFact::Unordered {
                    producer: a,
                    pm: am,
                    consumer: i,
                    cm: mode,
                    buffer: b,
                });
            }
        }
        st.accesses.entry(b).or_default().push((i, mode));

        // A pending migration to the host, now followed by this use.
        let device_use = kind.is_device_use() || (kind == CommandKind::Migrate && !info.to_host);
        if let Some(ms) = st.pending_host.remove(&b) {
            if device_use {
                for m in ms {
                    if self.seen.insert((2, self.insts[m].cmd.id, 0)) {
                        self.raw.push(RawFact::HostMigration {
                            migration: m,
                            next: i,
                            buffer: b,
                        });
                    }
                }
            }
        }
        // A pending migration enqueued where the buffer already was.
        if let Some(ms) = st.pending_src.remove(&b) {
            for (m, last) in ms {
                let mq = self.insts[m].queue;
                if !self.same_device(mq, q) && self.seen.insert((5, self.insts[m].cmd.id, 0)) {
                    self.raw.push(RawFact::SourceQueue {
                        migration: m,
                        last,
                        next: i,
                        buffer: b,
                    });
                }
            }
        }
        if kind == CommandKind::Migrate {
            if info.to_host {
                st.pending_host.insert(b, vec![i]);
                st.residency.remove(&b);
            } else {
                if let Some(&last) = st.residency.get(&b) {
                    if self.same_device(self.insts[last].queue, q) {
                        st.pending_src.insert(b, vec![(i, last)]);
                    }
                }
                st.residency.insert(b, i);
            }
        } else {
            st.residency.insert(b, i);
        }

        // Initialization from host data.
        let host = info
            .host
            .filter(|_| kind == CommandKind::Write && info.whole);
        match (mode, host) {
            (Mode::Write, Some(h)) => {
                let version = st.host_version.get(&h).copied().unwrap_or(0);
                let mut uploads = Vec::new();
                if let Some(init) = st.init.get(&b) {
                    if init.host == h && init.version == version {
                        if self.seen.insert((4, cmd_id, 0)) {
                            self.raw.push(RawFact::Reinit {
                                write: i,
                                first: init.clone(),
                                buffer: b,
                            });
                        }
                        uploads.clone_from(&init.uploads);
                    }
                }
                uploads.push(i);
                st.init.insert(
                    b,
                    Init {
                        host: h,
                        version,
                        site: cmd_span,
                        queue: Some(self.insts[i].queue_name.clone()),
                        frames: self.frames_of(self.insts[i].frame),
                        uploads,
                    },
                );
                st.host_buffers.entry(h).or_default().insert(b);
            }
            (Mode::Write | Mode::MaybeWrite, _) => {
                st.init.remove(&b);
            }
            _ => {}
        }
        if kind == CommandKind::Read {
            if let Some(h) = info.host {
                st.host_buffers.entry(h).or_default().insert(b);
            }
        }
    }

    /// A place is about to be overwritten: a raw event only it refers to is lost, unreleased.
    fn overwrite(&mut self, st: &mut State, p: &Place) {
        let Some(AVal::Events(old)) = st.env.get(p) else {
            return;
        };
        let old = old.clone();
        for i in old {
            let key = RawKey::Inst(i);
            if !st.live_raw.contains(&key) {
                continue;
            }
            let referenced = st
                .env
                .iter()
                .any(|(k, v)| k != p && !self.vars[k.var].name.starts_with('%') && refers_to(v, i));
            if !referenced {
                st.live_raw.remove(&key);
                self.leak(key, Some(self.cur_span));
            }
        }
    }

    /// Records an unreleased raw event.
    fn leak(&mut self, key: RawKey, overwritten: Option<Span>) {
        let (id, site) = match key {
            RawKey::Inst(i) => (self.insts[i].cmd.id, self.insts[i].cmd.span),
            RawKey::User(o) => (
                usize::MAX - o,
                self.user_sites.get(&o).copied().unwrap_or_default(),
            ),
        };
        if self.seen.insert((6, id, 0)) {
            self.raw.push(RawFact::Unreleased {
                key,
                site,
                overwritten,
            });
        }
    }

    /// Raw events in a value now belong to someone else.
    fn hand_on(&mut self, st: &mut State, a: &AVal) {
        match a {
            AVal::Events(s) => {
                for &i in s {
                    st.live_raw.remove(&RawKey::Inst(i));
                }
            }
            AVal::Obj(o) => {
                st.live_raw.remove(&RawKey::User(*o));
            }
            AVal::List(items) => items.iter().for_each(|x| self.hand_on(st, x)),
            AVal::Struct(fields) => fields.values().for_each(|x| self.hand_on(st, x)),
            _ => {}
        }
    }

    /// Releases raw events, or hands them to something that will.
    fn release(&mut self, st: &mut State, a: &AVal) {
        match a {
            AVal::List(items) => items.iter().for_each(|x| self.release(st, x)),
            // Not known which event: any of them may be the one.
            AVal::Unknown | AVal::External => st.live_raw.clear(),
            _ => self.hand_on(st, a),
        }
    }

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

    fn finish(self) -> Vec<Fact> {
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
                    }
                    Fact::Unordered {
                        producer: p,
                        producer_mode: *pm,
                        consumer: c,
                        consumer_mode: *cm,
                        buffer: self.objs[*buffer].name.clone(),
                        same_queue: pq == cq,
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
                } => {
                    let (api, event_var) = match key {
                        RawKey::Inst(i) => {
                            let info = self.info(*i, None);
                            (info.api, info.event_var)
                        }
                        RawKey::User(o) => (
                            "create_user_event".to_string(),
                            Some(self.objs[*o].name.clone()),
                        ),
                    };
                    Fact::Unreleased {
                        site: *site,
                        api,
                        event_var: event_var.filter(|n| !n.starts_with('%')),
                        overwritten: *overwritten,
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
        out
    }
}

/// Removes the bindings of the parts of `p` (`p.f`, `p[1]`), and of `p` itself with
/// `itself`. They follow `p` in the order of places.
fn remove_parts(env: &mut BTreeMap<Place, AVal>, p: &Place, itself: bool) {
    let parts: Vec<Place> = env
        .range(p.clone()..)
        .take_while(|(k, _)| k.var == p.var && k.proj.starts_with(&p.proj))
        .filter(|(k, _)| itself || k.proj.len() > p.proj.len())
        .map(|(k, _)| k.clone())
        .collect();
    for k in parts {
        env.remove(&k);
    }
}

/// The part of a list or struct value a path of constant indices and fields names.
fn project(v: &AVal, proj: &[Proj]) -> AVal {
    let Some((first, rest)) = proj.split_first() else {
        return v.clone();
    };
    match (v, first) {
        (AVal::List(items), Proj::Index(n)) => items
            .get(*n as usize)
            .map_or(AVal::Unknown, |x| project(x, rest)),
        (AVal::Struct(fields), Proj::Field(f)) => {
            fields.get(f).map_or(AVal::Unknown, |x| project(x, rest))
        }
        _ => AVal::Unknown,
    }
}

fn flatten_buffers(a: &AVal, objs: &[Obj], out: &mut Vec<ObjId>, unknown: &mut bool) {
    match a {
        AVal::Obj(o) if matches!(objs[*o].kind, ObjKind::Buffer) => out.push(*o),
        AVal::List(items) => items
            .iter()
            .for_each(|i| flatten_buffers(i, objs, out, unknown)),
        _ => *unknown = true,
    }
}
