//! The crate's kernels, read from the whole crate before any function is analyzed: the
//! kernels of the program sources it names, by kernel name, and which kernel each struct
//! field is given where the crate creates it (`Self { forces: Kernel::create(&program,
//! "forces")?, .. }`, `let forces = ..; Self { forces }`, `g->step = clCreateKernel(prog,
//! "heat_step", &err)`, ocl's `pro_que.kernel_builder("diffuse")..build()`). A kernel
//! created by name from a program the function does not see (`self.pq`, a parameter), or
//! one kept in a field (`self.forces`), then has its signature: its arguments are checked
//! against it, and a launch reads and writes what its parameters say. A field given two
//! different kernels anywhere in the crate, or a kernel name two sources declare
//! differently, gives nothing.
//!
//! A kernel built with its arguments where the struct that keeps it is built (ocl's
//! `Kernel::builder()..arg(&gray)..queue(features.clone())`, `k.set_arg(0, &buf)` before
//! `Self { k, buf, .. }`), and kept beside those buffers and that queue in the struct, has
//! them in any method: `self.gradient`'s argument 0 is `self.gray`. So is a kernel field
//! whose argument is set to a sibling field of the same struct (a C++ constructor's
//! `clSetKernelArg(dots_, 1, sizeof(cl_mem), &y_)`, C's `&w->partial` on `w->k`). Where
//! anything else in the crate sets that argument of that field, or an argument at that
//! index of a kernel the code was given, nothing is known. So for a buffer built with its
//! default queue.
//!
//! A field the crate gives no value at all (a struct the program fills elsewhere) holds the
//! kernel of its own name, where the crate's sources declare one so named: `k.prefix` of
//! `struct SortKernels { prefix: cl_kernel, .. }` beside `kernel void prefix(..)`. A map of
//! kernels by name holds the kernel of each literal key (`self.kernels["histogram"]`).
//!
//! It also records whether the crate registers a function to run at exit (`atexit`).

use std::collections::{HashMap, HashSet};

use super::KernelFiles;
use crate::ir::*;
use crate::kernel_src::KernelSig;

#[derive(Debug, Default)]
pub struct CrateKernels {
    /// The kernel name each field holds; `None` where the crate gives it several.
    by_field: HashMap<String, Option<String>>,
    /// The fields the crate gives a value anywhere, by name.
    given: HashSet<String>,
    /// The kernels of the program sources the crate names, and of those it keeps in
    /// constants.
    sources: KernelFiles,
    /// Per field: what its kernel or buffer was built with, as sibling fields.
    bound: HashMap<String, Vec<(Slot, String)>>,
    /// Fields that hold an out-of-order queue wherever the crate builds their struct.
    out_of_order: HashSet<String>,
    exit_handler: bool,
    /// Whether a type of the crate releases an event when it is dropped (`impl Drop for
    /// Ev { fn drop(&mut self) { clReleaseEvent(self.0) } }`, a C++ destructor).
    drop_releases: bool,
}

