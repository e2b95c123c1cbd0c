//! The analysis: an abstract interpretation of one lowered function.
//!
//! It tracks which OpenCL object each place holds, the commands enqueued so far with the
//! commands known to complete before each (happens-before), and per buffer its accesses,
//! how it was initialized, where it was last used and pending migrations. Loops run for
//! two iterations (one when nested more than four deep); at a branch join only what holds
//! on every path is kept. What the analysis cannot follow (including commands past the
//! 10,000th of one function) is forgotten, and nothing is reported through forgotten facts.
//! The result is a list of [`Fact`]s that the rules turn into findings.
//!
//! This module holds the abstract state (what each place holds, the objects, the
//! commands enqueued so far) and [`analyze`]. The rest, by concern:
//! - `stmt`: each statement applied to the state; `join`: joining states at branches;
//!   `loops`: loops over lists, once per member;
//! - `values`: places resolved to objects, values evaluated, objects created;
//! - `commands`: commands, their happens-before, and buffer accesses checked against
//!   earlier ones; `kernels`: kernel signatures, arguments and launches;
//!   `builders`: ocl's builder-style APIs;
//! - `calls`: the crate's functions, followed into at their call sites;
//! - `forget`: what is forgotten, and raw-event ownership; `facts`: what is reported.

mod bitset;
mod builders;
mod calls;
mod commands;
mod crate_kernels;
mod env;
mod facts;
mod forget;
mod join;
mod kernels;
mod loops;
mod stmt;
pub mod trace;
mod values;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::ir::*;
use crate::kernel_src::{self, AddrSpace, KernelSig, ParamAccess};
use bitset::BitSet;
use calls::InlineCx;
pub use calls::{method_key, Callee, Index};
use crate_kernels::{CrateKernels, Slot};
use env::Env;
use facts::RawFact;
pub use facts::{CmdInfo, Fact, Hop, Mismatch, Mode};
use kernels::SetSite;
pub use kernels::{KernelFiles, Kernels};
use loops::LoopCx;

type ObjId = usize;
type HostId = usize;

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
    /// An integer known only to be greater than this: a loop's counter after its first
    /// pass (`t` of `for (t = 0; t < STEPS; t++)` in the passes that stand for the rest);
    /// with whether it is odd where that is known (the passes of a loop whose body tests
    /// `t % 2` run for odd and even counters apart).
    Above(u64, Option<bool>),
    /// An integer a test found to be 0 or less (`if (steps > 0)` not taken) that the
    /// analysis has not yet used as a count.
    NotAbove0,
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
    /// The event of a command the analysis does not follow (its queue is not known): an
    /// event of its own, none of those it knows, and what it orders is not known.
    UntrackedEvent,
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
    /// The call frame that made it.
    made_in: usize,
    /// The member of a list it first became (`lanes[1].0.0`), where that is not its name:
    /// what tells it from an object made under the same name in another pass.
    member: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RoleHint {
    Queue,
    Buffer,
    Kernel,
    Program,
    Event,
}

#[derive(Clone, Debug, PartialEq)]
enum Arg {
    Buffer(ObjId),
    /// Host data where a buffer is expected (CLM001): at a launch, the buffer the data was
    /// then uploaded to, where there is exactly one, stands for what was meant.
    Host(HostId),
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
    /// The wait lists given to it, as written (`set_event_wait_list(deps)`).
    lists: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq)]
struct Init {
    host: HostId,
    version: u32,
    site: Span,
    queue: Option<String>,
    /// The uploads that put this data there (one, then its repetitions), ascending; none for
    /// a buffer created from the data. Shared: a repetition extends the list in place when
    /// no other state holds it.
    uploads: Rc<Vec<usize>>,
    /// The call frames that made it, from the analyzed function inwards.
    frames: Vec<usize>,
}

