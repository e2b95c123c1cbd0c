//! The host IR: OpenCL objects, commands and host synchronization, independent of the
//! source language. A frontend lowers each function to a [`Function`]; the analysis
//! interprets it. Nothing here names a syn type.

use std::fmt;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: usize,
    pub start: usize,
    pub end: usize,
}

/// `CL_MIGRATE_MEM_OBJECT_HOST`'s bit (OpenCL 3.0 `cl.h`: `(1 << 0)`).
pub const MIGRATE_TO_HOST: u64 = 1;

/// The bits of `CL_MAP_WRITE` and `CL_MAP_WRITE_INVALIDATE_REGION` (OpenCL 3.0 `cl.h`:
/// `(1 << 1)`, `(1 << 2)`): a mapping the host writes through, whose unmap writes the buffer.
pub const MAP_WRITE_BITS: u64 = 6;

/// Those flags' names in the C API (the Rust bindings' other spellings are the Rust
/// frontend's).
pub const MAP_WRITE_NAMES: &[&str] = &["CL_MAP_WRITE", "CL_MAP_WRITE_INVALIDATE_REGION"];

/// The names the C API and the bindings give `CL_MIGRATE_MEM_OBJECT_HOST` (ocl's
/// `MemMigrationFlags::OBJECT_HOST`, `flags::MIGRATE_MEM_OBJECT_HOST`).
pub const HOST_FLAG_NAMES: &[&str] = &[
    "CL_MIGRATE_MEM_OBJECT_HOST",
    "MIGRATE_MEM_OBJECT_HOST",
    "OBJECT_HOST",
];

/// The value of a migration flag by the names the C API and the bindings give it; `None`
/// for any other name.
pub fn migration_flag(name: &str) -> Option<u64> {
    match name {
        n if HOST_FLAG_NAMES.contains(&n) => Some(MIGRATE_TO_HOST),
        "CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED"
        | "MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED"
        | "OBJECT_CONTENT_UNDEFINED" => Some(2),
        _ => None,
    }
}

/// A local variable of a lowered function (an index into [`Function::vars`]).
pub type Var = usize;

/// One step from a variable to a part of it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proj {
    Field(String),
    /// `x[3]`: names one member.
    Index(u64),
    /// `x[i]`: some member; never proves two places equal or different.
    AnyIndex,
    /// `x[i]` for a local `i`: the member `i` holds when the analysis knows it (a loop
    /// counter), else some member.
    Var(Var),
    /// `x.last()`: the last member where the analysis knows the list's members, else some
    /// member.
    Last,
    /// `x[self.cur]`: the member at the integer another place holds, where the analysis
    /// knows it, else some member.
    At(Box<Place>),
    /// `kernels["gain"]` of a map made from (key, value) pairs: the value of the pair with
    /// that key where the analysis knows the pairs, else some member.
    Key(String),
}

/// A variable or a part of one: `queues[1]`, `self.halo`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub var: Var,
    pub proj: Vec<Proj>,
}

impl Place {
    pub fn var(var: Var) -> Self {
        Place {
            var,
            proj: Vec::new(),
        }
    }

    /// Whether the place names one definite object (no non-constant index).
    pub fn is_definite(&self) -> bool {
        !self.proj.iter().any(|p| {
            matches!(
                p,
                Proj::AnyIndex | Proj::Var(_) | Proj::Last | Proj::At(_) | Proj::Key(_)
            )
        })
    }

    /// The part of the place before its first non-constant index: the list whose some
    /// member it names (`ev` of `ev[_]`, `devs[1].bufs` of `devs[1].bufs[_].x`).
    pub fn definite_base(&self) -> Place {
        Place {
            var: self.var,
            proj: (self.proj.iter())
                .take_while(|p| {
                    !matches!(
                        p,
                        Proj::AnyIndex | Proj::Var(_) | Proj::Last | Proj::At(_) | Proj::Key(_)
                    )
                })
                .cloned()
                .collect(),
        }
    }

    /// The place with every index made one not known: the members it may name
    /// (`done[_]` of `done[2]`, `plan[_].kernel_done` of `plan[i].kernel_done`).
    pub fn at_any_index(&self) -> Place {
        let proj = (self.proj.iter())
            .map(|p| match p {
                Proj::Field(_) => p.clone(),
                _ => Proj::AnyIndex,
            })
            .collect();
        Place {
            var: self.var,
            proj,
        }
    }

    /// Whether one place is a part of the other, or the same.
    pub fn overlaps(&self, o: &Place) -> bool {
        let n = self.proj.len().min(o.proj.len());
        self.var == o.var && self.proj[..n] == o.proj[..n]
    }
}

/// What the frontend knows of a variable's type from annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeHint {
    Unknown,
    Context,
    Device,
    Queue,
    Buffer,
    Kernel,
    Program,
    Event,
    /// A list of raw events (`&[cl_event]`, `Vec<cl_event>`).
    EventList,
    Host(HostKind),
    Scalar,
}

impl TypeHint {
    /// Whether the hint is one of the API's handles (a context, device, queue, buffer,
    /// kernel, program or event).
    pub fn is_handle(self) -> bool {
        matches!(
            self,
            TypeHint::Context
                | TypeHint::Device
                | TypeHint::Queue
                | TypeHint::Buffer
                | TypeHint::Kernel
                | TypeHint::Program
                | TypeHint::Event
        )
    }
}

/// How host data was made; decides whether it can be a by-value kernel argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostKind {
    Vec,
    /// An array; `len` when the length is a known constant.
    Array {
        len: Option<u64>,
    },
    Slice,
    /// A raw pointer into host memory.
    Pointer,
}