impl CrateKernels {
    pub fn new<'f, 's>(
        functions: impl IntoIterator<Item = &'f Function>,
        constants: impl IntoIterator<Item = &'s str>,
    ) -> CrateKernels {
        let mut seen = Seen::default();
        let functions: Vec<&Function> = functions.into_iter().collect();
        let releasing = releasing(&functions);
        let drop_releases = functions.iter().any(|f| {
            let last = f.name.rsplit("::").next().unwrap_or("");
            (last == "drop" || last.starts_with('~')) && releasing.contains(f.name.as_str())
        });
        for f in &functions {
            let s = Setter::of(f);
            seen.setters
                .entry(f.name.clone())
                .and_modify(|x| *x = None)
                .or_insert(s);
            agree(&mut seen.makers, f.name.clone(), maker(f));
            agree(&mut seen.passers, f.name.clone(), passer(f));
        }
        for f in functions {
            let mut names = Locals::default();
            let mut built = HashMap::new();
            seen.block(&f.body, &f.vars, &mut names);
            let setter = seen.setters.get(&f.name).is_some_and(Option::is_some);
            seen.built(&f.body, &mut built, &f.params, &mut HashMap::new(), setter);
        }
        let mut sources: Vec<&str> = seen.sources.iter().map(String::as_str).collect();
        for c in constants {
            sources.push(c);
        }
        sources.sort_unstable();
        sources.dedup();
        let mut bound: HashMap<String, Vec<(Slot, String)>> = HashMap::new();
        for ((field, slot), sibling) in seen.bound {
            let reset = match slot {
                Slot::Arg(i) => {
                    seen.reset.contains(&(field.clone(), Some(i))) || seen.reset_index.contains(&i)
                }
                Slot::Queue => false,
            };
            if let (Some(g), false) = (
                sibling,
                reset || seen.reset.contains(&(field.clone(), None)),
            ) {
                bound.entry(field).or_default().push((slot, g));
            }
        }
        for slots in bound.values_mut() {
            slots.sort_by_key(|(s, _)| match s {
                Slot::Arg(i) => *i,
                Slot::Queue => u64::MAX,
            });
        }
        CrateKernels {
            by_field: seen.by_field,
            given: seen.given,
            sources: KernelFiles::new(sources),
            bound,
            exit_handler: seen.exit_handler,
            drop_releases,
            out_of_order: (seen.out_of_order.into_iter())
                .filter(|(_, o)| *o == Some(true))
                .map(|(f, _)| f)
                .collect(),
        }
    }

    /// Whether a type of the crate releases an event when it is dropped: an event the
    /// program writes into a struct's field may be that struct's to release.
    pub fn drop_releases(&self) -> bool {
        self.drop_releases
    }

    /// Whether the crate registers a function to run at exit (`atexit(cleanup)`): what a
    /// global holds when `main` returns may still be released.
    pub fn exit_handler(&self) -> bool {
        self.exit_handler
    }

    /// Whether the queue in a place ending in field `f` is one the crate makes out of order
    /// wherever it builds a struct with it.
    pub fn out_of_order(&self, p: &Place) -> bool {
        matches!(p.proj.last(), Some(Proj::Field(f)) if self.out_of_order.contains(f))
    }

    /// What the kernel or buffer in a place ending in field `f` was built with, as
    /// sibling fields: `[(Arg(0), "gray"), (Queue, "features")]`.
    pub fn bound(&self, p: &Place) -> &[(Slot, String)] {
        match p.proj.last() {
            Some(Proj::Field(f)) => self.bound.get(f).map_or(&[], Vec::as_slice),
            _ => &[],
        }
    }

    /// The kernel a place ending in field `f` (or in a member of it, `f[1]`) holds.
    pub fn kernel_of<'a>(&'a self, p: &'a Place) -> Option<&'a str> {
        // A field that maps kernel names to kernels (`self.kernels["histogram"]`): the
        // kernel of that name.
        if let [.., Proj::Field(_), Proj::Key(name)] = p.proj.as_slice() {
            return Some(name.as_str());
        }
        let field = p.proj.iter().rev().find_map(|x| match x {
            Proj::Field(f) => Some(f),
            _ => None,
        })?;
        let members = p
            .proj
            .iter()
            .rev()
            .take_while(|x| !matches!(x, Proj::Field(_)))
            .count();
        let key = match members {
            0 => field.clone(),
            1 => members_of(field),
            _ => return None,
        };
        match self.by_field.get(&key) {
            Some(k) => k.as_deref(),
            None if members == 0 && !self.given.contains(field) => Some(field.as_str()),
            None => None,
        }
    }

    /// The kernel the crate keeps in global `key` (`static cl_kernel k_reduce;`), where
    /// every function that sets it gives it the same.
    pub fn kernel_of_global(&self, key: &str) -> Option<&str> {
        self.by_field.get(&global_key(key))?.as_deref()
    }

    /// The signature of kernel `name` in the crate's program sources, when exactly one is
    /// declared.
    pub fn sig(&self, name: &str) -> Option<KernelSig> {
        self.sources.get(name)
    }
}

/// What a field's kernel or buffer was built with: an argument, or its default queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Arg(u64),
    Queue,
}