/// One path's knowledge.
#[derive(Clone, Debug, Default)]
struct State {
    /// Ordered, so that the parts of a place (`x.f`, `x[1]`) follow it: removing them
    /// does not walk every binding.
    env: Env,
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
    /// Per buffer: its accesses that no later one covers, by instance, each with the ones
    /// it covers (`commands::Touch`).
    accesses: HashMap<ObjId, Vec<commands::Touch>>,
    init: HashMap<ObjId, Init>,
    host_version: HashMap<HostId, u32>,
    /// Buffers made from, or written with, each host data.
    host_buffers: HashMap<HostId, BTreeSet<ObjId>>,
    pending_host: HashMap<ObjId, Vec<usize>>,
    pending_src: HashMap<ObjId, Vec<(usize, usize)>>,
    /// The last command on each buffer that left it on a device, and where that is
    /// ([`Analyzer::home`]).
    residency: HashMap<ObjId, (usize, ObjId)>,
    /// Objects handed to code the analysis does not see.
    escaped: BTreeSet<ObjId>,
    /// Raw events made and not yet released or handed on.
    live_raw: BTreeSet<RawKey>,
    /// Raw events stored in elements of the function's own arrays (`&done[d]`,
    /// `&plan[i].kernel_done`): a release of an element at an index not known releases
    /// those of that array's elements only.
    in_arrays: BTreeSet<InArray>,
    /// Buffers mapped for writing and not yet unmapped: the unmap writes them.
    mapped_for_write: BTreeSet<ObjId>,
    /// The path handles a failed status check ([`Stmt::ErrorExit`]).
    error_exit: bool,
    /// A command on the path failed ([`Stmt::Failed`]): the path is on its way out
    /// through error handling.
    failed: bool,
    /// The frame that passed `None` for an optional wait list whose `None` arm this path
    /// of a callee took: a command here without a wait list leaves it out on that
    /// frame's word.
    declined_wait: Option<usize>,
}

/// A raw event stored in an element of an array of the function's own.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct InArray {
    /// The element at any index (`done[_]`, `plan[_].kernel_done`).
    at: Place,
    inst: usize,
    /// Stored at an index not known: no binding holds it, so a read of the element is
    /// where it goes.
    unbound: bool,
    /// Read other than as a wait list: where the value went is not followed.
    read: bool,
}

/// A raw event: a command's, or a user event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RawKey {
    Inst(usize),
    User(ObjId),
}

/// An access of the thread being followed that the host makes before a conflicting access
/// of a thread followed earlier, which that thread made past a pass of a host barrier: the
/// two are ordered only if the early one is complete where its thread arrives at that pass.
struct Deferred {
    early: usize,
    early_mode: Mode,
    late: usize,
    late_mode: Mode,
    buffer: ObjId,
    /// The barrier and the pass.
    at: (Place, usize),
}

/// Two conflicting accesses whose order rests on a user event the host has not set yet:
/// `gate`, the event's instance, is before one of them and not the other, `other`. With no
/// `gate`, the earlier one's wait list is not known: it may be behind whichever user event
/// the host sets next.
struct Gated {
    early: usize,
    early_mode: Mode,
    late: usize,
    late_mode: Mode,
    buffer: ObjId,
    gate: Option<usize>,
    other: usize,
}

/// A host thread spawned, as whoever joins it sees it.
#[derive(Clone, Debug)]
struct Thread {
    /// What it completed on the host when it ends.
    completed: BitSet,
    /// What it returns.
    value: AVal,
    /// What it stored into the spawning function's variables (`ev_k[d]` of an OpenMP
    /// loop's pass): the place, what it held when the thread was spawned, what it holds
    /// when the thread ends.
    stored: Vec<(Place, Option<AVal>, AVal)>,
    /// Where it left the buffers it moved or wrote (`State::residency`).
    residency: Vec<(ObjId, (usize, ObjId))>,
}

