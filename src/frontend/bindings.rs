//! API models as data: what each binding's functions and methods mean, read from
//! `rules/bindings/*.toml` (embedded at build time). Both frontends read calls with them:
//! [`Bindings::get`] holds the Rust crates' tables, [`clike::bindings`](super::clike::bindings)
//! those of the C API and the C++ wrapper.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::ir::{Access, CommandKind};

/// The embedded tables of the Rust bindings, by binding name.
const TABLES: &[(&str, &str)] = &[
    ("opencl3", include_str!("../../rules/bindings/opencl3.toml")),
    ("cl3", include_str!("../../rules/bindings/cl3.toml")),
    ("ffi", include_str!("../../rules/bindings/ffi.toml")),
    ("ocl", include_str!("../../rules/bindings/ocl.toml")),
    (
        "ocl-core",
        include_str!("../../rules/bindings/ocl-core.toml"),
    ),
];

/// The role of one argument (or of the receiver).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Queue,
    Kernel,
    Launch,
    Event,
    Events,
    Waits,
    Context,
    Device,
    Program,
    Source,
    Sources,
    KernelName,
    ArgIndex,
    ArgValue,
    /// `arg_size` of `clSetKernelArg`: the bytes the argument passes.
    ArgSize,
    /// `num_mem_objects` of a pointer-and-count list of buffers.
    BufferCount,
    Blocking,
    Offset,
    /// The global work offset of a launch (`global_work_offset` of `clEnqueueNDRangeKernel`,
    /// `cl::NDRange(0, row0)` of `enqueueNDRangeKernel`): a null pointer or `cl::NullRange`
    /// for none.
    WorkOffset,
    /// A copy's offsets in its source and its destination.
    SrcOffset,
    DstOffset,
    /// A copy's size in bytes.
    Size,
    MigrateFlags,
    /// A map's flags: with a write flag the mapping writes the buffer.
    MapFlags,
    MemFlags,
    HostPtr,
    QueueProps,
    Buffer(Access),
    Buffers(Access),
    Host {
        written: bool,
    },
    /// `num_events_in_wait_list` of a pointer-and-count wait list.
    WaitCount,
    /// `event_wait_list` of a pointer-and-count wait list.
    WaitPtr,
    /// `&mut event`: where the command's event is written.
    EventOut,
    /// The pattern, pattern size, offset or size of a fill.
    Pattern,
    /// The buffer a sub-buffer is a region of.
    Parent,
    /// Where a query writes its answer (`param_value`): not known after the call.
    Out,
    /// A function the API calls with its `event` later (`pfn_notify`): where it releases
    /// that event, registering it hands the event over.
    Callback,
    Ignore,
}

/// What a call means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Command(CommandKind),
    New(NewKind),
    Finish,
    Wait,
    SetArg,
    LaunchArg,
    LaunchWait,
    LaunchEnqueue,
    Same,
    /// Returns its `arg_value` argument, or its first when none has that role.
    Alias,
    /// Returns a null handle: no object, no host data.
    Null,
    /// Returns a value passed by value (a scalar, a vector, a `__local` size).
    ByValue,
    /// Reads a property of its arguments (`clGetEventProfilingInfo`): changes nothing.
    Query,
    /// Releases the `event` argument.
    Release,
    /// Sets the status of the user event in its `event` argument (or receiver).
    Signal,
    /// Returns its first argument and takes ownership of the raw event in it.
    Wrap,
    /// A builder-style operation; its meaning depends on the receiver.
    Op(crate::ir::Op),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewKind {
    Context,
    Queue,
    Buffer,
    Program,
    Kernel,
    Launch,
    UserEvent,
    /// An owning event no command has produced yet.
    Event,
    /// An empty list of events.
    EventList,
    /// The devices of a platform or of a type (`get_all_devices(CL_DEVICE_TYPE_GPU)`): a
    /// list from outside, how many not known.
    Devices,
}

/// One modeled API.
#[derive(Clone, Debug)]
pub struct Api {
    pub binding: String,
    /// The name as written in the table (`enqueue_write_buffer`, `Buffer::create`).
    pub name: String,
    pub receiver: Option<Role>,
    pub arity: Option<usize>,
    pub effect: Effect,
    pub args: Vec<Role>,
    /// The event it produces is a raw `cl_event` that must be released.
    pub raw_event: bool,
    /// Whether a command blocks when no blocking argument says so.
    pub blocks: bool,
    /// Whether a transfer covers its whole buffer though no offset argument says so.
    pub whole: bool,
    /// The row is of a table with `modules`: a bare call of its name is taken for it only
    /// through a glob import (another binding may have a function of that name).
    pub qualified_only: bool,
}