/// What a local holds that was built with other locals: an ocl builder's arguments in
/// order and its queue, or the arguments set on a kernel.
#[derive(Clone, Default)]
struct Built {
    args: Vec<(u64, Option<Var>)>,
    queue: Option<Option<Var>>,
    /// For a queue made here: whether it runs its commands out of order.
    out_of_order: Option<bool>,
}

#[derive(Default)]
struct Seen {
    by_field: HashMap<String, Option<String>>,
    given: HashSet<String>,
    sources: Vec<String>,
    /// Per field and slot: the sibling field it was built with, `None` where several.
    bound: HashMap<(String, Slot), Option<String>>,
    /// Slots set somewhere other than where the struct is built: by field (`None` for
    /// every slot of it), and argument indexes set on kernels the code was given.
    reset: HashSet<(String, Option<u64>)>,
    reset_index: HashSet<u64>,
    /// Per field given a queue made where the struct is built: whether it is out of order,
    /// `None` where the crate gives it both kinds.
    out_of_order: HashMap<String, Option<bool>>,
    /// Functions that only set an argument of the kernel they are given, by name (`None`
    /// where two functions share the name).
    setters: HashMap<String, Option<Setter>>,
    /// Functions that return the kernel named by one of their parameters, with that
    /// parameter's index (`cl_kernel make_kernel(const char *name)`); `None` where two
    /// functions share the name or they differ.
    makers: HashMap<String, Option<usize>>,
    /// Functions that only give back one of their parameters, with its index: an error
    /// wrapper (`fn cl<T>(r: Result<T>, what: &str) -> Result<T, String> { r.map_err(..) }`
    /// around `Kernel::create(..)`); `None` where two functions share the name or they differ.
    passers: HashMap<String, Option<usize>>,
    /// Whether the crate registers a function to run at exit (`atexit(cleanup)`).
    exit_handler: bool,
}

/// The parameter whose string names the kernel `f` creates and returns: `return
/// clCreateKernel(prog, name, &err)`, or the local it was created into.
fn maker(f: &Function) -> Option<usize> {
    let mut made: HashMap<Var, usize> = HashMap::new();
    let named = |v: &Value| match v {
        Value::New(NewObject::Kernel {
            name: None,
            name_at: Some(at),
            ..
        }) if at.proj.is_empty() => f.params.iter().position(|p| *p == at.var),
        _ => None,
    };
    let mut returned = None;
    for s in &f.body {
        match s {
            Stmt::Assign { dst, value, .. } if dst.proj.is_empty() => match named(value) {
                Some(i) => {
                    made.insert(dst.var, i);
                }
                None => {
                    made.remove(&dst.var);
                }
            },
            Stmt::Return { value, .. } => {
                returned = match value {
                    Value::Place(p) if p.proj.is_empty() => made.get(&p.var).copied(),
                    v => named(v),
                };
            }
            _ => {}
        }
    }
    returned
}

/// The parameter `f` gives back, where its body does nothing else.
fn passer(f: &Function) -> Option<usize> {
    match &f.body[..] {
        [Stmt::Return {
            value: Value::Place(p),
            ..
        }] if p.proj.is_empty() => f.params.iter().position(|x| *x == p.var),
        _ => None,
    }
}

/// A function that sets argument `index` of its parameter `kernel` to its parameter
/// `value` (`fn set_arg(k: cl_kernel, i: cl_uint, v: &T) { set_kernel_arg(k, i, ..) }`).
#[derive(Clone, Copy)]
struct Setter {
    kernel: usize,
    index: SetterIndex,
    value: usize,
}

#[derive(Clone, Copy)]
enum SetterIndex {
    Param(usize),
    Fixed(u64),
}

