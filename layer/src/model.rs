//! The layer's model of the program: buffers, queues, commands and events, and happens-before
//! between commands from the API's ordering rules alone (in-order queues, wait lists,
//! markers and barriers, and the host calls that complete commands), never from whether a
//! command happens to have finished. The rules of `clmigrate-lint` are checked on it as the
//! commands are enqueued.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::site::Site;

/// An OpenCL handle, as an address.
pub type Handle = usize;

/// `CL_MIGRATE_MEM_OBJECT_HOST`.
pub const MIGRATE_HOST: u64 = 1;
/// `CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED`.
pub const MIGRATE_CONTENT_UNDEFINED: u64 = 2;

/// How a command uses a buffer's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Read,
    Write,
    ReadWrite,
}

impl Mode {
    fn writes(self) -> bool {
        self != Mode::Read
    }
}

/// What a command is, for the messages and the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Kernel(String),
    Read,
    Write,
    Copy,
    Fill,
    Map,
    Unmap,
    Migrate { flags: u64 },
    Marker,
    Barrier,
}

impl Kind {
    /// The command as messages name it.
    fn describe(&self) -> String {
        match self {
            Kind::Kernel(name) => format!("kernel `{name}`"),
            Kind::Read => "read".into(),
            Kind::Write => "write".into(),
            Kind::Copy => "copy".into(),
            Kind::Fill => "fill".into(),
            Kind::Map => "map".into(),
            Kind::Unmap => "unmap".into(),
            Kind::Migrate { .. } => "migration".into(),
            Kind::Marker => "marker".into(),
            Kind::Barrier => "barrier".into(),
        }
    }

    /// Whether the command runs on the device with the buffer (rather than moving it to or
    /// from the host): a kernel, a copy, a fill, a migration to a device.
    fn is_device_use(&self) -> bool {
        match self {
            Kind::Kernel(_) | Kind::Copy | Kind::Fill => true,
            Kind::Migrate { flags } => flags & MIGRATE_HOST == 0,
            _ => false,
        }
    }
}

/// A memory object: a buffer, or a sub-buffer as a byte range of its parent.
#[derive(Clone, Debug)]
pub struct Mem {
    pub context: Handle,
    /// The buffer that owns the bytes (itself, or a sub-buffer's parent).
    pub root: Handle,
    pub offset: usize,
    pub size: usize,
    refs: usize,
}

/// A queue as the layer saw it.
#[derive(Clone, Debug)]
pub struct Queue {
    pub device: Handle,
    /// How many devices its context has.
    pub context_devices: usize,
    pub out_of_order: bool,
    /// Numbered in the order queues are first used, for messages.
    pub number: usize,
    last: Option<usize>,
    last_barrier: Option<usize>,
    since_barrier: Vec<usize>,
}

/// One access of a command to a buffer's bytes.
#[derive(Clone, Debug)]
pub struct Access {
    pub mem: Handle,
    pub start: usize,
    pub end: usize,
    pub mode: Mode,
}

/// A command (or a user event: a node with no queue).
struct Node {
    kind: Kind,
    preds: Vec<usize>,
    /// The host knows it completed (and so everything before it).
    done: bool,
    site: Option<Site>,
}

/// A live access of a buffer, not known to have completed.
#[derive(Clone)]
struct Live {
    node: usize,
    queue: Handle,
    start: usize,
    end: usize,
    mode: Mode,
}

#[derive(Clone)]
struct Upload {
    start: usize,
    end: usize,
    hash: u64,
    site: Site,
}

/// What the layer knows about the bytes of one buffer.
#[derive(Default)]
struct BufferState {
    live: Vec<Live>,
    uploads: Vec<Upload>,
    /// The device that last used it; `None` when unknown or on the host.
    location: Option<Handle>,
    /// A migration to the host not yet followed by a use.
    host_migration: Option<Site>,
    /// A migration to the device that already held it, not yet followed by a use.
    same_device_migration: Option<(Handle, Site)>,
}

/// A kernel's parameter, from `clGetKernelArgInfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub type_name: String,
    /// A `__global` or `__constant` pointer: takes a buffer.
    pub buffer: bool,
    /// `const`-qualified or `__constant`: only read.
    pub read_only: bool,
}

/// A kernel's signature, when the driver could tell it.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub name: String,
    pub context: Handle,
    pub params: Option<Vec<Param>>,
}