impl Api {
    /// Whether the call lowers to a statement the analysis draws facts from: an enqueue, a
    /// kernel argument, or a raw user event (which can leak). Every finding comes from one
    /// of these.
    pub fn is_anchor(&self) -> bool {
        match self.effect {
            // Only a raw user event can leak; an owning one releases itself.
            Effect::New(NewKind::UserEvent) => self.raw_event,
            _ => matches!(
                self.effect,
                Effect::Command(_)
                    | Effect::LaunchEnqueue
                    | Effect::SetArg
                    | Effect::LaunchArg
                    | Effect::Op(
                        crate::ir::Op::Enq
                            | crate::ir::Op::EnqAsync
                            | crate::ir::Op::Arg { .. }
                            | crate::ir::Op::Build
                    )
            ),
        }
    }

    /// The identifier a call of this API ends in (`create` for `Buffer::create`).
    pub fn last_name(&self) -> &str {
        self.name.rsplit("::").next().unwrap_or(&self.name)
    }

    pub fn arg_index(&self, role: Role) -> Option<usize> {
        self.args.iter().position(|r| *r == role)
    }

    /// The values of every argument of a role (a query's `out` arguments), given the
    /// call's argument values in order.
    pub fn values_of<T: Clone>(&self, role: Role, vals: &[T]) -> Vec<T> {
        (self.args.iter().zip(vals))
            .filter(|(r, _)| **r == role)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    binding: String,
    /// Module paths a one-segment function row is matched under (`ocl_core`, `core`).
    #[serde(default)]
    modules: Vec<String>,
    #[serde(default)]
    method: Vec<Row>,
    #[serde(default)]
    function: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    name: Option<String>,
    path: Option<String>,
    receiver: Option<String>,
    arity: Option<usize>,
    effect: String,
    args: Vec<String>,
    #[serde(default)]
    raw_event: bool,
    #[serde(default)]
    blocks: bool,
    #[serde(default)]
    whole: bool,
}

/// All modeled APIs, indexed for lookup.
#[derive(Debug, Default)]
pub struct Bindings {
    methods: HashMap<String, Vec<Api>>,
    functions: HashMap<String, Vec<Api>>,
    /// Every name a modeled call can end in.
    names: Vec<String>,
    /// The names of the calls a finding can be drawn from: the pre-filter uses them.
    anchors: Vec<String>,
    /// The types of the modeled associated functions (`Buffer` of `Buffer::create`).
    types: Vec<String>,
}

fn parse_access(s: &str) -> Result<Access, String> {
    Ok(match s {
        "read" => Access::Read,
        "write" => Access::Write,
        "readwrite" => Access::ReadWrite,
        "migrate" => Access::Migrate { to_host: false },
        _ => return Err(format!("unknown access `{s}`")),
    })
}

fn parse_role(s: &str) -> Result<Role, String> {
    if let Some(a) = s.strip_prefix("buffer:") {
        return Ok(Role::Buffer(parse_access(a)?));
    }
    if let Some(a) = s.strip_prefix("buffers:") {
        return Ok(Role::Buffers(parse_access(a)?));
    }
    Ok(match s {
        "queue" => Role::Queue,
        "kernel" => Role::Kernel,
        "launch" => Role::Launch,
        "event" => Role::Event,
        "events" => Role::Events,
        "waits" => Role::Waits,
        "context" => Role::Context,
        "device" => Role::Device,
        "program" => Role::Program,
        "source" => Role::Source,
        "sources" => Role::Sources,
        "kernel_name" => Role::KernelName,
        "arg_index" => Role::ArgIndex,
        "arg_value" => Role::ArgValue,
        "arg_size" => Role::ArgSize,
        "buffer_count" => Role::BufferCount,
        "blocking" => Role::Blocking,
        "offset" => Role::Offset,
        "work_offset" => Role::WorkOffset,
        "src_offset" => Role::SrcOffset,
        "dst_offset" => Role::DstOffset,
        "size" => Role::Size,
        "migrate_flags" => Role::MigrateFlags,
        "map_flags" => Role::MapFlags,
        "mem_flags" => Role::MemFlags,
        "host_ptr" => Role::HostPtr,
        "queue_props" => Role::QueueProps,
        "host:read" => Role::Host { written: false },
        "host:write" => Role::Host { written: true },
        "wait_count" => Role::WaitCount,
        "pattern" => Role::Pattern,
        "parent" => Role::Parent,
        "wait_ptr" => Role::WaitPtr,
        "event_out" => Role::EventOut,
        "out" => Role::Out,
        "callback" => Role::Callback,
        "ignore" => Role::Ignore,
        _ => return Err(format!("unknown role `{s}`")),
    })
}

fn parse_op(s: &str) -> Result<crate::ir::Op, String> {
    use crate::ir::{BuilderKind, Op};
    Ok(match s {
        "cmd" => Op::Cmd,
        "write" => Op::Kind(CommandKind::Write),
        "read" => Op::Kind(CommandKind::Read),
        "fill" => Op::Kind(CommandKind::Fill),
        "copy" => Op::Kind(CommandKind::Copy),
        "queue" => Op::Queue,
        "wait" => Op::Wait,
        "new_event" => Op::NewEvent,
        "block" => Op::Block,
        "enq" => Op::Enq,
        "enq_async" => Op::EnqAsync,
        "map" => Op::Kind(CommandKind::Map),
        "map_write" => Op::MapWrite,
        "unmap" => Op::Kind(CommandKind::Unmap),
        "builder:buffer" => Op::Builder(BuilderKind::Buffer),
        "builder:kernel" => Op::Builder(BuilderKind::Kernel),
        "builder:pro_que" => Op::Builder(BuilderKind::ProQue),
        "builder:program" => Op::Builder(BuilderKind::Program),
        "host_data" => Op::HostData,
        "fill_val" => Op::FillVal,
        "flags" => Op::Flags,
        "fill_event" => Op::FillEvent,
        "arg" => Op::Arg { named: false },
        "arg_named" => Op::Arg { named: true },
        "program" => Op::Program,
        "name" => Op::Name,
        "build" => Op::Build,
        "create_buffer" => Op::CreateBuffer,
        "kernel_builder" => Op::KernelBuilder,
        "get_queue" => Op::GetQueue,
        "offset" => Op::Offset,
        "same" => Op::Same,
        _ => return Err(format!("unknown operation `{s}`")),
    })
}

fn parse_effect(s: &str) -> Result<Effect, String> {
    if let Some(op) = s.strip_prefix("op:") {
        return Ok(Effect::Op(parse_op(op)?));
    }
    if let Some(k) = s.strip_prefix("command:") {
        let kind = match k {
            "kernel" => CommandKind::Kernel,
            "write" => CommandKind::Write,
            "read" => CommandKind::Read,
            "fill" => CommandKind::Fill,
            "copy" => CommandKind::Copy,
            "migrate" => CommandKind::Migrate,
            "marker" => CommandKind::Marker,
            "barrier" => CommandKind::Barrier,
            "map" => CommandKind::Map,
            "unmap" => CommandKind::Unmap,
            _ => return Err(format!("unknown command kind `{k}`")),
        };
        return Ok(Effect::Command(kind));
    }
    if let Some(k) = s.strip_prefix("new:") {
        let kind = match k {
            "context" => NewKind::Context,
            "queue" => NewKind::Queue,
            "buffer" => NewKind::Buffer,
            "program" => NewKind::Program,
            "kernel" => NewKind::Kernel,
            "launch" => NewKind::Launch,
            "user_event" => NewKind::UserEvent,
            "event" => NewKind::Event,
            "event_list" => NewKind::EventList,
            "devices" => NewKind::Devices,
            _ => return Err(format!("unknown object `{k}`")),
        };
        return Ok(Effect::New(kind));
    }
    Ok(match s {
        "finish" => Effect::Finish,
        "wait" => Effect::Wait,
        "set_arg" => Effect::SetArg,
        "launch_arg" => Effect::LaunchArg,
        "launch_wait" => Effect::LaunchWait,
        "launch_enqueue" => Effect::LaunchEnqueue,
        "same" => Effect::Same,
        "alias" => Effect::Alias,
        "null" => Effect::Null,
        "by_value" => Effect::ByValue,
        "query" => Effect::Query,
        "release" => Effect::Release,
        "signal" => Effect::Signal,
        "wrap" => Effect::Wrap,
        _ => return Err(format!("unknown effect `{s}`")),
    })
}

fn row_to_api(binding: &str, row: Row, method: bool) -> Result<Api, String> {
    let name = if method {
        row.name.ok_or("a method row needs `name`")?
    } else {
        row.path.ok_or("a function row needs `path`")?
    };
    let ctx = |e: String| format!("`{name}`: {e}");
    let receiver = match (&row.receiver, method) {
        (Some(r), true) => Some(parse_role(r).map_err(ctx)?),
        (None, true) => return Err(ctx("a method row needs `receiver`".into())),
        (Some(_), false) => return Err(ctx("a function row has no `receiver`".into())),
        (None, false) => None,
    };
    let effect = parse_effect(&row.effect).map_err(ctx)?;
    let args = row
        .args
        .iter()
        .map(|a| parse_role(a))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ctx)?;
    Ok(Api {
        binding: binding.to_string(),
        name,
        receiver,
        arity: row.arity,
        effect,
        args,
        raw_event: row.raw_event,
        blocks: row.blocks,
        whole: row.whole,
        qualified_only: false,
    })
}