impl Setter {
    /// Whether `f` is such a function: one argument set, of its parameters, at its top level.
    fn of(f: &Function) -> Option<Setter> {
        let pos = |v: Var| f.params.iter().position(|p| *p == v);
        let param = |x: &Value| match x {
            Value::Place(p) if p.proj.is_empty() => pos(p.var),
            _ => None,
        };
        let mut sets = f.body.iter().filter(|s| matches!(s, Stmt::SetArg { .. }));
        let (
            Some(Stmt::SetArg {
                kernel,
                index,
                index_at,
                name: None,
                value,
                ..
            }),
            None,
        ) = (sets.next(), sets.next())
        else {
            return None;
        };
        let index = match (index, index_at) {
            (Some(n), _) => SetterIndex::Fixed(*n),
            (None, Some(p)) if p.proj.is_empty() => SetterIndex::Param(pos(p.var)?),
            _ => return None,
        };
        Some(Setter {
            kernel: param(kernel)?,
            index,
            value: param(value)?,
        })
    }
}

impl Seen {
    /// Follows what locals are built with, and records the fields of a struct built from
    /// them (`Self { gradient, gray, features, .. }`).
    fn built(
        &mut self,
        body: &[Stmt],
        built: &mut HashMap<Var, Built>,
        params: &[Var],
        alias: &mut HashMap<Var, String>,
        setter: bool,
    ) {
        let local = |v: &Value| match v {
            Value::Place(p) if p.proj.is_empty() => Some(p.var),
            _ => None,
        };
        for s in body {
            match s {
                Stmt::Op {
                    op,
                    recv,
                    args,
                    dst,
                    ..
                } if dst.proj.is_empty() => {
                    let mut b = match (op, local(recv).and_then(|r| built.get(&r))) {
                        (Op::Builder(BuilderKind::Kernel | BuilderKind::Buffer), _) => {
                            Built::default()
                        }
                        (_, Some(b)) => b.clone(),
                        _ => continue,
                    };
                    match op {
                        Op::Arg { named } => {
                            let v = args.get(usize::from(*named)).and_then(local);
                            b.args.push((b.args.len() as u64, v));
                        }
                        Op::Queue => b.queue = Some(args.first().and_then(local)),
                        _ => {}
                    }
                    built.insert(dst.var, b);
                }
                Stmt::Assign { dst, value, .. } => {
                    if let (true, Some(v)) = (dst.proj.is_empty(), local(value)) {
                        if let Some(b) = built.get(&v).cloned() {
                            built.insert(dst.var, b);
                        }
                    }
                    let ooo = match value {
                        Value::New(NewObject::Queue { out_of_order, .. }) => Some(*out_of_order),
                        Value::Place(p) if p.proj.is_empty() => {
                            built.get(&p.var).and_then(|b| b.out_of_order)
                        }
                        _ => None,
                    };
                    match dst.proj.last() {
                        None if ooo.is_some() => {
                            built.entry(dst.var).or_default().out_of_order = ooo
                        }
                        // `s->q = clCreateCommandQueueWithProperties(..)`: the field holds
                        // that kind of queue, where every store into it agrees. A null
                        // stored on release makes no queue of another kind.
                        Some(Proj::Field(f)) if *value != Value::Null => {
                            agree(&mut self.out_of_order, f.clone(), ooo)
                        }
                        _ => {}
                    }
                    // `let k = &self.kernel;`: what is set on `k` is set on the field.
                    if let (true, Value::Place(p)) = (dst.proj.is_empty(), value) {
                        if let Some(Proj::Field(f)) = p.proj.last() {
                            alias.insert(dst.var, f.clone());
                        }
                    }
                    self.struct_built(value, built);
                }
                Stmt::SetArg {
                    kernel,
                    index,
                    name,
                    value,
                    ..
                } if !setter => {
                    let index = if name.is_some() { None } else { *index };
                    self.set_arg(kernel, index, value, built, params, alias);
                }
                // `set_arg(fir, 0, &raw)` of a helper that sets its kernel's argument.
                Stmt::Call {
                    callee,
                    recv: None,
                    args,
                    ..
                } => {
                    self.exit_handler |= matches!(callee.as_str(), "atexit" | "at_quick_exit");
                    if let Some(s) = self.setters.get(callee).copied().flatten() {
                        let index = match s.index {
                            SetterIndex::Param(i) => match args.get(i) {
                                Some(Value::Int(n)) => Some(*n),
                                _ => None,
                            },
                            SetterIndex::Fixed(n) => Some(n),
                        };
                        if let (Some(k), Some(v)) = (args.get(s.kernel), args.get(s.value)) {
                            self.set_arg(k, index, v, built, params, alias);
                        }
                    }
                }
                Stmt::Return { value, .. } => self.struct_built(value, built),
                Stmt::Branch(arms) => {
                    for a in arms {
                        self.built(a, built, params, alias, setter);
                    }
                }
                Stmt::Loop(b) => self.built(b, built, params, alias, setter),
                Stmt::ForEach { body, .. } => self.built(body, built, params, alias, setter),
                Stmt::Spawn { body, .. } | Stmt::Closure { body, .. } => {
                    self.built(body, built, params, alias, setter)
                }
                _ => {}
            }
        }
    }