impl HostKind {
    /// Whether a value of this kind could be meant as a by-value vector or struct
    /// argument (`float4` from `[f32; 4]`).
    pub fn could_be_by_value(self) -> bool {
        match self {
            HostKind::Array { len } => len.is_none_or(|n| n <= 16),
            _ => false,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            HostKind::Vec => "a host `Vec`",
            HostKind::Array { .. } => "a host array",
            HostKind::Slice => "a host slice",
            HostKind::Pointer => "a pointer into host memory",
        }
    }
}

/// A value computed by an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// The value of a place (`x`, `&x`, `x.clone()`, `x.get()`: same object).
    Place(Place),
    /// Host data; `base` when it is part of, or points into, another variable's data.
    Host {
        kind: HostKind,
        base: Option<Place>,
    },
    /// `h + off` of host data `h`: the bytes at an offset into it. Where the offset is a
    /// constant the analysis knows, the same bytes wherever named (`h + d * n` in the pass
    /// with `d == 0`); else data of its own.
    HostAt {
        base: Place,
        offset: Box<Value>,
        /// The expression as written, to name the data by.
        text: String,
    },
    Scalar,
    /// An integer literal or constant.
    Int(u64),
    /// A null pointer (`ptr::null_mut()`).
    Null,
    /// An array or `vec!` literal of values: a wait list when it holds events.
    List(Vec<Value>),
    /// A struct literal's fields (`Solver { queue, buf }`).
    Struct(Vec<(String, Value)>),
    /// A new OpenCL object.
    New(NewObject),
    /// A string known to the lowering (a literal or a constant): kernel names and sources.
    Str(String),
    /// Integer arithmetic or a comparison (`1 - d`, `i + 1 < n`): its value where the
    /// analysis knows both sides (a comparison gives 1 or 0), else a scalar.
    Arith {
        op: ArithOp,
        lhs: Box<Value>,
        rhs: Box<Value>,
    },
    /// How many members a list has (`queues.len()`): an integer where the analysis knows
    /// the list, else a scalar.
    Len(Box<Value>),
    /// `count` members of a list from member `from` on (`ndev - 1, &ev[1]` of a wait list):
    /// those members where the analysis knows the count, else a value not known.
    Members {
        list: Place,
        from: u64,
        count: Box<Value>,
    },
    /// `vec![ptr::null_mut(); n]` of handles (a `Vec<cl_event>` to fill in later): `count`
    /// empty slots where the analysis knows how many (`n` of a list it walks as two members),
    /// else a vector of data not known.
    Slots(Box<Value>),
    Unknown,
}

/// An operator of [`Value::Arith`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl ArithOp {
    /// The operator a C binary operator names.
    pub fn of(op: &str) -> Option<ArithOp> {
        Some(match op {
            "+" => ArithOp::Add,
            "-" => ArithOp::Sub,
            "*" => ArithOp::Mul,
            "/" => ArithOp::Div,
            "%" => ArithOp::Rem,
            "&" => ArithOp::BitAnd,
            "|" => ArithOp::BitOr,
            "^" => ArithOp::BitXor,
            "<<" => ArithOp::Shl,
            ">>" => ArithOp::Shr,
            "==" => ArithOp::Eq,
            "!=" => ArithOp::Ne,
            "<" => ArithOp::Lt,
            "<=" => ArithOp::Le,
            ">" => ArithOp::Gt,
            ">=" => ArithOp::Ge,
            _ => return None,
        })
    }

    /// The operator with its operands swapped (`c < x` is `x > c`), for the operators that
    /// have one.
    pub fn mirrored(self) -> Option<ArithOp> {
        Some(match self {
            ArithOp::Add | ArithOp::Eq | ArithOp::Ne => self,
            ArithOp::Lt => ArithOp::Gt,
            ArithOp::Le => ArithOp::Ge,
            ArithOp::Gt => ArithOp::Lt,
            ArithOp::Ge => ArithOp::Le,
            _ => return None,
        })
    }

    /// `a op b`; `None` where it overflows or divides by zero.
    pub fn apply(self, a: u64, b: u64) -> Option<u64> {
        match self {
            ArithOp::Add => a.checked_add(b),
            ArithOp::Sub => a.checked_sub(b),
            ArithOp::Mul => a.checked_mul(b),
            ArithOp::Div => a.checked_div(b),
            ArithOp::Rem => a.checked_rem(b),
            ArithOp::BitAnd => Some(a & b),
            ArithOp::BitOr => Some(a | b),
            ArithOp::BitXor => Some(a ^ b),
            ArithOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
            ArithOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
            ArithOp::Eq => Some(u64::from(a == b)),
            ArithOp::Ne => Some(u64::from(a != b)),
            ArithOp::Lt => Some(u64::from(a < b)),
            ArithOp::Le => Some(u64::from(a <= b)),
            ArithOp::Gt => Some(u64::from(a > b)),
            ArithOp::Ge => Some(u64::from(a >= b)),
        }
    }
}