#[derive(Default)]
struct Kernel {
    signature: Signature,
    args: HashMap<u32, Handle>,
}

struct Event {
    node: Option<usize>,
    refs: usize,
    created_by: &'static str,
    site: Site,
}

/// One finding, with the sites it names.
pub struct Finding {
    pub code: &'static str,
    pub message: String,
    pub label: String,
    pub site: Site,
    pub related: Vec<(String, Site)>,
    pub help: String,
}

/// Everything the layer knows, behind one lock.
#[derive(Default)]
pub struct Model {
    mems: HashMap<Handle, Mem>,
    buffers: HashMap<Handle, BufferState>,
    queues: HashMap<Handle, Queue>,
    queue_numbers: HashMap<Handle, usize>,
    /// Each device's index in its context.
    device_index: HashMap<Handle, usize>,
    kernels: HashMap<Handle, Kernel>,
    events: HashMap<Handle, Event>,
    nodes: Vec<Node>,
    mapped: HashMap<usize, (Handle, Mode)>,
    /// Pairs and sites already reported, so a loop reports each bug once.
    reported: HashSet<String>,
}

/// What a new command is: its queue, kind, accesses and wait list.
pub struct Command<'a> {
    pub queue: Handle,
    pub kind: Kind,
    pub accesses: Vec<Access>,
    pub waits: &'a [Handle],
    pub site: Site,
}

impl Model {
    pub fn queue_known(&self, queue: Handle) -> bool {
        self.queues.contains_key(&queue)
    }

    /// A queue was created at this address: it is numbered in creation order, and nothing of
    /// an earlier queue there holds.
    pub fn new_queue(&mut self, queue: Handle) {
        self.queues.remove(&queue);
        self.queue_numbers.insert(queue, self.queue_numbers.len());
    }

    /// A queue's device (and its index among the context's devices) and properties, the
    /// first time it is used.
    pub fn add_queue(
        &mut self,
        queue: Handle,
        device: Handle,
        (index, context_devices): (usize, usize),
        out_of_order: bool,
    ) {
        self.device_index.insert(device, index);
        let number = match self.queue_numbers.get(&queue) {
            Some(n) => *n,
            None => {
                let n = self.queue_numbers.len();
                self.queue_numbers.insert(queue, n);
                n
            }
        };
        self.queues.insert(
            queue,
            Queue {
                device,
                context_devices,
                out_of_order,
                number,
                last: None,
                last_barrier: None,
                since_barrier: Vec::new(),
            },
        );
    }

    /// A new buffer; `host_init` is the hash of the host data it was created from.
    pub fn add_buffer(
        &mut self,
        mem: Handle,
        context: Handle,
        size: usize,
        host_init: Option<u64>,
        site: &Site,
    ) {
        self.mems.insert(
            mem,
            Mem {
                context,
                root: mem,
                offset: 0,
                size,
                refs: 1,
            },
        );
        let mut state = BufferState::default();
        if let Some(hash) = host_init {
            state.uploads.push(Upload {
                start: 0,
                end: size,
                hash,
                site: site.clone(),
            });
        }
        self.buffers.insert(mem, state);
    }

    /// A sub-buffer: `origin..origin + size` of `parent`.
    pub fn add_sub_buffer(&mut self, mem: Handle, parent: Handle, origin: usize, size: usize) {
        let Some(p) = self.mems.get(&parent).cloned() else {
            return;
        };
        self.mems.insert(
            mem,
            Mem {
                context: p.context,
                root: p.root,
                offset: p.offset + origin,
                size,
                refs: 1,
            },
        );
    }

    pub fn mem(&self, mem: Handle) -> Option<&Mem> {
        self.mems.get(&mem)
    }

    pub fn retain_mem(&mut self, mem: Handle) {
        if let Some(m) = self.mems.get_mut(&mem) {
            m.refs += 1;
        }
    }

    pub fn release_mem(&mut self, mem: Handle) {
        if let Some(m) = self.mems.get_mut(&mem) {
            m.refs -= 1;
            if m.refs == 0 {
                self.mems.remove(&mem);
                self.buffers.remove(&mem);
            }
        }
    }

    /// A kernel was created at this address: nothing of an earlier kernel there holds.
    pub fn new_kernel(&mut self, kernel: Handle) {
        self.kernels.remove(&kernel);
    }