    /// An argument set on a kernel: on a local, what the local is built with; on a field
    /// (or a local naming one), that field's argument is reset; on a kernel the code was
    /// given, that index of any field's kernel may be.
    fn set_arg(
        &mut self,
        kernel: &Value,
        index: Option<u64>,
        value: &Value,
        built: &mut HashMap<Var, Built>,
        params: &[Var],
        alias: &HashMap<Var, String>,
    ) {
        let Value::Place(k) = kernel else {
            return;
        };
        // `&w->y` beside `w->k`: a field of the struct whose field the kernel is.
        let sibling = match (value, k.proj.as_slice()) {
            (Value::Place(v), [Proj::Field(_)]) if v.var == k.var => match v.proj.as_slice() {
                [Proj::Field(g)] => Some(g),
                _ => None,
            },
            _ => None,
        };
        match (k.proj.last(), index) {
            (None, _) if alias.contains_key(&k.var) => {
                self.reset.insert((alias[&k.var].clone(), index));
            }
            (None, Some(i)) if !params.contains(&k.var) => {
                let v = match value {
                    Value::Place(p) if p.proj.is_empty() => Some(p.var),
                    _ => None,
                };
                let b = built.entry(k.var).or_default();
                b.args.retain(|(j, _)| *j != i);
                b.args.push((i, v));
            }
            // Which argument of the local's kernel is not known: none of them is.
            (None, None) if !params.contains(&k.var) => {
                if let Some(b) = built.get_mut(&k.var) {
                    b.args.clear();
                }
            }
            // `clSetKernelArg(w->k, 1, sizeof(cl_mem), &w->y)`, a C++ constructor's
            // `clSetKernelArg(dots_, 1, .., &y_)`: the kernel field is built with a sibling
            // field of the same struct, where every such store agrees.
            (Some(Proj::Field(f)), Some(i)) if sibling.is_some() => {
                agree(&mut self.bound, (f.clone(), Slot::Arg(i)), sibling.cloned())
            }
            (Some(Proj::Field(f)), _) => {
                self.reset.insert((f.clone(), index));
            }
            (_, Some(i)) => {
                self.reset_index.insert(i);
            }
            (_, None) => self.reset_index.extend(0..64),
        }
    }

    /// A struct literal whose fields hold locals built with each other.
    fn struct_built(&mut self, v: &Value, built: &HashMap<Var, Built>) {
        let Value::Struct(fields) = v else {
            return;
        };
        let field_of: HashMap<Var, &String> = (fields.iter())
            .filter_map(|(f, x)| match x {
                Value::Place(p) if p.proj.is_empty() => Some((p.var, f)),
                _ => None,
            })
            .collect();
        for (f, x) in fields {
            let b = match x {
                Value::Place(p) if p.proj.is_empty() => built.get(&p.var),
                _ => None,
            };
            // A queue made elsewhere (a parameter, a clone) may be of either kind.
            let ooo = b.and_then(|b| b.out_of_order);
            agree(&mut self.out_of_order, f.clone(), ooo);
            let Some(b) = b else {
                continue;
            };
            let slots = (b.args.iter().map(|(i, v)| (Slot::Arg(*i), *v)))
                .chain(b.queue.map(|q| (Slot::Queue, q)));
            for (slot, v) in slots {
                let Some(g) = v.and_then(|v| field_of.get(&v)) else {
                    continue;
                };
                agree(&mut self.bound, (f.clone(), slot), Some((*g).clone()));
            }
        }
    }