/// An offset as written: its text's hash, and whether it is a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OffsetKey {
    text: u64,
    number: bool,
    /// The launch of a kernel whose source is not seen: not known to write a part, but
    /// taken to write apart from the same statement's other launches.
    unseen: bool,
    /// A region from offset 0 whose size, as written, is `text` (a ghost row at the start
    /// of a buffer).
    from_zero: bool,
    /// The value where it is a number, else the hashes of the factors of the product it
    /// is (`rows + 1` and `row_bytes` of `(rows + 1) * row_bytes`; the first three).
    factors: [u64; 3],
}

fn text_hash(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// The factors of a product as written without spaces, split at each `*` outside
/// parentheses.
fn factors(text: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '*' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter()
}

impl OffsetKey {
    fn of(text: &str) -> OffsetKey {
        let value = text.parse::<u64>().ok();
        let mut keys = [0; 3];
        match value {
            Some(v) => keys[0] = v,
            None => {
                for (k, f) in keys.iter_mut().zip(factors(text)) {
                    *k = text_hash(f);
                }
            }
        }
        OffsetKey {
            text: text_hash(text),
            number: value.is_some(),
            unseen: false,
            from_zero: false,
            factors: keys,
        }
    }

    /// The region from offset 0 of a size, as written.
    fn from_zero(size: &str) -> OffsetKey {
        OffsetKey {
            from_zero: true,
            ..OffsetKey::of(size)
        }
    }

    /// Whether a region at this offset lies past the region from offset 0 that `zero` is:
    /// a number at least its size, its size itself (the band after `[0, rows * row_bytes)`
    /// at `rows * row_bytes`), or a product with its size as a factor (the rows after the
    /// first, `rows * row_bytes` past `row_bytes`; a count of rows is taken to be at least
    /// one).
    fn past(&self, zero: &OffsetKey) -> bool {
        if self.from_zero || self.unseen || !zero.from_zero {
            return false;
        }
        match (self.number, zero.number) {
            (true, true) => self.factors[0] >= zero.factors[0],
            (false, false) => self.text == zero.text || self.factors.contains(&zero.text),
            _ => false,
        }
    }

    /// The key of argument `arg` of the launch statement at `statement`, whose kernel
    /// source is not seen.
    fn unseen(statement: Span, arg: u64) -> OffsetKey {
        OffsetKey {
            unseen: true,
            ..OffsetKey::of(&format!("{statement:?} {arg}"))
        }
    }
}

/// How a command uses one buffer.
#[derive(Clone, Copy, Debug, Default)]
struct UseInfo {
    to_host: bool,
    /// The whole buffer from offset 0.
    whole: bool,
    /// The offset of the region moved, as written, when given.
    offset: Option<OffsetKey>,
    /// The region's offset, not a number as written, is 0 where the analysis computes it
    /// (`bytes * dst_row` of a helper given 0): no part past the start of a buffer another
    /// device may hold.
    at_zero: bool,
    /// Host data uploaded or filled.
    host: Option<HostId>,
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
    /// Its wait list names events a callee's parameter holds: the caller gave them.
    waits_given: bool,
    /// The frame whose code wrote the wait list, where it came in through parameters.
    wait_from: Option<usize>,
    /// The frame whose code wrote a migration's flags, where they came in through
    /// parameters.
    flags_from: Option<usize>,
    /// Its buffers or host data name what a callee's parameter holds.
    operands_given: bool,
    /// They name only what a method's `self` holds.
    receiver_only: bool,
    /// Its buffers name only what a method's `self` holds.
    buffers_own: bool,
    /// Its wait list is a parameter of the helper that made it, as given.
    list_given: bool,
    /// Its queue is what a callee's parameter other than `self` holds.
    queue_given: bool,
    /// The buffers it names through a callee's parameter.
    given: BTreeSet<ObjId>,
    /// The host thread that enqueued it, and how many times that thread had waited at each
    /// host barrier then.
    thread: Option<usize>,
    passed: Rc<BTreeMap<Place, usize>>,
    /// That thread had received a message from another thread before: what it makes may
    /// be ordered after anything another thread made, through the message.
    after_message: bool,
    /// The pass of the innermost loop it was made in.
    pass: Option<usize>,
    /// Its wait list is not known.
    waits_unknown: bool,
}

struct Analyzer<'f> {
    /// The file-local globals (`static GpuPlan plan[8];`) are the analyzed function's own:
    /// it is `main`.
    owns_statics: bool,
    /// Array elements released at an index not known, or whose event was not known
    /// (`done[_]`): events kept in those arrays' elements count as released where the
    /// function ends, since which were released depends on counts the analysis does not
    /// relate (`marks[n++]` made, `for (m = 0; m < n; m++)` released).
    released_arrays: BTreeSet<Place>,
    /// A wait list or a release is being read: the events it names stay where they are.
    reading_events: bool,
    /// The variables of the function and of every callee interpreted at a call site.
    vars: Vec<VarInfo>,
    /// Functions of the crate, for calls.
    index: &'f Index<'f>,
    /// Callees being interpreted, innermost last, with where their returns go.
    inlined: Vec<InlineCx>,
    /// Callee parameter variables standing for places of their callers.
    ext_alias: HashMap<Var, Place>,
    /// Fields of local structs that hold an outside value by name (`d.queues` of
    /// `let d = Domain { queues, .. }` with `queues` a parameter): that place's parts.
    field_alias: HashMap<Var, Vec<(String, Place)>>,
    /// Buffers standing for the element of a list of buffers at an index not known
    /// (`field[cur]` after a loop of ping-pong steps), with the members it may be.
    elements: HashMap<ObjId, Vec<ObjId>>,
    /// Per buffer, the devices (queues where the device is not known) that launched a
    /// kernel writing a part of it (its rows at a by-value or global work offset).
    part_writers: HashMap<ObjId, BTreeSet<ObjId>>,
    /// Kernels standing for whichever of several kernels a place holds after paths that
    /// picked different ones join (`let k = if even { &h.a_to_b } else { &h.b_to_a };`),
    /// with the kernels they may be.
    kernel_choices: HashMap<ObjId, Vec<ObjId>>,
    /// Per callee parameter: the frame whose code wrote what it was given (its caller's,
    /// or one further out where the caller passed on a parameter of its own).
    param_origin: HashMap<Var, usize>,
    objs: Vec<Obj>,
    hosts: Vec<String>,
    /// The frame each host data was made in (see [`Obj::made_in`]).
    host_made_in: Vec<usize>,
    insts: Vec<Inst>,
    /// Per command (by id): its latest instance.
    latest: HashMap<usize, usize>,
    loops: Vec<LoopCx>,
    /// The loop passes run so far (see [`LoopCx::serial`]).
    passes_run: usize,
    /// The program has made a user event: a command whose wait list is not known may be
    /// held behind one.
    user_events_made: bool,
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
    /// A number for each command as written and the call site it was reached through
    /// (`Analyzer::site_key`).
    site_keys: HashMap<(usize, Option<(usize, usize)>), usize>,
    kernels: &'f mut Kernels,
    /// The span of the statement being interpreted.
    cur_span: Span,
    /// Where each user event was made.
    user_sites: HashMap<ObjId, Span>,
    /// States at each `return`, with the span of an explicit one.
    returns: Vec<(State, Option<Span>)>,
    /// Per kernel: its default queue (ocl).
    default_queue: HashMap<ObjId, ObjId>,
    /// Uploads of host data into a whole buffer made by host threads, by buffer, data and
    /// its version, with the thread: another thread's upload of the same bytes repeats it.
    thread_uploads: HashMap<(ObjId, HostId, u32), (usize, Init)>,
    /// Kernels built with a default global work offset that is not zero (ocl's
    /// `Kernel::builder().global_work_offset(start)`): their launches are from an offset.
    offset_kernels: HashSet<ObjId>,
    /// Lists collected from out-of-order queues made per pass (`map(|d| Queue::new(..,
    /// Some(ooo))).collect()`).
    ooo_lists: HashSet<Place>,
    /// Per kernel from outside: the buffers the crate built it with, by argument index.
    built_args: HashMap<ObjId, Vec<(u64, ObjId)>>,
    /// Per kernel: the names of its arguments, by index (ocl named arguments).
    arg_names: HashMap<ObjId, Vec<(String, u64)>>,
    /// Per kernel made by a builder: its program's source, when visible.
    program_sources: HashMap<ObjId, Option<String>>,
    /// Host threads spawned.
    threads: Vec<Thread>,
    /// Statements interpreted in unrolled loops so far.
    unrolled: usize,
    /// Whether a test of a counter whose parity is known decided on it (`t % 2` in the
    /// passes of a loop that stand for its odd or its even passes).
    parity_used: bool,
    /// Unrolled loops around the statement being interpreted.
    unroll_depth: usize,
    /// Buffer accesses made so far (`commands::Touch::order`).
    touches: usize,
    /// Per object: the member or field place the code last named it by (`queues[1]`).
    shown: HashMap<ObjId, String>,
    /// Objects named for what made them (ocl's `pro_que`, `pro_que.queue()`) until the code
    /// binds them to a variable of its own.
    placeholder: HashSet<ObjId>,
    /// Parameters of the callees interpreted at call sites: a name only the callee knows.
    callee_params: HashSet<Var>,
    /// The callee parameters that are a method's `self`.
    callee_receivers: HashSet<Var>,
    /// Locals holding a whole list a callee was given (`let mut deps = wait.to_vec();`),
    /// extended or not: waiting for them waits for what the caller chose.
    param_copies: HashSet<Var>,
    /// The analyzed function's parameters: what is stored into them is the caller's.
    params: HashSet<Var>,
    /// Per call frame: its caller's frame, the call and the callee.
    frame_sites: HashMap<usize, (usize, Span, String)>,
    /// Raw events a call returned to its caller, by the outermost such call's frame: a
    /// leak of one is the caller's (it dropped what it was given).
    returned_from: HashMap<usize, usize>,
    /// Per instance: the variable its event was written to.
    event_home: HashMap<usize, Var>,
    /// Parts of host data at a constant offset (`h + d * n` where `d == 0`), by the data
    /// and the offset: the same bytes wherever named.
    host_slices: HashMap<(HostId, u64), HostId>,
    /// The data each such part is part of.
    host_root: HashMap<HostId, HostId>,
    /// The call frames of named closures: what their commands use, the caller gave them
    /// or they captured.
    closure_frames: HashSet<usize>,
    /// Per call frame: the command instances whose events its arguments held.
    frame_events: HashMap<usize, BTreeSet<usize>>,
    /// The call frames of callees that take no events: no parameter for them, none given.
    eventless_frames: HashSet<usize>,
    /// What each part of an outside value was found to be, on whichever path first named it
    /// (`self.b`): the same object on every path.
    found: BTreeMap<Place, AVal>,
    /// Objects that stand for values from outside the analysis (parameters, their parts,
    /// results of unknown calls): code the analysis does not see may hold them.
    outside: HashSet<ObjId>,
    /// Buffers made here from no host data, with the count of commands that wrote buffers
    /// the analysis could not name, when each was made.
    undefined: HashMap<ObjId, usize>,
    /// Buffers made with `CL_MEM_USE_HOST_PTR`.
    in_place: HashSet<ObjId>,
    /// Buffers made with `CL_MEM_READ_ONLY`: a kernel whose use of one is not known only
    /// reads it.
    read_only: HashSet<ObjId>,
    /// Commands so far that may have written buffers the analysis could not name.
    unknown_writes: usize,
    /// The host data standing for each constant fill pattern and range, by key.
    patterns: HashMap<String, HostId>,
    /// Uploads of the bytes their buffer already held (CLM004): they change nothing. Each
    /// with the uploads of those bytes so far, itself last, ascending.
    rewrites: HashMap<usize, Rc<Vec<usize>>>,
    /// Per upload command, invocation and buffer: whether its latest run wrote data the
    /// buffer did not hold. A reset at the top of a loop (`fill(0)` before the kernels that
    /// count into the buffer) repeats only in its first pass, and is no CLM004.
    upload_fresh: HashMap<(usize, usize, ObjId), bool>,
    /// Unordered pairs reported so far, as (producer, consumer) instances.
    unordered: Vec<(usize, usize)>,
    /// The variable that holds each global (file-level) variable, by its key: the first
    /// variable of that key the analysis met; the others stand for it.
    globals: HashMap<String, Var>,
    /// Sub-buffers, with the buffer each is a region of.
    parents: HashMap<ObjId, ObjId>,
    /// Per host barrier (the place that holds it) and pass (the first wait on it, the
    /// second, ..): what the threads that arrived there so far knew complete.
    rendezvous: HashMap<(Place, usize), BitSet>,
    /// Conflicting accesses of two threads whose order rests on a barrier pass the thread
    /// being followed has not reached yet (`Analyzer::settle_races`).
    deferred: Vec<Deferred>,
    /// The instance that stands for each user event: no command, complete once the host
    /// sets the event's status ([`Stmt::Signal`]). A command that waits for the event has
    /// it before it, as every command after that command does.
    user_insts: HashMap<ObjId, usize>,
    /// Those of them whose event the host has not set yet.
    open_gates: BTreeSet<usize>,
    /// Conflicting accesses one of which waits, directly or through commands before it,
    /// for a user event not set yet: ordered if the other is complete where the host sets
    /// it (`Analyzer::signal`).
    gated: Vec<Gated>,
    /// The host thread being followed (`None`: the function's own), threads spawned so
    /// far, and how many times the thread being followed has waited at each barrier.
    thread_now: Option<usize>,
    spawned: usize,
    /// The host threads (`None`: the function's own) that have received a message from
    /// another thread ([`Stmt::Received`]).
    messaged: BTreeSet<Option<usize>>,
    passed: Rc<BTreeMap<Place, usize>>,
    /// The one object that stands for every event of a command not followed.
    untracked_event: Option<ObjId>,
    /// The queue that stands for every queue not known, for commands whose raw event must
    /// still be released ([`Analyzer::push_command`]).
    unknown_queue: Option<ObjId>,
    /// Raw events a walk's passes gave to the collection it builds (`.map(|..| { let ev =
    /// launch(..)?; Ok(ev) }).collect()`): the next pass's `ev` loses none of them.
    collecting: BTreeSet<RawKey>,
    /// The lists whose members the last loop run pass by pass walked as places of the list
    /// (a loop's struct item is another name for the member): what it stored into their
    /// fields is in the members, not to be forgotten after it.
    walked_in_place: HashSet<Place>,
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
        field_alias: HashMap::new(),
        elements: HashMap::new(),
        part_writers: HashMap::new(),
        kernel_choices: HashMap::new(),
        param_origin: HashMap::new(),
        objs: Vec::new(),
        hosts: Vec::new(),
        host_made_in: Vec::new(),
        insts: Vec::new(),
        latest: HashMap::new(),
        loops: Vec::new(),
        passes_run: 0,
        user_events_made: false,
        default_device: None,
        event_vars: BTreeMap::new(),
        frames: 0,
        inlined_stmts: 0,
        raw: Vec::new(),
        seen: HashSet::new(),
        site_keys: HashMap::new(),
        kernels,
        cur_span: Span::default(),
        user_sites: HashMap::new(),
        returns: Vec::new(),
        default_queue: HashMap::new(),
        thread_uploads: HashMap::new(),
        offset_kernels: HashSet::new(),
        built_args: HashMap::new(),
        ooo_lists: HashSet::new(),
        arg_names: HashMap::new(),
        program_sources: HashMap::new(),
        threads: Vec::new(),
        unrolled: 0,
        parity_used: false,
        unroll_depth: 0,
        touches: 0,
        shown: HashMap::new(),
        placeholder: HashSet::new(),
        callee_params: HashSet::new(),
        callee_receivers: HashSet::new(),
        param_copies: HashSet::new(),
        params: func.params.iter().copied().collect(),
        frame_sites: HashMap::new(),
        returned_from: HashMap::new(),
        event_home: HashMap::new(),
        host_slices: HashMap::new(),
        host_root: HashMap::new(),
        closure_frames: HashSet::new(),
        frame_events: HashMap::new(),
        eventless_frames: HashSet::new(),
        found: BTreeMap::new(),
        outside: HashSet::new(),
        unordered: Vec::new(),
        rewrites: HashMap::new(),
        upload_fresh: HashMap::new(),
        patterns: HashMap::new(),
        undefined: HashMap::new(),
        in_place: HashSet::new(),
        read_only: HashSet::new(),
        unknown_writes: 0,
        globals: HashMap::new(),
        parents: HashMap::new(),
        rendezvous: HashMap::new(),
        deferred: Vec::new(),
        user_insts: HashMap::new(),
        open_gates: BTreeSet::new(),
        gated: Vec::new(),
        thread_now: None,
        messaged: BTreeSet::new(),
        spawned: 0,
        passed: Rc::default(),
        untracked_event: None,
        unknown_queue: None,
        collecting: BTreeSet::new(),
        walked_in_place: HashSet::new(),
        // Nothing runs after `main` returns but what the crate registers to run at exit: a
        // raw event `main` leaves in a `static` of its file is lost.
        owns_statics: func.name == "main" && !index.crate_kernels().exit_handler(),
        released_arrays: BTreeSet::new(),
        reading_events: false,
    };
    if trace::on() {
        trace::line(format!("fn {}", func.name));
    }
    let mut st = State::default();
    for &p in &func.params {
        let info = &func.vars[p];
        // A list of events from the caller: its members are events of commands enqueued
        // before the function was entered.
        let v = match info.hint {
            TypeHint::EventList => AVal::External,
            hint => a.hinted(hint, &info.name),
        };
        st.env.insert(Place::var(p), v);
    }
    a.enter_globals(&mut st, 0);
    let end = a.block(&func.body, st);
    a.settle_gates(None, None);
    // Raw events still held where the function ends, on any path, leak; not where `main`
    // returns because a call failed (`if (rc != CL_SUCCESS) return 1;`): the process ends
    // there. A function that returns its error to a caller still leaks what it held.
    let is_main = func.name == "main";
    let finals: Vec<(State, Option<Span>)> = end
        .into_iter()
        .map(|st| (st, None))
        .chain(std::mem::take(&mut a.returns))
        .filter(|(st, _)| !(is_main && st.error_exit))
        .collect();
    let released_arrays = std::mem::take(&mut a.released_arrays);
    let held = |st: &State, key: RawKey| {
        let released = |e: &InArray| {
            RawKey::Inst(e.inst) == key && released_arrays.iter().any(|r| r.overlaps(&e.at))
        };
        st.live_raw.contains(&key) && !st.in_arrays.iter().any(released)
    };
    // Each event still held somewhere, with the exits it is held at.
    let mut leaks: BTreeMap<RawKey, Vec<Option<Span>>> = BTreeMap::new();
    for (st, ret) in &finals {
        for &key in st.live_raw.iter().filter(|&&k| held(st, k)) {
            leaks.entry(key).or_default().push(*ret);
        }
    }
    // The function's own end: where its body runs off or returns as its last statement.
    let last_return = match func.body.last() {
        Some(Stmt::Return { span, .. }) => *span,
        _ => None,
    };
    let normal = |ret: &Option<Span>| ret.is_none() || *ret == last_return;
    for (key, rets) in leaks {
        // Let go on the function's normal way out and held where an early `return` leaves:
        // that return is where it leaks.
        let let_go = (finals.iter()).any(|(st, ret)| normal(ret) && !held(st, key));
        let early = match let_go && !rets.iter().any(normal) {
            true => rets.first().copied().flatten(),
            false => None,
        };
        a.leak(key, None, early);
    }
    a.settle_races(None, &BitSet::default());
    a.finish()
}