/// An OpenCL object created by the program.
#[derive(Clone, Debug, PartialEq)]
pub enum NewObject {
    Context,
    Queue {
        device: Option<Box<Value>>,
        out_of_order: bool,
    },
    Buffer {
        /// `CL_MEM_COPY_HOST_PTR` or `CL_MEM_USE_HOST_PTR` with this host data.
        host_init: Option<Box<Value>>,
        /// Made from no host data (a null host pointer): its contents are undefined until
        /// a command writes it.
        undefined: bool,
        /// `CL_MEM_USE_HOST_PTR`: the host's memory is the buffer's, which the host may
        /// read in place once the buffer is there.
        in_place: bool,
        /// `CL_MEM_READ_ONLY`: "writing to a buffer [..] created with CL_MEM_READ_ONLY
        /// inside a kernel is undefined", so kernels only read it.
        read_only: bool,
    },
    /// A buffer that is a region of `parent` (`clCreateSubBuffer`).
    SubBuffer {
        parent: Box<Value>,
    },
    Program {
        /// OpenCL C source text when it is visible.
        source: Option<String>,
        /// Where the text is where the frontend does not know it: a helper's parameter
        /// (`fn build(ctx: cl_context, src: &str)`), whose string its caller gives.
        source_at: Option<Place>,
    },
    Kernel {
        program: Box<Value>,
        name: Option<String>,
        /// Where the name is where the frontend does not know it: a helper's parameter
        /// (`fn kernel(p: cl_program, name: &str)`), whose string its caller gives.
        name_at: Option<Place>,
    },
    /// `ExecuteKernel::new(&kernel)`: a launch being built.
    Launch {
        kernel: Box<Value>,
    },
    /// A user event; `raw` when the program must release it.
    UserEvent {
        raw: bool,
    },
    /// An owning event that no command has produced yet (`Event::empty()`).
    EmptyEvent,
    /// A list of devices from outside (`get_all_devices(..)`).
    Devices,
}

/// What a command does to a buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
    /// A migration; `to_host` for `CL_MIGRATE_MEM_OBJECT_HOST`.
    Migrate {
        to_host: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommandKind {
    Kernel,
    Write,
    Read,
    Fill,
    Copy,
    Migrate,
    Marker,
    Barrier,
    Map,
    Unmap,
}

impl CommandKind {
    /// Whether the command runs on a device (as opposed to moving data to or from the host).
    pub fn is_device_use(self) -> bool {
        matches!(
            self,
            CommandKind::Kernel | CommandKind::Fill | CommandKind::Copy
        )
    }

    /// Whether the command moves bytes of a range it is given: a read, write, fill or copy.
    pub fn is_transfer(self) -> bool {
        matches!(
            self,
            CommandKind::Read | CommandKind::Write | CommandKind::Fill | CommandKind::Copy
        )
    }
}

/// Whether a command blocks the host until it completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocking {
    Yes,
    No,
    Unknown,
}

/// One buffer a command touches.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferUse {
    pub buffer: Value,
    pub access: Access,
    /// The whole buffer from offset 0 (a full upload), when known.
    pub whole: bool,
    /// The offset of the region the command moves, as written (`0`, `r0 * row_bytes`), when
    /// it is given one: regions from offsets written differently need not overlap.
    pub offset: Option<String>,
    /// For a region from offset 0 that is not one element, or from an offset that is not
    /// a number as written, its size as written (`row_bytes`): a region at an offset that
    /// is a multiple of it (`rows * row_bytes`) lies past it.
    pub size: Option<String>,
    /// The offset's value, where it is not a number as written (`bytes * dst_row` of a
    /// helper given `dst_row` 0): the region's offset where the analysis knows it.
    pub offset_value: Option<Value>,
    /// Host data a write uploads or a read fills.
    pub host: Option<Value>,
    /// A fill's pattern and range, when they are constants.
    pub pattern: Option<FillPattern>,
}

/// A fill's pattern and range: two fills with the same key write the same bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct FillPattern {
    /// The pattern argument as written.
    pub text: String,
    pub key: String,
}

/// The span of one argument, for fixes and labels.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpan {
    pub span: Span,
    pub text: String,
}

/// One enqueue.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub id: usize,
    /// The API called (`enqueue_migrate_mem_object`).
    pub api: String,
    /// The binding the API belongs to (`opencl3`, `ocl-core`).
    pub binding: String,
    pub kind: CommandKind,
    pub queue: Value,
    /// The queue expression as written (`cmdq_dev0`).
    pub queue_arg: Option<ArgSpan>,
    pub buffers: Vec<BufferUse>,
    /// For a launch: the kernel or the `ExecuteKernel` being launched.
    pub kernel: Option<Value>,
    /// `None` when the wait list is not known.
    pub waits: Option<Vec<Value>>,
    pub wait_arg: Option<ArgSpan>,
    pub blocking: Blocking,
    /// The flags argument of a migration, as written.
    pub flags_arg: Option<ArgSpan>,
    /// A migration's flags where their text does not decide them (a helper's parameter):
    /// the migration is to the host where the value is a number with
    /// `CL_MIGRATE_MEM_OBJECT_HOST`'s bit set.
    pub flags: Option<Box<Value>>,
    /// The command's event is a raw `cl_event` the program must release.
    pub raw_event: bool,
    /// A launch given a global work offset (`cl::NDRange(0, row0)`, a non-null
    /// `global_work_offset`): its work-items are the ones from that offset.
    pub work_offset: bool,
    pub span: Span,
}