    fn record(&mut self, field: String, kernel: String) {
        agree(&mut self.by_field, field, Some(kernel));
    }

    /// The kernel a value is, given the kernels the function's locals hold.
    fn kernel(&self, v: &Value, names: &Locals) -> Option<String> {
        match v {
            Value::New(NewObject::Kernel { name: Some(n), .. }) => Some(n.clone()),
            // `clCreateKernel(program, n.as_ptr(), ..)` of `let n = CString::new(name)` in a
            // closure given the name: the string the local holds.
            Value::New(NewObject::Kernel {
                name: None,
                name_at: Some(at),
                ..
            }) if at.proj.is_empty() => names.strings.get(&at.var).cloned(),
            Value::Place(p) if p.proj.is_empty() => names.kernels.get(&p.var).cloned().flatten(),
            _ => None,
        }
    }

    /// Every member of a list literal is the same kernel.
    fn members(&self, v: &Value, names: &Locals) -> Option<String> {
        let Value::List(items) = v else {
            return None;
        };
        let first = self.kernel(items.first()?, names)?;
        items
            .iter()
            .all(|i| self.kernel(i, names).as_ref() == Some(&first))
            .then_some(first)
    }

    fn value(&mut self, v: &Value, names: &Locals) {
        match v {
            Value::Struct(fields) => {
                for (f, x) in fields {
                    self.given.insert(f.clone());
                    if let Some(k) = self.kernel(x, names) {
                        self.record(f.clone(), k);
                    } else if let Some(k) = self.members(x, names) {
                        self.record(members_of(f), k);
                    }
                    self.value(x, names);
                }
            }
            Value::List(items) => items.iter().for_each(|x| self.value(x, names)),
            Value::New(NewObject::Program {
                source: Some(s), ..
            }) => self.sources.push(s.clone()),
            _ => {}
        }
    }

    /// Local `v` holds `kernel`; where `v` is a global, every function may find it there.
    fn local(&mut self, v: Var, vars: &[VarInfo], kernel: Option<String>, names: &mut Locals) {
        if let Some(key) = &vars[v].global {
            let key = global_key(key);
            self.given.insert(key.clone());
            match &kernel {
                Some(k) => self.record(key, k.clone()),
                None => agree(&mut self.by_field, key, None),
            }
        }
        agree(&mut names.kernels, v, kernel);
    }

    fn block(&mut self, body: &[Stmt], vars: &[VarInfo], names: &mut Locals) {
        for s in body {
            match s {
                Stmt::Assign { dst, value, .. } => {
                    self.value(value, names);
                    if dst.proj.is_empty() {
                        names.string(dst.var, value);
                    }
                    let kernel = self.kernel(value, names);
                    match dst.proj.last() {
                        None => self.local(dst.var, vars, kernel, names),
                        Some(Proj::Field(f)) => {
                            self.given.insert(f.clone());
                            if let Some(k) = kernel {
                                self.record(f.clone(), k);
                            }
                        }
                        Some(_) => {}
                    }
                }
                // ocl's builders: the name travels along the chain to what `build` makes.
                Stmt::Op {
                    op,
                    recv,
                    args,
                    dst,
                    ..
                } => {
                    let named = || match args.first() {
                        Some(Value::Str(n)) => Some(n.clone()),
                        _ => None,
                    };
                    let kernel = match op {
                        Op::Name | Op::KernelBuilder => named(),
                        Op::Program => {
                            if let Some(Value::Str(src)) = args.first() {
                                self.sources.push(src.clone());
                            }
                            self.kernel(recv, names)
                        }
                        _ => self.kernel(recv, names),
                    };
                    if dst.proj.is_empty() {
                        self.local(dst.var, vars, kernel, names);
                    }
                }
                // The program's own kernel maker, given the kernel's name, or a function
                // that gives back the kernel it is given.
                Stmt::Call {
                    callee, args, dst, ..
                } if dst.proj.is_empty() => {
                    let kernel = match (self.makers.get(callee), self.passers.get(callee)) {
                        (Some(Some(i)), _) => match args.get(*i) {
                            Some(Value::Str(n)) => Some(n.clone()),
                            _ => None,
                        },
                        // The kernel given to an error wrapper: `cl(Kernel::create(..), "..")?`.
                        (_, Some(Some(i))) => args.get(*i).and_then(|a| self.kernel(a, names)),
                        _ => None,
                    };
                    self.local(dst.var, vars, kernel, names);
                }
                Stmt::Return { value, .. } | Stmt::Push { item: value, .. } => {
                    self.value(value, names)
                }
                Stmt::Branch(arms) => arms.iter().for_each(|a| self.block(a, vars, names)),
                Stmt::Loop(b) => self.block(b, vars, names),
                Stmt::ForEach { body, tail, .. } => {
                    self.block(body, vars, names);
                    self.value(tail, names);
                }
                Stmt::Spawn { body, value, .. } => {
                    self.block(body, vars, names);
                    self.value(value, names);
                }
                // `let k_peaks = kernel("peaks")?` of a closure that creates it.
                Stmt::Closure {
                    body, value, dst, ..
                } => {
                    self.block(body, vars, names);
                    self.value(value, names);
                    if dst.proj.is_empty() {
                        let kernel = self.kernel(value, names);
                        self.local(dst.var, vars, kernel, names);
                    }
                }
                _ => {}
            }
        }
    }
}