    /// `clCloneKernel` copies the arguments set so far.
    pub fn clone_kernel(&mut self, from: Handle, to: Handle) {
        let clone = self.kernels.get(&from).map(|k| Kernel {
            signature: k.signature.clone(),
            args: k.args.clone(),
        });
        match clone {
            Some(k) => self.kernels.insert(to, k),
            None => self.kernels.remove(&to),
        };
    }

    pub fn signature(&self, kernel: Handle) -> Option<&Signature> {
        self.kernels.get(&kernel).map(|k| &k.signature)
    }

    pub fn set_signature(&mut self, kernel: Handle, signature: Signature) {
        self.kernels.entry(kernel).or_default().signature = signature;
    }

    /// `clSetKernelArg(kernel, index, size, value)`, `value` read as a handle when it is one
    /// handle wide. Reports CLM001 when the parameter takes a buffer and the bytes are not a
    /// live buffer of the kernel's context, or are not one handle wide.
    pub fn set_kernel_arg(
        &mut self,
        kernel: Handle,
        index: u32,
        size: usize,
        value: Option<Handle>,
        site: &Site,
    ) -> Option<Finding> {
        let state = self.kernels.entry(kernel).or_default();
        state.args.remove(&index);
        let signature = state.signature.clone();
        let param = signature
            .params
            .as_ref()
            .and_then(|p| p.get(index as usize))
            .cloned();
        let live = value.filter(|v| {
            self.mems
                .get(v)
                .is_some_and(|m| signature.context == 0 || m.context == signature.context)
        });
        if let Some(mem) = live {
            if param.as_ref().is_none_or(|p| p.buffer) {
                self.kernels
                    .entry(kernel)
                    .or_default()
                    .args
                    .insert(index, mem);
            }
        }
        let param = param.filter(|p| p.buffer)?;
        let handle = std::mem::size_of::<Handle>();
        let what = format!(
            "argument {index} of kernel `{}` (`{} {}`)",
            signature.name, param.type_name, param.name
        );
        let (message, label) = if size != handle {
            (
                format!("{what} takes a `cl_mem` ({handle} bytes) but {size} bytes were passed"),
                format!("{size} bytes passed where a `cl_mem` is expected"),
            )
        } else if value.is_some_and(|v| v != 0) && live.is_none() {
            (
                format!("{what} takes a buffer but the bytes passed are not a live `cl_mem` of the kernel's context"),
                "these bytes are not a buffer".to_string(),
            )
        } else {
            return None;
        };
        self.once(
            format!("CLM001 {kernel} {index} {}", stack_key(site)),
            Finding {
                code: "CLM001",
                message,
                label,
                site: site.clone(),
                related: Vec::new(),
                help: "pass a pointer to the `cl_mem` of a buffer (`&buffer` of the buffer object, not of the host data)".into(),
            },
        )
    }

    /// The buffers a kernel launch uses, from the arguments set so far.
    pub fn kernel_accesses(&self, kernel: Handle) -> Vec<Access> {
        let Some(k) = self.kernels.get(&kernel) else {
            return Vec::new();
        };
        let mut args: Vec<_> = k.args.iter().collect();
        args.sort();
        args.into_iter()
            .filter_map(|(index, mem)| {
                let m = self.mems.get(mem)?;
                let read_only = k
                    .signature
                    .params
                    .as_ref()
                    .and_then(|p| p.get(*index as usize))
                    .is_some_and(|p| p.read_only);
                Some(Access {
                    mem: *mem,
                    start: m.offset,
                    end: m.offset + m.size,
                    mode: if read_only {
                        Mode::Read
                    } else {
                        Mode::ReadWrite
                    },
                })
            })
            .collect()
    }

    pub fn kernel_name(&self, kernel: Handle) -> String {
        self.kernels
            .get(&kernel)
            .map(|k| k.signature.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "?".into())
    }

    /// An access of `size` bytes at `offset` of `mem` (a buffer or sub-buffer).
    pub fn access(&self, mem: Handle, offset: usize, size: usize, mode: Mode) -> Option<Access> {
        let m = self.mems.get(&mem)?;
        Some(Access {
            mem,
            start: m.offset + offset,
            end: m.offset + offset + size,
            mode,
        })
    }