/// A builder-style operation (ocl). What it does depends on what the receiver turns out
/// to be; on anything else it is an unknown call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Starts a command on a buffer or kernel (`buffer.cmd()`, `kernel.cmd()`).
    Cmd,
    /// Starts or turns a command into this kind: `write(&src)`, `read(&mut dst)`,
    /// `fill(pattern, len)`, `copy(&dst, offset, len)`.
    Kind(CommandKind),
    /// The queue of a command, or the default queue of a buffer, kernel or builder.
    Queue,
    /// Adds to the wait list of a command (`ewait`).
    Wait,
    /// Where the command's event goes (`enew`).
    NewEvent,
    /// Whether the command blocks (`block(false)`).
    Block,
    /// Enqueues the command (`enq`), or a kernel on its default queue.
    Enq,
    /// Enqueues the command without blocking, for a future (`enq_async`).
    EnqAsync,
    /// A map for writing (`map().write()`, `map().write_invalidate()`).
    MapWrite,
    /// Starts a buffer, kernel or queue-and-program builder.
    Builder(BuilderKind),
    /// Host data a new buffer is made from (`copy_host_slice`).
    HostData,
    /// A value a new buffer is filled with; it blocks unless a fill event is given.
    FillVal,
    /// An event for the fill of a new buffer (`fill_event`).
    FillEvent,
    /// The flags of a new buffer (`flags(MemFlags::new().read_only())`).
    Flags,
    /// Appends a kernel argument; the first argument is its name when named.
    Arg { named: bool },
    /// The program or its source (`program(&p)`, `src(SRC)`).
    Program,
    /// The kernel's name (`name("k")`).
    Name,
    /// Builds the object (`build()`).
    Build,
    /// A buffer from a queue-and-program bundle (`create_buffer`).
    CreateBuffer,
    /// A kernel builder from a queue-and-program bundle (`kernel_builder("k")`).
    KernelBuilder,
    /// The bundle's queue (`pro_que.queue()`).
    GetQueue,
    /// The offset of a read's or write's region (`offset(lo)`), or a launch's global work
    /// offset (`global_work_offset(row0)`, `gwo(..)`).
    Offset,
    /// Returns the receiver (setters that change nothing the analysis needs).
    Same,
}

/// What a loop walks: the members of a list, or the integers `0..n`.
#[derive(Clone, Debug, PartialEq)]
pub enum EachSource {
    /// `for x in &list`, `list.iter()`, `[a, b, c]`.
    Members(Value),
    /// `for i in 0..n`.
    Upto(Value),
    /// `for i in from..list.len()`.
    UptoLen(u64, Value),
    /// `for i in from..to`: `1..n`, `(i = 1; i < n; i++)`.
    Range(Value, Value),
    /// The members of a list from an index on: `&list[1..]`, `list.iter().skip(1)`.
    MembersFrom(Value, u64),
    /// Pieces of host data (`data.chunks(n)`, `chunks_mut`): each item is host data of its
    /// own, how many is not known.
    Pieces(Value),
    /// The walk of the source, last first: `(1..n).rev()`, `queues.iter().rev()`.
    Rev(Box<EachSource>),
    /// Some members of a list, in order, which ones not known:
    /// `frames.iter().skip(id).step_by(stride)`. Each item is some member.
    Among(Value),
}

/// What a loop binds on each iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EachPart {
    /// The current member of source `n` (zipped sources advance together).
    Member(usize),
    /// The iteration's number (`enumerate`).
    Count,
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuilderKind {
    Buffer,
    Kernel,
    ProQue,
    Program,
}

