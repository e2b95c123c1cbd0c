//! Kernels: their signatures (from program sources and `.cl` files), arguments checked
//! against them, and the buffers a launch reads and writes.

use super::commands::Resolved;
use super::*;

/// A buffer, how a kernel uses it, and the part of it the kernel touches where a by-value
/// argument or a global work offset picks it (the kernel's parameter, as a region's key).
type KernelUse = (ObjId, Mode, Option<OffsetKey>);

/// What a launch touches: `uses` is `None` when some argument is not known; `waits` is
/// `None` when its wait list is not known.
struct LaunchInfo {
    /// Each buffer the kernel uses.
    pub(super) uses: Option<Vec<KernelUse>>,
    pub(super) waits: Option<BTreeSet<usize>>,
    pub(super) kernel: Option<String>,
    /// Some arguments were set where the analysis does not see.
    pub(super) partial: bool,
    /// Host memory was given for a buffer the kernel may write: it writes the buffer that
    /// was meant, which the analysis cannot name.
    pub(super) writes_unnamed: bool,
}

impl LaunchInfo {
    /// The launch of one of several kernels: each buffer is used as every one of them uses
    /// it, else it may be written where one of them writes it (and read where they only
    /// read it); it waits for what all of them wait for.
    fn either(infos: Vec<LaunchInfo>, kernel: String) -> LaunchInfo {
        let n = infos.len();
        let mut uses: Option<Vec<Vec<KernelUse>>> = Some(Vec::new());
        let mut waits = Some(BTreeSet::new());
        let (mut partial, mut writes_unnamed) = (false, false);
        for info in infos {
            match (uses.as_mut(), info.uses) {
                (Some(all), Some(u)) => all.push(u),
                _ => uses = None,
            }
            match (waits.as_mut(), info.waits) {
                (Some(all), Some(w)) => all.extend(w),
                _ => waits = None,
            }
            partial |= info.partial;
            writes_unnamed |= info.writes_unnamed;
        }
        let uses = uses.map(|all| {
            // Each buffer, with how each kernel that uses it does.
            let mut by_buffer: Vec<(ObjId, Vec<KernelUse>)> = Vec::new();
            for u in all.into_iter().flatten() {
                match by_buffer.iter_mut().find(|(x, _)| *x == u.0) {
                    Some((_, seen)) => seen.push(u),
                    None => by_buffer.push((u.0, vec![u])),
                }
            }
            // Where they differ, each way one of them uses it, a write being one that may
            // not happen: a read of the whole buffer by one and a write of its own rows by
            // the other race with a read elsewhere only where those rows are.
            (by_buffer.into_iter())
                .flat_map(|(b, seen)| {
                    let alike = seen.len() == n && seen.iter().all(|s| *s == seen[0]);
                    if alike {
                        return vec![seen[0]];
                    }
                    let mut ways: Vec<KernelUse> = Vec::new();
                    for (_, mode, region) in seen {
                        let mode = match mode {
                            Mode::Read => Mode::Read,
                            _ => Mode::MaybeWrite,
                        };
                        if !ways.contains(&(b, mode, region)) {
                            ways.push((b, mode, region));
                        }
                    }
                    ways
                })
                .collect()
        });
        LaunchInfo {
            uses,
            waits,
            kernel: Some(kernel),
            partial,
            writes_unnamed,
        }
    }

    /// A launch whose buffers are not known: of a kernel the analysis cannot follow, or not
    /// a kernel at all.
    fn untracked(waits: Option<BTreeSet<usize>>, kernel: Option<String>) -> LaunchInfo {
        LaunchInfo {
            uses: None,
            waits,
            kernel,
            partial: false,
            writes_unnamed: false,
        }
    }
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

    /// The signature of kernel `name`, when exactly one is known.
    pub fn get(&self, name: &str) -> Option<KernelSig> {
        self.0.get(name).cloned().flatten()
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
            return self.beside.get(name);
        };
        if !self.parsed.contains_key(source) {
            let sigs = kernel_src::parse_kernels(source);
            self.parsed.insert(source.to_string(), sigs);
        }
        self.parsed[source].iter().find(|s| s.name == name).cloned()
    }
}