    /// The whole of `mem`.
    pub fn whole(&self, mem: Handle, mode: Mode) -> Option<Access> {
        let size = self.mems.get(&mem)?.size;
        self.access(mem, 0, size, mode)
    }

    /// A command was enqueued: checks it against what came before, then records it. Returns
    /// the command's node and the findings.
    pub fn enqueue(&mut self, cmd: Command<'_>) -> (usize, Vec<Finding>) {
        let mut findings = Vec::new();
        let Some(queue) = self.queues.get(&cmd.queue).cloned() else {
            return (usize::MAX, findings);
        };
        let id = self.nodes.len();
        let mut preds: Vec<usize> = cmd
            .waits
            .iter()
            .filter_map(|e| self.events.get(e).and_then(|e| e.node))
            .collect();
        let all_before = matches!(cmd.kind, Kind::Marker | Kind::Barrier) && cmd.waits.is_empty();
        if queue.out_of_order {
            preds.extend(queue.last_barrier);
            if all_before {
                preds.extend(queue.since_barrier.iter().copied());
            }
        } else {
            preds.extend(queue.last);
        }
        for access in &cmd.accesses {
            let Some(root) = self.mems.get(&access.mem).map(|m| m.root) else {
                continue;
            };
            findings.extend(self.check_access(root, access, &cmd, &queue, &preds));
        }
        self.nodes.push(Node {
            kind: cmd.kind.clone(),
            preds,
            done: false,
            site: Some(cmd.site.clone()),
        });
        for access in &cmd.accesses {
            let Some(root) = self.mems.get(&access.mem).map(|m| m.root) else {
                continue;
            };
            let state = self.buffers.entry(root).or_default();
            if !queue.out_of_order {
                // An earlier access of this queue, no wider and writing no more, is ordered
                // before this one: whatever is unordered with it is unordered with this one.
                state.live.retain(|l| {
                    !(l.queue == cmd.queue
                        && l.start >= access.start
                        && l.end <= access.end
                        && (access.mode.writes() || !l.mode.writes()))
                });
            }
            state.live.push(Live {
                node: id,
                queue: cmd.queue,
                start: access.start,
                end: access.end,
                mode: access.mode,
            });
        }
        let q = self.queues.get_mut(&cmd.queue).expect("looked up above");
        q.last = Some(id);
        if cmd.kind == Kind::Barrier {
            q.last_barrier = Some(id);
            q.since_barrier.clear();
        } else {
            q.since_barrier.push(id);
        }
        (id, findings)
    }

    /// The rules that look at one access of a new command.
    fn check_access(
        &mut self,
        root: Handle,
        access: &Access,
        cmd: &Command<'_>,
        queue: &Queue,
        preds: &[usize],
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        let this = format!(
            "{} on queue {} (device {})",
            cmd.kind.describe(),
            queue.number,
            self.device_number(queue.device)
        );
        let mode = match cmd.kind {
            Kind::Migrate { flags } if flags & MIGRATE_CONTENT_UNDEFINED != 0 => Mode::Write,
            _ => access.mode,
        };
        let live = self.buffers.entry(root).or_default().live.clone();
        let mut still_live = Vec::with_capacity(live.len());
        for l in live {
            if self.nodes[l.node].done {
                continue;
            }
            still_live.push(l.clone());
            let overlaps = l.start < access.end && access.start < l.end;
            if !overlaps || !(l.mode.writes() || mode.writes()) || self.ordered(l.node, preds) {
                continue;
            }
            let other = &self.nodes[l.node];
            let Some(other_site) = other.site.clone() else {
                continue;
            };
            let other_queue = self.queues.get(&l.queue);
            let that = format!(
                "{} on queue {} (device {})",
                other.kind.describe(),
                other_queue.map_or(0, |q| q.number),
                other_queue.map_or(0, |q| self.device_number(q.device))
            );
            let verb = |m: Mode| if m.writes() { "writes" } else { "reads" };
            let key = format!("CLM003 {} {}", stack_key(&cmd.site), stack_key(&other_site));
            findings.extend(self.once(
                key,
                Finding {
                    code: "CLM003",
                    message: format!(
                        "{this} is not ordered after {that}: both use the same bytes of a buffer and one writes"
                    ),
                    label: format!("{} here, not ordered after the {}", verb(mode), other.kind.describe()),
                    site: cmd.site.clone(),
                    related: vec![(format!("{that} {} the buffer here", verb(l.mode)), other_site)],
                    help: format!(
                        "pass the event of the {} in this command's wait list, or wait for it before enqueueing this command",
                        other.kind.describe()
                    ),
                },
            ));
        }
        self.buffers.entry(root).or_default().live = still_live;
        findings.extend(self.check_moves(root, access, cmd, queue, mode));
        findings
    }