/// A statement of the host IR.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `place = value`.
    Assign {
        dst: Place,
        value: Value,
        span: Span,
    },
    /// An enqueue; its event goes to `event` when bound.
    Enqueue {
        cmd: Command,
        event: Option<Place>,
    },
    /// `kernel.set_arg(index, &value)`; `name` for arguments set by name.
    SetArg {
        kernel: Value,
        index: Option<u64>,
        /// The local that holds the index when it is not a constant (a helper's parameter):
        /// the index when the analysis knows the local's value.
        index_at: Option<Place>,
        name: Option<String>,
        value: Value,
        /// The bytes the argument passes, where its type or `arg_size` says.
        size: Option<u64>,
        arg: ArgSpan,
        span: Span,
    },
    /// `launch.set_arg(&value)` on an `ExecuteKernel`.
    LaunchArg {
        launch: Value,
        value: Value,
        size: Option<u64>,
        arg: ArgSpan,
        span: Span,
    },
    /// `launch.set_wait_event(&e)` / `set_event_wait_list(&list)`.
    LaunchWait {
        launch: Value,
        events: Value,
    },
    /// `list.push(event)`.
    Push {
        list: Place,
        item: Value,
    },
    /// The host waits for every command of a queue.
    Finish {
        queue: Value,
        span: Span,
    },
    /// The host waits for events (`Event::wait`, `wait_for_events`).
    Wait {
        events: Value,
        span: Span,
    },
    /// Raw events are released, or handed to an owner that releases them.
    Release {
        events: Value,
        span: Span,
    },
    /// The host sets a user event's status (`clSetUserEventStatus`, `set_complete()`): the
    /// commands that wait for it may start from here on.
    Signal {
        event: Value,
        span: Span,
    },
    /// A builder-style call (ocl): `op` on `recv` with `args`, result in `dst`.
    Op {
        op: Op,
        recv: Value,
        args: Vec<Value>,
        arg_spans: Vec<ArgSpan>,
        /// For an argument op (`.arg(&n)`), the bytes the argument passes where known.
        arg_bytes: Option<u64>,
        dst: Place,
        /// The command id of what `enq`/`build` enqueues.
        id: usize,
        span: Span,
    },
    /// Something unknown happened to these values: forget what is known of them.
    Forget {
        values: Vec<Value>,
        span: Span,
    },
    /// Exactly one of the arms runs.
    Branch(Vec<Vec<Stmt>>),
    /// The body runs zero or more times.
    Loop(Vec<Stmt>),
    /// A call of a function or method that may be defined in the crate, by its qualified
    /// name in the crate (`helper`, `gpu::upload`, `Halo::step`); `recv` is the method's
    /// receiver. The analysis follows it when the crate index holds the callee, and
    /// forgets the arguments when it does not.
    Call {
        callee: String,
        recv: Option<Value>,
        args: Vec<Value>,
        dst: Place,
        span: Span,
    },
    /// A loop over lists or a range: the body runs once per member when the analysis knows
    /// the lists, else as a [`Stmt::Loop`] whose bindings are "some member". `tail` is the
    /// body's value; the values of all iterations, in order, go to `dst` (`map(..).collect()`).
    ForEach {
        sources: Vec<EachSource>,
        binds: Vec<(Place, EachPart)>,
        body: Vec<Stmt>,
        tail: Value,
        dst: Option<Place>,
    },
    /// A host thread runs `body` (`thread::spawn`, `Builder::spawn`, a scope's `spawn`):
    /// its commands are unordered with the spawning thread's later ones until a join.
    /// `handle` holds the thread; joining it gives `value`.
    Spawn {
        body: Vec<Stmt>,
        value: Value,
        handle: Place,
        span: Span,
    },
    /// A closure's body run where it is called: a `return` in it leaves the closure, whose
    /// value (`value` at its end, or what a `return` gives) goes to `dst`. A closure bound
    /// to a local and called by its `name` is a call frame, as a helper's call is. `params`:
    /// the variables its call bound to the arguments just before (a C++ lambda's parameters):
    /// what comes through them the caller chose, as for a helper's parameters.
    Closure {
        name: Option<String>,
        params: Vec<Var>,
        body: Vec<Stmt>,
        value: Value,
        dst: Place,
        span: Span,
    },
    /// The path goes on only where `value` is an `Option`'s `Some` (`some`) or its `None`:
    /// a `match` arm or `if let` of that pattern; for an integer, where it is nonzero
    /// (`some`) or zero: an arm of a C `if`.
    Assume {
        value: Value,
        some: bool,
    },
    /// The call that made `value` failed on this path (a `match` arm `Err(_)`), or the
    /// commands `commands` (by id) that a C status test is on (`if (err != CL_SUCCESS)`
    /// after `err = clEnqueueWriteBuffer(..)`): they made no event and wrote nothing.
    Failed {
        value: Value,
        commands: Vec<usize>,
    },
    /// The host thread waits at a barrier until every thread that uses it arrives
    /// (`pthread_barrier_wait(&b)`): what the other threads knew complete when they arrived,
    /// it knows complete.
    Rendezvous {
        barrier: Value,
    },
    /// A message received from another host thread (`rx.recv()` of a channel): which
    /// thread sent it, and after which of its commands, is not known.
    Received,
    /// `handle.join()`: the thread's host work happened before; its value goes to `dst`.
    /// An unknown handle joins every thread spawned so far.
    Join {
        handle: Value,
        dst: Place,
    },
    Break,
    Continue,
    /// The path handles a failed status check (`if (err != CL_SUCCESS) return err;`) and
    /// leaves the function next: a caller that follows the function goes on from its other
    /// exits where it has any, as a caller checking the status does.
    ErrorExit,
    /// Leaves the function with a value (the tail expression, or `return x`). `span` is
    /// that of an explicit `return` (or of a statement that returns, like an exiting macro).
    Return {
        value: Value,
        span: Option<Span>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    pub name: String,
    pub hint: TypeHint,
    /// For a value of a struct defined in the crate, or a list of them: its (or its
    /// members') fields' types. A field that is a collection of OpenCL objects has a second
    /// entry, named by [`members_of`], for its members (`u: Vec<[Buffer; 2]>`: `u[]`, a
    /// buffer); a variable that is such a collection has the entry `[]`. A field that is a
    /// collection of structs has an entry per field of its members, named by
    /// [`member_field`] (`devs[].queue`).
    pub fields: Vec<(String, TypeHint)>,
    /// For `self` and parameters whose type is a struct not defined in the file: the
    /// type's name, so [`link`](crate::frontend::link) can give the fields of a struct
    /// another file of the crate defines.
    pub ty: Option<String>,
    /// How a field of the variable is written.
    pub member: Member,
    /// For a variable that names a global (file-scope) variable: its key ([`global_key`]).
    /// Every function's variable with one key is the same storage.
    pub global: Option<String>,
}

/// The key of a global variable: its name, or `file:name` for a `static` of file `file`,
/// which only that file's functions name.
pub fn global_key(file: usize, name: &str, file_local: bool) -> String {
    match file_local {
        true => format!("{file}:{name}"),
        false => name.to_string(),
    }
}

/// Whether a global's key ([`global_key`]) is that of a `static` of its file.
pub fn is_file_local(key: &str) -> bool {
    key.split_once(':')
        .is_some_and(|(f, _)| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
}

/// The entry of [`VarInfo::fields`] for the members of field `field`, or of the variable
/// itself for `""`.
pub fn members_of(field: &str) -> String {
    format!("{field}[]")
}

/// The entry of [`VarInfo::fields`] for field `inner` of the members of field `field`, a
/// collection of structs (`devs: Vec<Dev>`: `devs[].queue`).
pub fn member_field(field: &str, inner: &str) -> String {
    format!("{field}[].{inner}")
}

/// The entry of [`VarInfo::fields`] for a field of a field that is a struct (`cfg.lr` of
/// `cfg: Config`).
pub fn nested_field(field: &str, inner: &str) -> String {
    format!("{field}.{inner}")
}

/// How a field of a variable is written in the source language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Member {
    /// `solver.queue`: Rust, or a C struct by value.
    #[default]
    Dot,
    /// `ctx->queue`: a pointer to a C or C++ struct.
    Arrow,
    /// `queue_`: C++'s `this`, whose members a method names bare.
    Implicit,
    /// `gpu.queue` of a C++ reference `Gpu &gpu`.
    Ref,
}