/// What a function's locals hold, as far as the crate's kernels go: the kernel each holds
/// (`None` where paths give it different ones) and the string each was last given.
#[derive(Default)]
struct Locals {
    kernels: HashMap<Var, Option<String>>,
    strings: HashMap<Var, String>,
}

impl Locals {
    /// Records what string an assignment gives a local (`name = "peaks"`, `n = name`).
    fn string(&mut self, v: Var, value: &Value) {
        let s = match value {
            Value::Str(s) => Some(s.clone()),
            Value::Place(p) if p.proj.is_empty() => self.strings.get(&p.var).cloned(),
            _ => None,
        };
        match s {
            Some(s) => self.strings.insert(v, s),
            None => self.strings.remove(&v),
        };
    }
}

/// A global's key among the fields (a field's name has no space).
fn global_key(key: &str) -> String {
    format!("global {key}")
}

/// Records `value` for `key` where every earlier value agrees with it; where they differ,
/// nothing is known (`None`).
fn agree<K: std::hash::Hash + Eq, V: PartialEq>(
    map: &mut HashMap<K, Option<V>>,
    key: K,
    value: Option<V>,
) {
    match map.get_mut(&key) {
        Some(x) if *x != value => *x = None,
        Some(_) => {}
        None => {
            map.insert(key, value);
        }
    }
}

/// Whether statements release an event.
/// Whether a body releases an event itself, and the crate functions it calls (into
/// `calls`).
fn releases<'b>(body: &'b [Stmt], calls: &mut Vec<&'b str>) -> bool {
    let mut any = false;
    for s in body {
        any |= match s {
            Stmt::Release { .. } => true,
            Stmt::Call { callee, .. } => {
                calls.push(callee);
                false
            }
            Stmt::Branch(arms) => arms.iter().fold(false, |a, b| releases(b, calls) | a),
            Stmt::Loop(b) | Stmt::ForEach { body: b, .. } => releases(b, calls),
            _ => false,
        };
    }
    any
}

/// The functions that release an event, themselves or through the crate's functions they
/// call (a `Drop` that calls `release(ev)`, a helper calling `clReleaseEvent`).
fn releasing<'f>(functions: &[&'f Function]) -> HashSet<&'f str> {
    let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut todo = Vec::new();
    for f in functions {
        let mut calls = Vec::new();
        if releases(&f.body, &mut calls) {
            todo.push(f.name.as_str());
        }
        for c in calls {
            callers.entry(c).or_default().push(&f.name);
        }
    }
    let mut out = HashSet::new();
    while let Some(f) = todo.pop() {
        if out.insert(f) {
            todo.extend(callers.get(f).into_iter().flatten());
        }
    }
    out
}
