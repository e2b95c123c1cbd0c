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
//! A field the crate gives no value at all (a struct the program fills elsewhere) holds the
//! kernel of its own name, where the crate's sources declare one so named: `k.prefix` of
//! `struct SortKernels { prefix: cl_kernel, .. }` beside `kernel void prefix(..)`.

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
}

impl CrateKernels {
    pub fn new<'f, 's>(
        functions: impl IntoIterator<Item = &'f Function>,
        constants: impl IntoIterator<Item = &'s str>,
    ) -> CrateKernels {
        let mut seen = Seen::default();
        for f in functions {
            let mut names = HashMap::new();
            seen.block(&f.body, &mut names);
        }
        let mut sources: Vec<&str> = seen.sources.iter().map(String::as_str).collect();
        for c in constants {
            sources.push(c);
        }
        sources.sort_unstable();
        sources.dedup();
        CrateKernels {
            by_field: seen.by_field,
            given: seen.given,
            sources: KernelFiles::new(sources),
        }
    }

    /// The kernel a place ending in field `f` (or in a member of it, `f[1]`) holds.
    pub fn kernel_of<'a>(&'a self, p: &'a Place) -> Option<&'a str> {
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

    /// The signature of kernel `name` in the crate's program sources, when exactly one is
    /// declared.
    pub fn sig(&self, name: &str) -> Option<KernelSig> {
        self.sources.get(name)
    }
}

#[derive(Default)]
struct Seen {
    by_field: HashMap<String, Option<String>>,
    given: HashSet<String>,
    sources: Vec<String>,
}

impl Seen {
    fn record(&mut self, field: String, kernel: String) {
        self.by_field
            .entry(field)
            .and_modify(|k| {
                if k.as_ref() != Some(&kernel) {
                    *k = None;
                }
            })
            .or_insert(Some(kernel));
    }

    /// The kernel a value is, given the kernels the function's locals hold.
    fn kernel(&self, v: &Value, names: &HashMap<Var, Option<String>>) -> Option<String> {
        match v {
            Value::New(NewObject::Kernel { name, .. }) => name.clone(),
            Value::Place(p) if p.proj.is_empty() => names.get(&p.var).cloned().flatten(),
            _ => None,
        }
    }

    /// Every member of a list literal is the same kernel.
    fn members(&self, v: &Value, names: &HashMap<Var, Option<String>>) -> Option<String> {
        let Value::List(items) = v else {
            return None;
        };
        let first = self.kernel(items.first()?, names)?;
        items
            .iter()
            .all(|i| self.kernel(i, names).as_ref() == Some(&first))
            .then_some(first)
    }

    fn value(&mut self, v: &Value, names: &HashMap<Var, Option<String>>) {
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
            Value::New(NewObject::Program { source: Some(s) }) => self.sources.push(s.clone()),
            _ => {}
        }
    }

    fn local(names: &mut HashMap<Var, Option<String>>, var: Var, kernel: Option<String>) {
        match names.get_mut(&var) {
            Some(k) if *k != kernel => *k = None,
            Some(_) => {}
            None => {
                names.insert(var, kernel);
            }
        }
    }

    fn block(&mut self, body: &[Stmt], names: &mut HashMap<Var, Option<String>>) {
        for s in body {
            match s {
                Stmt::Assign { dst, value, .. } => {
                    self.value(value, names);
                    let kernel = self.kernel(value, names);
                    match dst.proj.last() {
                        None => Self::local(names, dst.var, kernel),
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
                        Self::local(names, dst.var, kernel);
                    }
                }
                Stmt::Return { value } => self.value(value, names),
                Stmt::Branch(arms) => arms.iter().for_each(|a| self.block(a, names)),
                Stmt::Loop(b) => self.block(b, names),
                Stmt::ForEach { body, tail, .. } => {
                    self.block(body, names);
                    self.value(tail, names);
                }
                Stmt::Spawn { body, value, .. } | Stmt::Closure { body, value, .. } => {
                    self.block(body, names);
                    self.value(value, names);
                }
                _ => {}
            }
        }
    }
}