impl Member {
    /// Whether the variable is a C pointer or a C++ reference: bound to a place, it names
    /// that place.
    pub fn refers(self) -> bool {
        matches!(self, Member::Arrow | Member::Ref)
    }
}

impl VarInfo {
    /// The fresh temporary `%n`, the function's `n`th variable.
    pub fn temp(n: usize, hint: TypeHint) -> Self {
        VarInfo {
            name: format!("%{n}"),
            hint,
            fields: Vec::new(),
            ty: None,
            member: Member::Dot,
            global: None,
        }
    }
}

/// Forgetting `values`: only those that can name a tracked object or host data count;
/// `None` when none does.
pub fn forget(values: Vec<Value>, span: Span) -> Option<Stmt> {
    let values: Vec<Value> = values
        .into_iter()
        .filter(|v| {
            matches!(
                v,
                Value::Place(_)
                    | Value::Host { base: Some(_), .. }
                    | Value::HostAt { .. }
                    | Value::List(_)
                    | Value::Struct(_)
            )
        })
        .collect();
    (!values.is_empty()).then_some(Stmt::Forget { values, span })
}

/// A lowered function or method.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub span: Span,
    pub vars: Vec<VarInfo>,
    pub params: Vec<Var>,
    pub body: Vec<Stmt>,
    /// The host data it returns, by its declared type (`-> Vec<f32>`, `-> Result<Vec<f32>,
    /// E>`): what it returns is such data even where the lowering cannot follow how it is
    /// made (`(0..n).map(..).collect()`).
    pub returns_host: Option<HostKind>,
}

impl Function {
    /// The place as the user wrote it: `queues[1]`, `self.halo`.
    pub fn place_name(&self, place: &Place) -> String {
        place_name(&self.vars, place)
    }
}

/// The field holding the handle of a value of a class that only owns one (a C++ RAII
/// wrapper, `Mem dB(clCreateBuffer(..))`): not shown in names, where the value is the handle
/// (`dB`).
pub const HANDLE_FIELD: &str = "(handle)";

/// A place as the user wrote it, naming its variable from `vars`.
pub fn place_name(vars: &[VarInfo], place: &Place) -> String {
    let var = &vars[place.var];
    let mut s = match (var.member, place.proj.first()) {
        (Member::Implicit, Some(Proj::Field(_))) => String::new(),
        _ => var.name.clone(),
    };
    for (i, p) in place.proj.iter().enumerate() {
        match p {
            Proj::Field(f) if f == HANDLE_FIELD => {}
            Proj::Field(f) => {
                match (i, var.member) {
                    (0, Member::Implicit) => {}
                    (0, Member::Arrow) => s.push_str("->"),
                    _ => s.push('.'),
                }
                s.push_str(f);
            }
            Proj::Index(i) => s.push_str(&format!("[{i}]")),
            Proj::AnyIndex => s.push_str("[_]"),
            Proj::Var(v) => s.push_str(&format!("[{}]", vars[*v].name)),
            Proj::Last => s.push_str(".last()"),
            Proj::At(i) => s.push_str(&format!("[{}]", place_name(vars, i))),
            Proj::Key(k) => s.push_str(&format!("[{k:?}]")),
        }
    }
    s
}

/// A kernel argument's size as `debug ir` shows it: ` (4 bytes)`, or nothing.
fn bytes(size: Option<u64>) -> String {
    size.map_or(String::new(), |n| format!(" ({n} bytes)"))
}

/// Prints values and statements for `debug ir`, naming places by their variables.
pub struct Show<'a, T: ?Sized>(pub &'a Function, pub &'a T);

impl fmt::Display for Show<'_, Value> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = self.0;
        match self.1 {
            Value::Place(p) => write!(f, "{}", func.place_name(p)),
            Value::Host { kind, base } => {
                write!(f, "host({kind:?}")?;
                if let Some(b) = base {
                    write!(f, " of {}", func.place_name(b))?;
                }
                write!(f, ")")
            }
            Value::HostAt { base, offset, .. } => write!(
                f,
                "host({} + {})",
                func.place_name(base),
                Show(func, offset.as_ref())
            ),
            Value::Scalar => write!(f, "scalar"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Null => write!(f, "null"),
            Value::List(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", Show(func, v))?;
                }
                write!(f, "]")
            }
            Value::Struct(fields) => {
                write!(f, "{{")?;
                for (i, (n, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ",")?;
                    }
                    write!(f, " {n}: {}", Show(func, v))?;
                }
                write!(f, " }}")
            }
            Value::New(obj) => write!(f, "{}", Show(func, obj)),
            Value::Str(s) => write!(f, "str({} bytes)", s.len()),
            Value::Arith { op, lhs, rhs } => {
                write!(f, "({} {op:?} {})", Show(func, &**lhs), Show(func, &**rhs))
            }
            Value::Len(list) => write!(f, "len({})", Show(func, &**list)),
            Value::Slots(count) => write!(f, "slots({})", Show(func, &**count)),
            Value::Members { list, from, count } => write!(
                f,
                "{}[{from}..][..{}]",
                func.place_name(list),
                Show(func, &**count)
            ),
            Value::Unknown => write!(f, "?"),
        }
    }
}