impl Bindings {
    /// Parses binding tables; an error names the table and the row.
    pub fn from_tables(tables: &[(&str, &str)]) -> Result<Self, String> {
        let mut b = Bindings::default();
        for (file, text) in tables {
            let t: TableFile = toml::from_str(text).map_err(|e| format!("{file}.toml: {e}"))?;
            for row in t.method {
                let api =
                    row_to_api(&t.binding, row, true).map_err(|e| format!("{file}.toml: {e}"))?;
                b.add_names(&api);
                b.methods.entry(api.name.clone()).or_default().push(api);
            }
            for row in t.function {
                let mut api =
                    row_to_api(&t.binding, row, false).map_err(|e| format!("{file}.toml: {e}"))?;
                api.qualified_only = !t.modules.is_empty();
                let last = api.last_name().to_string();
                b.add_names(&api);
                let entry = b.functions.entry(last).or_default();
                if api.name.contains("::") || t.modules.is_empty() {
                    entry.push(api);
                } else {
                    // A free function of a crate, under each path the crate goes by.
                    entry.extend(t.modules.iter().map(|m| Api {
                        name: format!("{m}::{}", api.name),
                        ..api.clone()
                    }));
                }
            }
        }
        for v in [&mut b.names, &mut b.anchors, &mut b.types] {
            v.sort();
            v.dedup();
        }
        Ok(b)
    }

