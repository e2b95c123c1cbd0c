//! Kernel functors of the C++ wrapper: `cl::KernelFunctor<..> f(program, "name")` (and
//! `cl::make_kernel`) is a kernel, and `f(cl::EnqueueArgs(queue, [events,] ranges..), a, b)`
//! sets its arguments in order and enqueues it on `queue`, waiting on the events given,
//! and returns the launch's event.

use tree_sitter::Node;

use super::apply::strip;
use super::{named, path_segments, Lowerer};
use crate::ir::*;

impl Lowerer<'_> {
    /// A call `f(cl::EnqueueArgs(..), args..)` of a kernel functor; `None` for other calls.
    pub(super) fn functor_call(
        &mut self,
        func: Node<'_>,
        args: &[Node<'_>],
        span: Span,
    ) -> Option<Value> {
        let first = strip(*args.first()?);
        if first.kind() != "call_expression" {
            return None;
        }
        let name = self.txt(first.child_by_field_name("function")?).to_string();
        if path_segments(&name).last().map(String::as_str) != Some("EnqueueArgs") {
            return None;
        }
        let launch: Vec<Node<'_>> = named(first.child_by_field_name("arguments")?);
        let (&queue_node, rest) = launch.split_first()?;
        let kernel = self.expr(func);
        let queue = self.expr(queue_node);
        // After the queue: an event or a vector of events to wait on, then the ranges. A
        // value that is none of those makes the wait list unknown.
        let mut waits = Some(Vec::new());
        let mut wait_node = None;
        for &a in rest {
            let text = self.txt(strip(a));
            let range = text.contains("NDRange") || text.contains("NullRange");
            let v = self.expr(a);
            if range {
                continue;
            }
            match &v {
                Value::Place(p) if p.proj.is_empty() && self.holds_events(p.var) => {
                    if let Some(w) = &mut waits {
                        w.push(v.clone());
                    }
                    wait_node = Some(a);
                }
                Value::Place(p) if self.is_range(p.var) => {}
                _ => waits = None,
            }
        }
        for (i, &a) in args[1..].iter().enumerate() {
            let value = self.expr(a);
            let arg = self.arg_span(a);
            self.out.push(Stmt::SetArg {
                kernel: kernel.clone(),
                index: Some(i as u64),
                index_at: None,
                name: None,
                value,
                size: None,
                arg,
                span,
            });
        }
        let id = self.cx.next_cmd;
        self.cx.next_cmd += 1;
        self.outs.commands.push(id);
        let event = Place::var(self.new_temp(TypeHint::Event));
        let cmd = Command {
            id,
            api: "KernelFunctor".into(),
            binding: "opencl.hpp".into(),
            kind: CommandKind::Kernel,
            queue,
            queue_arg: Some(self.arg_span(queue_node)),
            buffers: Vec::new(),
            kernel: Some(kernel),
            waits,
            wait_arg: wait_node.map(|n| self.arg_span(n)),
            blocking: Blocking::No,
            flags_arg: None,
            work_offset: false,
            flags: None,
            raw_event: false,
            span,
        };
        self.out.push(Stmt::Enqueue {
            cmd,
            event: Some(event.clone()),
        });
        Some(Value::Place(event))
    }

    /// Whether a variable holds an event or a list of events (`cl::Event`,
    /// `std::vector<cl::Event>`).
    fn holds_events(&self, v: Var) -> bool {
        matches!(self.vars[v].hint, TypeHint::Event | TypeHint::EventList)
            || self
                .elem_types
                .get(&v)
                .is_some_and(|t| path_segments(t).last().map(String::as_str) == Some("Event"))
    }

    /// Whether a variable is a declared range (`cl::NDRange global(n)`).
    fn is_range(&self, v: Var) -> bool {
        self.range_vars.contains(&v)
    }
}