    /// CLM002, CLM004 and CLM005: how the buffer moves between the host and the devices.
    fn check_moves(
        &mut self,
        root: Handle,
        access: &Access,
        cmd: &Command<'_>,
        queue: &Queue,
        mode: Mode,
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        let multi_device = queue.context_devices > 1;
        let device_number = self.device_number(queue.device);
        let state = self.buffers.entry(root).or_default();
        let mut pending = Vec::new();
        if cmd.kind.is_device_use() {
            if let Some(site) = state.host_migration.take() {
                pending.push(Finding {
                    code: "CLM002",
                    message: format!(
                        "the buffer is migrated to the host (`CL_MIGRATE_MEM_OBJECT_HOST`) and next used by {} on device {device_number}",
                        cmd.kind.describe()
                    ),
                    label: "migrated to the host here".into(),
                    site,
                    related: vec![(format!("next used on device {device_number} here"), cmd.site.clone())],
                    help: "between devices migrate with flags `0`: the driver then moves the buffer the best way it has".into(),
                });
            }
            if let Some((device, site)) = state.same_device_migration.take() {
                if device != queue.device {
                    pending.push(Finding {
                        code: "CLM005",
                        message: format!(
                            "the buffer is migrated on a queue of the device that already holds it, then used on device {device_number}"
                        ),
                        label: "migrated to the device that already holds it".into(),
                        site,
                        related: vec![(format!("used on device {device_number} here"), cmd.site.clone())],
                        help: format!("enqueue the migration on a queue of device {device_number}, where the buffer goes"),
                    });
                }
            }
        } else if !matches!(cmd.kind, Kind::Migrate { .. }) {
            state.host_migration = None;
        }
        match cmd.kind {
            Kind::Migrate { flags } if flags & MIGRATE_HOST != 0 => {
                state.host_migration = Some(cmd.site.clone());
                state.location = None;
            }
            Kind::Migrate { .. } => {
                if multi_device && state.location == Some(queue.device) {
                    state.same_device_migration = Some((queue.device, cmd.site.clone()));
                }
                state.location = Some(queue.device);
            }
            Kind::Kernel(_) | Kind::Write | Kind::Copy | Kind::Fill => {
                state.location = Some(queue.device);
            }
            _ => {}
        }
        if mode.writes() && cmd.kind != Kind::Write {
            state
                .uploads
                .retain(|u| u.end <= access.start || access.end <= u.start);
        }
        for f in pending {
            let key = format!("{} {}", f.code, stack_key(&f.site));
            findings.extend(self.once(key, f));
        }
        findings
    }

    /// A write from host memory of `hash`: CLM004 when the same bytes were uploaded to the
    /// same range with no write since.
    pub fn upload(&mut self, access: &Access, hash: u64, site: &Site) -> Option<Finding> {
        let root = self.mems.get(&access.mem)?.root;
        let state = self.buffers.entry(root).or_default();
        let earlier = state
            .uploads
            .iter()
            .find(|u| u.start == access.start && u.end == access.end && u.hash == hash)
            .map(|u| u.site.clone());
        state
            .uploads
            .retain(|u| u.end <= access.start || access.end <= u.start);
        state.uploads.push(Upload {
            start: access.start,
            end: access.end,
            hash,
            site: site.clone(),
        });
        let earlier = earlier?;
        let bytes = access.end - access.start;
        self.once(
            format!("CLM004 {} {}", stack_key(site), stack_key(&earlier)),
            Finding {
                code: "CLM004",
                message: format!(
                    "the same {bytes} bytes are uploaded again to a buffer that nothing wrote since"
                ),
                label: "uploaded again here".into(),
                site: site.clone(),
                related: vec![("first uploaded here".into(), earlier)],
                help: "a buffer of a context is visible to every device in it: upload it once"
                    .into(),
            },
        )
    }

    /// A new event: of a command (`node`) or a user event.
    pub fn add_event(
        &mut self,
        event: Handle,
        node: Option<usize>,
        created_by: &'static str,
        site: &Site,
    ) {
        self.events.insert(
            event,
            Event {
                node,
                refs: 1,
                created_by,
                site: site.clone(),
            },
        );
    }