    fn add_names(&mut self, api: &Api) {
        let name = api.last_name().to_string();
        if api.is_anchor() {
            self.anchors.push(name.clone());
        }
        if let Some((ty, _)) = api.name.rsplit_once("::") {
            self.types
                .push(ty.rsplit("::").next().unwrap_or(ty).to_string());
        }
        self.names.push(name);
    }

    /// The embedded tables. They are checked by a test, so a bad row never ships.
    pub fn get() -> &'static Bindings {
        static B: OnceLock<Bindings> = OnceLock::new();
        B.get_or_init(|| Bindings::from_tables(TABLES).unwrap_or_default())
    }

    /// The method API of this name taking `arity` arguments.
    pub fn method(&self, name: &str, arity: usize) -> Option<&Api> {
        self.methods
            .get(name)?
            .iter()
            .find(|a| a.arity.is_none_or(|n| n == arity))
    }

    /// The function API for a call path (segments without generics, `use` imports applied)
    /// taking `arity` arguments: the row whose path is the longest suffix of the call's.
    pub fn function(&self, segments: &[String], arity: usize) -> Option<&Api> {
        let last = segments.last()?;
        self.functions
            .get(last)?
            .iter()
            .filter(|a| a.arity.is_none_or(|n| n == arity))
            .filter(|a| {
                let row: Vec<&str> = a.name.split("::").collect();
                // A one-segment call (a glob import) matches on its name alone, except a
                // row that holds only under its crate's modules.
                (segments.len() == 1 && !a.qualified_only)
                    || (row.len() <= segments.len()
                        && row
                            .iter()
                            .rev()
                            .zip(segments.iter().rev())
                            .all(|(r, s)| r == s))
            })
            .max_by_key(|a| a.name.matches("::").count())
    }

    /// Every name a modeled call can end in.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The names a file must mention for a finding to be possible in it: the last
    /// identifier of every call that lowers to an enqueue or a kernel argument.
    pub fn anchors(&self) -> &[String] {
        &self.anchors
    }

    /// The types whose associated functions are modeled (`Buffer`, `ProQue`).
    pub fn types(&self) -> &[String] {
        &self.types
    }

    /// The embedded table texts, for `debug bindings` and tests.
    pub fn tables() -> &'static [(&'static str, &'static str)] {
        TABLES
    }
}