/// The bytes of a `cl_mem` handle (a pointer) on the 64-bit hosts the checker models.
const HANDLE_BYTES: u64 = 8;

/// Where a kernel argument is set: the set-arg call, and the call of the helper that set it
/// at an index it was given (`arg_mem(k, 2, &b)`), with the helper's name.
#[derive(Clone, Debug)]
pub(super) struct SetSite {
    pub(super) span: Span,
    pub(super) call: Option<(Span, String)>,
    /// The bytes the argument passes, where known.
    pub(super) size: Option<u64>,
}

impl SetSite {
    /// Where findings on it are kept apart: the helper's call, else the set-arg call.
    fn key(&self) -> Span {
        self.call.as_ref().map_or(self.span, |c| c.0)
    }
}

impl<'f> Analyzer<'f> {
    pub(super) fn classify_arg(
        &mut self,
        st: &mut State,
        kernel: ObjId,
        index: u64,
        value: &Value,
        arg: &ArgSpan,
        site: &SetSite,
    ) -> Arg {
        // A value from outside given for a `__global` or `__constant` pointer is a buffer
        // (host memory is no value from outside: it is host data).
        let role = match &self.objs[kernel].kind {
            ObjKind::Kernel { sig: Some(sig) } => (sig.params.get(index as usize))
                .filter(|p| p.takes_mem_object())
                .map(|_| RoleHint::Buffer),
            _ => None,
        };
        let a = self.eval(st, value, role, "arg");
        self.check_signature(kernel, index, &a, arg, site);
        match a {
            AVal::Obj(o) if matches!(self.objs[o].kind, ObjKind::Buffer) => Arg::Buffer(o),
            AVal::Host { kind, id } => {
                let sig = match &self.objs[kernel].kind {
                    ObjKind::Kernel { sig, .. } => sig.clone(),
                    _ => None,
                };
                let param = sig.as_ref().and_then(|s| s.params.get(index as usize));
                // Of a kernel whose source is not known, an argument whose size is not a
                // handle's (`size_of_val(tint)` of a `[cl_float; 4]`) is a value, not a
                // buffer the host data stands in for.
                let handle_sized = site.size.is_none_or(|n| n == HANDLE_BYTES);
                let fires = match param {
                    Some(p) => p.takes_mem_object(),
                    None => sig.is_none() && !kind.could_be_by_value() && handle_sized,
                };
                if !fires {
                    return Arg::Other;
                }
                let bufs = st.host_buffers.get(&id).cloned().unwrap_or_default();
                let suggestion = (bufs.len() == 1).then(|| *bufs.iter().next().unwrap_or(&0));
                let key = site.key();
                if self.seen.insert((1, key.start, key.file)) {
                    self.raw.push(RawFact::Ready(Box::new(Fact::HostArg {
                        set_arg: site.span,
                        arg: arg.clone(),
                        kernel: self.objs[kernel].name.clone(),
                        index,
                        host: kind,
                        param: param.map(|p| p.name.clone()),
                        suggestion: suggestion.map(|b| self.objs[b].name.clone()),
                        call: site.call.clone(),
                    })));
                }
                Arg::Host(id)
            }
            AVal::Scalar | AVal::Int(_) | AVal::Above(..) | AVal::Null => Arg::Other,
            _ => {
                self.collect_and_forget(st, &a);
                Arg::Unknown
            }
        }
    }