    /// `clCreateUserEvent`: a node no command precedes, complete when the host says so.
    pub fn add_user_event(&mut self, event: Handle, site: &Site) {
        let id = self.nodes.len();
        self.nodes.push(Node {
            kind: Kind::Marker,
            preds: Vec::new(),
            done: false,
            site: None,
        });
        self.add_event(event, Some(id), "clCreateUserEvent", site);
    }

    pub fn retain_event(&mut self, event: Handle) {
        if let Some(e) = self.events.get_mut(&event) {
            e.refs += 1;
        }
    }

    pub fn release_event(&mut self, event: Handle) {
        if let Some(e) = self.events.get_mut(&event) {
            e.refs -= 1;
            if e.refs == 0 {
                self.events.remove(&event);
            }
        }
    }

    /// The host knows these events completed (`clWaitForEvents`, a user event's status).
    pub fn events_done(&mut self, events: &[Handle]) {
        let nodes: Vec<usize> = events
            .iter()
            .filter_map(|e| self.events.get(e).and_then(|e| e.node))
            .collect();
        for n in nodes {
            self.done(n);
        }
    }

    /// `clFinish`: everything enqueued on the queue completed.
    pub fn finish(&mut self, queue: Handle) {
        let Some(q) = self.queues.get(&queue) else {
            return;
        };
        let nodes: Vec<usize> = q
            .last
            .iter()
            .chain(q.last_barrier.iter())
            .chain(q.since_barrier.iter())
            .copied()
            .collect();
        for n in nodes {
            self.done(n);
        }
    }

    /// A command completed before the call that enqueued it returned (a blocking read or map).
    pub fn done(&mut self, node: usize) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get_mut(n) else {
                continue;
            };
            if node.done {
                continue;
            }
            node.done = true;
            node.site = None;
            stack.extend(node.preds.iter().copied());
        }
    }

    /// Whether node `a` happens before a command whose direct predecessors are `preds`.
    fn ordered(&self, a: usize, preds: &[usize]) -> bool {
        if self.nodes[a].done {
            return true;
        }
        let mut seen = HashSet::new();
        let mut stack = preds.to_vec();
        while let Some(n) = stack.pop() {
            if n == a {
                return true;
            }
            if n < a || self.nodes[n].done || !seen.insert(n) {
                continue;
            }
            stack.extend(self.nodes[n].preds.iter().copied());
        }
        false
    }

    pub fn map(&mut self, ptr: usize, mem: Handle, mode: Mode) {
        self.mapped.insert(ptr, (mem, mode));
    }

    pub fn unmap(&mut self, ptr: usize) -> Option<(Handle, Mode)> {
        self.mapped.remove(&ptr)
    }

    fn device_number(&self, device: Handle) -> usize {
        self.device_index.get(&device).copied().unwrap_or(0)
    }

    /// CLM006: the events the program created and never released, at exit.
    pub fn unreleased_events(&mut self) -> Vec<Finding> {
        let mut events: Vec<_> = self.events.drain().map(|(_, e)| e).collect();
        events.sort_by_key(|e| e.node);
        let mut out = Vec::new();
        for e in events {
            let key = format!("CLM006 {}", stack_key(&e.site));
            out.extend(self.once(
                key,
                Finding {
                    code: "CLM006",
                    message: format!("the event created by `{}` is never released", e.created_by),
                    label: "event created here and never released".into(),
                    site: e.site,
                    related: Vec::new(),
                    help: "release it with `clReleaseEvent` when done with it, or hand it to an owner that does".into(),
                },
            ));
        }
        out
    }

    /// `finding`, unless one with this key was reported already.
    fn once(&mut self, key: String, finding: Finding) -> Option<Finding> {
        self.reported.insert(key).then_some(finding)
    }
}

/// The whole call stack as `file:line` pairs, as a key for "the same place" (the innermost
/// frames are often those of a binding crate, the same for every call).
fn stack_key(site: &Site) -> String {
    let frames: Vec<String> = site
        .frames()
        .iter()
        .map(|f| format!("{}:{}", f.file.as_deref().unwrap_or(""), f.line))
        .collect();
    frames.join(" ")
}

/// The hash of uploaded bytes.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}