impl fmt::Display for Show<'_, NewObject> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let func = self.0;
        match self.1 {
            NewObject::Context => write!(f, "new Context"),
            NewObject::Queue {
                device,
                out_of_order,
            } => {
                write!(f, "new Queue(device: ")?;
                match device {
                    Some(d) => write!(f, "{}", Show(func, &**d))?,
                    None => write!(f, "default")?,
                }
                write!(f, ", out_of_order: {out_of_order})")
            }
            NewObject::Buffer {
                host_init,
                in_place,
                read_only,
                ..
            } => {
                match (host_init, in_place) {
                    (Some(h), true) => {
                        write!(f, "new Buffer(host_init: {}, in place)", Show(func, &**h))?
                    }
                    (Some(h), false) => write!(f, "new Buffer(host_init: {})", Show(func, &**h))?,
                    (None, _) => write!(f, "new Buffer")?,
                }
                match read_only {
                    true => write!(f, " read-only"),
                    false => Ok(()),
                }
            }
            NewObject::SubBuffer { parent } => {
                write!(f, "new SubBuffer(parent: {})", Show(func, &**parent))
            }
            NewObject::Program { source, source_at } => match (source, source_at) {
                (Some(s), _) => write!(f, "new Program(source: {} bytes)", s.len()),
                (None, Some(at)) => write!(
                    f,
                    "new Program(source at {})",
                    Show(func, &Value::Place(at.clone()))
                ),
                (None, None) => write!(f, "new Program(source: ?)"),
            },
            NewObject::Kernel {
                program,
                name,
                name_at,
            } => match (name, name_at) {
                (None, Some(at)) => write!(
                    f,
                    "new Kernel({}, name at {})",
                    Show(func, &**program),
                    Show(func, &Value::Place(at.clone()))
                ),
                _ => write!(
                    f,
                    "new Kernel({}, {})",
                    Show(func, &**program),
                    name.as_deref().unwrap_or("?")
                ),
            },
            NewObject::Launch { kernel } => write!(f, "new Launch({})", Show(func, &**kernel)),
            NewObject::UserEvent { raw } => write!(f, "new UserEvent(raw: {raw})"),
            NewObject::EmptyEvent => write!(f, "new EmptyEvent"),
            NewObject::Devices => write!(f, "new Devices"),
        }
    }
}

/// One loop source as the IR listing shows it.
fn write_source(f: &mut fmt::Formatter<'_>, func: &Function, src: &EachSource) -> fmt::Result {
    match src {
        EachSource::Members(v) => write!(f, "members({})", Show(func, v)),
        EachSource::MembersFrom(v, s) => write!(f, "members({})[{s}..]", Show(func, v)),
        EachSource::Upto(v) => write!(f, "upto({})", Show(func, v)),
        EachSource::UptoLen(0, v) => write!(f, "upto_len({})", Show(func, v)),
        EachSource::UptoLen(s, v) => write!(f, "upto_len({})[{s}..]", Show(func, v)),
        EachSource::Pieces(v) => write!(f, "pieces({})", Show(func, v)),
        EachSource::Among(v) => write!(f, "among({})", Show(func, v)),
        EachSource::Range(a, b) => write!(f, "range({}, {})", Show(func, a), Show(func, b)),
        EachSource::Rev(inner) => {
            write!(f, "rev(")?;
            write_source(f, func, inner)?;
            write!(f, ")")
        }
    }
}

fn write_block(
    f: &mut fmt::Formatter<'_>,
    func: &Function,
    body: &[Stmt],
    depth: usize,
) -> fmt::Result {
    for s in body {
        write_stmt(f, func, s, depth)?;
    }
    Ok(())
}