    /// Compares an argument with the kernel's signature, when its source is visible.
    fn check_signature(
        &mut self,
        kernel: ObjId,
        index: u64,
        a: &AVal,
        arg: &ArgSpan,
        site: &SetSite,
    ) {
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
                AVal::Scalar | AVal::Int(_) | AVal::Above(..) if p.takes_mem_object() => {
                    Some(Mismatch::ScalarForPointer {
                        param: p.name.clone(),
                        decl: p.decl.clone(),
                    })
                }
                // A value of another size than the type the kernel takes by value:
                // `CL_INVALID_ARG_SIZE` (OpenCL 3.0, `clSetKernelArg`).
                _ => match (site.size, p.value_size()) {
                    (Some(size), Some(expected)) if size != expected => {
                        Some(Mismatch::ScalarSize {
                            param: p.name.clone(),
                            decl: p.decl.clone(),
                            size,
                            expected,
                        })
                    }
                    _ => None,
                },
            },
        };
        if let Some(problem) = problem {
            let key = site.key();
            if self.seen.insert((7, key.start, key.file)) {
                self.raw.push(RawFact::Ready(Box::new(Fact::ArgMismatch {
                    set_arg: site.span,
                    arg: arg.clone(),
                    kernel: self.objs[kernel].name.clone(),
                    index,
                    problem,
                    call: site.call.clone(),
                })));
            }
        }
    }

    /// The buffers a launch touches and how, its wait list and the kernel's name.
    fn launch_accesses(&self, st: &State, kernel: &AVal, at: Span, offset: bool) -> LaunchInfo {
        let AVal::Obj(o) = kernel else {
            return LaunchInfo::untracked(Some(BTreeSet::new()), None);
        };
        if let Some(members) = self.kernel_choices.get(o) {
            let infos = (members.iter())
                .map(|m| self.launch_accesses(st, &AVal::Obj(*m), at, offset))
                .collect();
            return LaunchInfo::either(infos, self.objs[*o].name.clone());
        }
        let (k, args, waits): (ObjId, Vec<(u64, Arg)>, Option<BTreeSet<usize>>) =
            match &self.objs[*o].kind {
                ObjKind::Kernel { .. } => match st.kernel_args.get(o) {
                    Some(ka) if ka.known => (*o, ka.args.clone(), Some(BTreeSet::new())),
                    // A kernel from outside the crate built with buffers of its struct: those,
                    // and the ones set here; what the others touch is not known.
                    ka if self.built_args.contains_key(o) => {
                        let mut args = ka.map_or(Vec::new(), |ka| ka.args.clone());
                        for (i, b) in &self.built_args[o] {
                            if !args.iter().any(|(j, _)| j == i) {
                                args.push((*i, Arg::Buffer(*b)));
                            }
                        }
                        args.sort_by_key(|(i, _)| *i);
                        args.push((u64::MAX, Arg::Unknown));
                        (*o, args, Some(BTreeSet::new()))
                    }
                    // A kernel from outside with arguments set here: those accesses are
                    // known; what the others touch is not.
                    Some(ka) if !ka.args.is_empty() => {
                        let mut args = ka.args.clone();
                        args.push((u64::MAX, Arg::Unknown));
                        (*o, args, Some(BTreeSet::new()))
                    }
                    _ => {
                        return LaunchInfo::untracked(
                            Some(BTreeSet::new()),
                            Some(self.objs[*o].name.clone()),
                        )
                    }
                },
                ObjKind::Launch { kernel: Some(k) } => match st.launches.get(o) {
                    Some(ls) => {
                        let mut args: Vec<(u64, Arg)> = (ls.args.iter().enumerate())
                            .map(|(i, a)| (i as u64, a.clone()))
                            .collect();
                        // `ExecuteKernel` sets arguments from index 0 on: the kernel keeps
                        // those set before at the indices past them (a kernel whose
                        // arguments a helper set, launched with no `set_arg`).
                        let given = ls.args.len() as u64;
                        if let Some(set) = st.kernel_args.get(k) {
                            args.extend(set.args.iter().filter(|(i, _)| *i >= given).cloned());
                        }
                        (*k, args, ls.waits.clone())
                    }
                    None => return LaunchInfo::untracked(None, Some(self.objs[*k].name.clone())),
                },
                _ => return LaunchInfo::untracked(Some(BTreeSet::new()), None),
            };
        let sig = match &self.objs[k].kind {
            ObjKind::Kernel { sig, .. } => sig.clone(),
            _ => None,
        };
        let offset = offset || self.offset_kernels.contains(&k);
        let mut out = Vec::new();
        let mut partial = false;
        let mut writes_unnamed = false;
        for (i, a) in args {
            let param = sig.as_ref().and_then(|s| s.params.get(i as usize));
            let a = match a {
                Arg::Host(id) => match st.host_buffers.get(&id) {
                    Some(bufs) if bufs.len() == 1 => {
                        bufs.iter().next().map_or(Arg::Other, |b| Arg::Buffer(*b))
                    }
                    _ => {
                        writes_unnamed |= param.is_none_or(|p| p.access != ParamAccess::Read);
                        Arg::Other
                    }
                },
                a => a,
            };
            match a {
                Arg::Buffer(b) => {
                    let region = match (&sig, param) {
                        (Some(s), Some(p)) if p.region => {
                            Some(OffsetKey::of(&format!("{}({})", s.name, p.name)))
                        }
                        // Launched from a global work offset (`cl::NDRange(0, row0)`), a
                        // pointer written at its work-items' ids: the elements of those.
                        (Some(s), Some(p)) if offset && p.by_global_id => Some(OffsetKey::of(
                            &format!("{}({}) from an offset", s.name, p.name),
                        )),
                        // A kernel whose source is not seen may write any part of the
                        // buffer: one launch statement run on several queues (a loop over
                        // the devices) is taken to split the work between them, as launches
                        // a by-value argument offsets do.
                        (None, _) => Some(OffsetKey::unseen(at, i)),
                        _ => None,
                    };
                    let mode = match param {
                        Some(p) => match p.access {
                            ParamAccess::Read => Mode::Read,
                            ParamAccess::Write | ParamAccess::ReadWrite => Mode::Write,
                            ParamAccess::Unknown => Mode::MaybeWrite,
                        },
                        None => Mode::MaybeWrite,
                    };
                    // A kernel of unknown access that is the first to use a buffer whose
                    // contents are undefined writes it: reading it would read nothing defined.
                    // One made `CL_MEM_READ_ONLY` it only reads ("writing to a buffer [..]
                    // created with CL_MEM_READ_ONLY inside a kernel is undefined").
                    let mode = match mode {
                        Mode::MaybeWrite if self.read_only.contains(&b) => Mode::Read,
                        Mode::MaybeWrite if self.contents_undefined(st, b) => Mode::Write,
                        m => m,
                    };
                    out.push((
                        b,
                        mode,
                        region.filter(|_| {
                            mode == Mode::Write
                                || sig.is_none()
                                || mode == Mode::Read
                                    && param.is_some_and(|p| p.region || (offset && p.by_global_id))
                        }),
                    ));
                }
                Arg::Other | Arg::Host(_) => {}
                // A value the kernel takes by value touches no buffer, whatever it is.
                Arg::Unknown if param.is_some_and(|p| p.value_size().is_some()) => {}
                // Arguments set elsewhere, or one the analysis cannot name: the known ones
                // still count, and what the launch may touch besides (buffers from outside
                // or handed to code the analysis does not see) is forgotten.
                Arg::Unknown => partial = true,
            }
        }
        LaunchInfo {
            uses: Some(out),
            waits,
            kernel: Some(self.objs[k].name.clone()),
            partial,
            writes_unnamed,
        }
    }

    /// Whether a buffer was made here from no host data and no command has used it yet:
    /// none on this path, none the analysis could not name, and no code it does not see.
    fn contents_undefined(&self, st: &State, b: ObjId) -> bool {
        self.undefined.get(&b) == Some(&self.unknown_writes)
            && !st.escaped.contains(&b)
            && st.accesses.get(&b).is_none_or(Vec::is_empty)
    }

    /// Adds the accesses and wait list of a launch, enqueued by the statement at `at` and
    /// given a global work offset where `offset`, to a command.
    pub(super) fn add_launch(
        &self,
        st: &State,
        kernel: &AVal,
        at: Span,
        offset: bool,
        r: &mut Resolved,
    ) {
        let LaunchInfo {
            uses,
            waits,
            kernel: name,
            partial,
            writes_unnamed,
        } = self.launch_accesses(st, kernel, at, offset);
        r.kernel_name = name;
        if let AVal::Obj(o) = kernel {
            r.launch_waits = st.launches.get(o).map_or(Vec::new(), |ls| ls.lists.clone());
        }
        r.outside_buffers |= partial;
        r.writes_unnamed |= writes_unnamed;
        match uses {
            Some(acc) => r.uses.extend(acc.into_iter().map(|(b, m, region)| {
                let info = UseInfo {
                    offset: region,
                    ..UseInfo::default()
                };
                (b, m, info)
            })),
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
}