fn write_stmt(f: &mut fmt::Formatter<'_>, func: &Function, s: &Stmt, depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    match s {
        Stmt::Assign { dst, value, .. } => {
            writeln!(f, "{pad}{} = {}", func.place_name(dst), Show(func, value))
        }
        Stmt::Enqueue { cmd, event } => {
            write!(f, "{pad}")?;
            if let Some(e) = event {
                write!(f, "{} = ", func.place_name(e))?;
            }
            write!(
                f,
                "{:?} #{} on {} ",
                cmd.kind,
                cmd.id,
                Show(func, &cmd.queue)
            )?;
            if let Some(k) = &cmd.kernel {
                write!(f, "kernel {} ", Show(func, k))?;
            }
            if let Some(x) = cmd.flags.as_deref() {
                write!(f, "flags {} ", Show(func, x))?;
            }
            write!(f, "{{")?;
            for (i, b) in cmd.buffers.iter().enumerate() {
                if i > 0 {
                    write!(f, ",")?;
                }
                write!(f, " {} {:?}", Show(func, &b.buffer), b.access)?;
                if let Some(h) = &b.host {
                    write!(f, " host {}", Show(func, h))?;
                }
                if b.whole {
                    write!(f, " whole")?;
                }
            }
            write!(f, " }} waits ")?;
            match &cmd.waits {
                Some(w) => write!(f, "{}", Show(func, &Value::List(w.clone())))?,
                None => write!(f, "?")?,
            }
            write!(f, " blocking {:?} ({})", cmd.blocking, cmd.api)?;
            if cmd.raw_event {
                write!(f, " raw event")?;
            }
            if cmd.work_offset {
                write!(f, " from an offset")?;
            }
            writeln!(f)
        }
        Stmt::SetArg {
            kernel,
            index,
            index_at,
            name,
            value,
            size,
            ..
        } => {
            let idx = match (index, name, index_at) {
                (Some(i), _, _) => i.to_string(),
                (None, Some(n), _) => format!("{n:?}"),
                (None, None, Some(p)) => func.place_name(p),
                (None, None, None) => "?".to_string(),
            };
            writeln!(
                f,
                "{pad}set_arg {}[{idx}] = {}{}",
                Show(func, kernel),
                Show(func, value),
                bytes(*size)
            )
        }
        Stmt::LaunchArg {
            launch,
            value,
            size,
            ..
        } => {
            writeln!(
                f,
                "{pad}launch_arg {} += {}{}",
                Show(func, launch),
                Show(func, value),
                bytes(*size)
            )
        }
        Stmt::LaunchWait { launch, events } => {
            writeln!(
                f,
                "{pad}launch_wait {} += {}",
                Show(func, launch),
                Show(func, events)
            )
        }
        Stmt::Push { list, item } => {
            writeln!(
                f,
                "{pad}push {} += {}",
                func.place_name(list),
                Show(func, item)
            )
        }
        Stmt::Finish { queue, .. } => writeln!(f, "{pad}finish {}", Show(func, queue)),
        Stmt::Wait { events, .. } => writeln!(f, "{pad}wait {}", Show(func, events)),
        Stmt::Release { events, .. } => writeln!(f, "{pad}release {}", Show(func, events)),
        Stmt::Signal { event, .. } => writeln!(f, "{pad}signal {}", Show(func, event)),
        Stmt::Op {
            op,
            recv,
            args,
            dst,
            ..
        } => {
            write!(
                f,
                "{pad}{} = op {op:?} on {}",
                func.place_name(dst),
                Show(func, recv)
            )?;
            for a in args {
                write!(f, " {}", Show(func, a))?;
            }
            writeln!(f)
        }
        Stmt::Forget { values, .. } => {
            write!(f, "{pad}forget")?;
            for v in values {
                write!(f, " {}", Show(func, v))?;
            }
            writeln!(f)
        }
        Stmt::Branch(arms) => {
            writeln!(f, "{pad}branch")?;
            for (i, arm) in arms.iter().enumerate() {
                writeln!(f, "{pad}arm {i}")?;
                write_block(f, func, arm, depth + 1)?;
            }
            writeln!(f, "{pad}end")
        }
        Stmt::Loop(body) => {
            writeln!(f, "{pad}loop")?;
            write_block(f, func, body, depth + 1)?;
            writeln!(f, "{pad}end")
        }
        Stmt::ForEach {
            sources,
            binds,
            body,
            tail,
            dst,
        } => {
            write!(f, "{pad}for_each")?;
            for b in binds {
                write!(f, " {}={:?}", func.place_name(&b.0), b.1)?;
            }
            write!(f, " in")?;
            for src in sources {
                write!(f, " ")?;
                write_source(f, func, src)?;
            }
            writeln!(f)?;
            write_block(f, func, body, depth + 1)?;
            match dst {
                Some(d) => writeln!(
                    f,
                    "{pad}end collect {} into {}",
                    Show(func, tail),
                    func.place_name(d)
                ),
                None => writeln!(f, "{pad}end"),
            }
        }
        Stmt::Spawn {
            body,
            value,
            handle,
            ..
        } => {
            writeln!(f, "{pad}{} = spawn", func.place_name(handle))?;
            write_block(f, func, body, depth + 1)?;
            writeln!(f, "{pad}end returns {}", Show(func, value))
        }
        Stmt::Closure {
            name,
            body,
            value,
            dst,
            ..
        } => {
            match name {
                Some(n) => writeln!(f, "{pad}{} = closure {n}", func.place_name(dst))?,
                None => writeln!(f, "{pad}{} = closure", func.place_name(dst))?,
            }
            write_block(f, func, body, depth + 1)?;
            writeln!(f, "{pad}end returns {}", Show(func, value))
        }
        Stmt::Assume { value, some } => writeln!(
            f,
            "{pad}assume {} is {}",
            Show(func, value),
            if *some { "Some" } else { "None" }
        ),
        Stmt::Failed { value, commands } => {
            write!(f, "{pad}failed {}", Show(func, value))?;
            for c in commands {
                write!(f, " #{c}")?;
            }
            writeln!(f)
        }
        Stmt::Join { handle, dst } => writeln!(
            f,
            "{pad}{} = join {}",
            func.place_name(dst),
            Show(func, handle)
        ),
        Stmt::Rendezvous { barrier } => writeln!(f, "{pad}rendezvous {}", Show(func, barrier)),
        Stmt::Received => writeln!(f, "{pad}received"),
        Stmt::Break => writeln!(f, "{pad}break"),
        Stmt::ErrorExit => writeln!(f, "{pad}error exit"),
        Stmt::Continue => writeln!(f, "{pad}continue"),
        Stmt::Call {
            callee,
            recv,
            args,
            dst,
            ..
        } => {
            write!(f, "{pad}{} = call {callee}(", func.place_name(dst))?;
            if let Some(r) = recv {
                write!(f, "self: {}", Show(func, r))?;
            }
            for (i, a) in args.iter().enumerate() {
                if i > 0 || recv.is_some() {
                    write!(f, ", ")?;
                }
                write!(f, "{}", Show(func, a))?;
            }
            writeln!(f, ")")
        }
        Stmt::Return { value, .. } => writeln!(f, "{pad}return {}", Show(func, value)),
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fn {}(", self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{}: {:?}", self.vars[*p].name, self.vars[*p].hint)?;
        }
        writeln!(f, ")")?;
        write_block(f, self, &self.body, 1)
    }
}
