//! OpenMP regions of C and C++ host code: `#pragma omp parallel` runs its block in a team
//! of host threads (one per device, in multi-device code), and `#pragma omp parallel for`
//! runs each iteration of its loop in a thread of the team; both end at an implicit
//! barrier. The threads are host threads as `pthread_create` makes them: their commands
//! are unordered with one another until the region ends.

use tree_sitter::Node;

use super::apply::strip;
use super::{named, Lowerer};
use crate::ir::*;

/// One `#pragma omp ..` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Directive {
    /// `parallel [for] [num_threads(n)] ..`.
    Parallel {
        for_loop: bool,
        threads: Option<String>,
    },
    /// `barrier`: the team's threads wait for one another.
    Barrier,
    /// Worksharing or a construct that runs its statement in fewer threads than the team
    /// (`single`, `master`, `for`, `sections`, `task`): a region holding one is not followed
    /// as threads.
    Shared,
    /// Anything else (`critical`, `atomic`, `flush`): no effect on what the analysis follows.
    Other,
}

/// A parallel region being lowered: the variable holding the thread's number
/// (`omp_get_thread_num()`), and the one the team's barriers meet at.
pub(super) struct Region {
    pub(super) thread: Var,
    barrier: Var,
}

impl Lowerer<'_> {
    /// The OpenMP directive of a `#pragma` line.
    pub(super) fn omp_directive(&self, n: Node<'_>) -> Option<Directive> {
        if n.kind() != "preproc_call" {
            return None;
        }
        let directive = n.child_by_field_name("directive")?;
        if self.txt(directive).trim() != "#pragma" {
            return None;
        }
        let arg = self.txt(n.child_by_field_name("argument")?);
        let words: Vec<&str> = arg
            .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
            .filter(|w| !w.is_empty())
            .collect();
        if words.first() != Some(&"omp") {
            return None;
        }
        Some(match words.get(1).copied() {
            Some("parallel") => Directive::Parallel {
                for_loop: words.get(2) == Some(&"for"),
                threads: arg
                    .split_once("num_threads(")
                    .and_then(|(_, rest)| rest.split_once(')').map(|(n, _)| n.trim().to_string())),
            },
            Some("barrier") => Directive::Barrier,
            Some(
                "single" | "master" | "masked" | "for" | "sections" | "section" | "task"
                | "taskloop" | "taskwait" | "ordered" | "teams" | "distribute" | "simd" | "loop",
            ) => Directive::Shared,
            _ => Directive::Other,
        })
    }

    /// Whether a statement holds a directive that a region followed as threads would run
    /// wrongly (a nested region, worksharing, `single`).
    fn holds_shared(&self, n: Node<'_>) -> bool {
        named(n).into_iter().any(|c| {
            matches!(
                self.omp_directive(c),
                Some(Directive::Shared | Directive::Parallel { .. })
            ) || self.holds_shared(c)
        })
    }

    /// Lowers the statements of a block, with each `#pragma omp parallel` applied to the
    /// statement after it.
    pub(super) fn stmts(&mut self, kids: &[Node<'_>]) {
        let mut k = 0;
        while k < kids.len() {
            let c = kids[k];
            match self.omp_directive(c) {
                Some(Directive::Parallel { for_loop, threads }) if k + 1 < kids.len() => {
                    self.parallel(kids[k + 1], for_loop, threads.as_deref());
                    k += 2;
                    continue;
                }
                Some(Directive::Barrier) => {
                    if let Some(r) = self.omp.last() {
                        let barrier = Value::Place(Place::var(r.barrier));
                        self.out.push(Stmt::Rendezvous { barrier });
                    }
                }
                _ => {}
            }
            // A run of `if`s on one status: see `guarded_run`.
            if let Some(status) = self.success_guard(c) {
                let run = (kids[k..].iter())
                    .take_while(|s| {
                        self.success_guard(**s).as_ref() == Some(&status)
                            && !self.unswitched.contains_key(&self.span(**s))
                    })
                    .count();
                let returned = kids.get(k + run).is_some_and(|r| {
                    r.kind() == "return_statement"
                        && named(*r)
                            .first()
                            .is_some_and(|e| self.txt(strip(*e)) == status)
                });
                if (run > 1 || returned) && !c.has_error() {
                    self.chain_exit = returned.then(|| {
                        let ifs = kids[k..k + run].iter().map(|s| s.start_byte()).collect();
                        let value = (self.lookup(&status))
                            .map_or(Value::Unknown, |v| Value::Place(Place::var(v)));
                        (ifs, value)
                    });
                    self.guarded_run(&kids[k..k + run]);
                    self.chain_exit = None;
                    k += run;
                    continue;
                }
            }
            self.stmt(c);
            k += 1;
        }
    }

    /// A parallel region over `body`: a loop whose iterations are threads, or a block run by
    /// each thread of the team, as many as `num_threads` says (else a count not known). A
    /// region the analysis cannot follow as threads is lowered as plain code.
    fn parallel(&mut self, body: Node<'_>, for_loop: bool, threads: Option<&str>) {
        if self.holds_shared(body) || (for_loop && body.kind() != "for_statement") {
            self.stmt(body);
            return;
        }
        let span = self.span(body);
        if for_loop {
            self.spawn_iterations = true;
            self.stmt(body);
            if std::mem::take(&mut self.spawned_iterations) {
                self.join_team();
            }
            self.spawn_iterations = false;
            return;
        }
        let count = match threads {
            Some(t) => match t.parse::<u64>() {
                Ok(n) => Value::Int(n),
                Err(_) => self
                    .lookup(t)
                    .map_or(Value::Unknown, |v| Value::Place(Place::var(v))),
            },
            None => Value::Unknown,
        };
        let thread = self.new_temp(TypeHint::Scalar);
        let barrier = self.new_temp(TypeHint::Unknown);
        self.omp.push(Region { thread, barrier });
        let block = self.separate(|l| l.stmt(body));
        self.omp.pop();
        let body = vec![self.thread_of(block, span)];
        self.out.push(Stmt::ForEach {
            sources: vec![EachSource::Upto(count)],
            binds: vec![(Place::var(thread), EachPart::Member(0))],
            body,
            tail: Value::Unknown,
            dst: None,
        });
        self.join_team();
    }

    /// The loop body of a `parallel for`, run by a thread of its own.
    pub(super) fn spawned(&mut self, body: Vec<Stmt>, span: Span) -> Vec<Stmt> {
        self.spawned_iterations = true;
        vec![self.thread_of(body, span)]
    }

    /// A thread of the team running `body`.
    fn thread_of(&mut self, body: Vec<Stmt>, span: Span) -> Stmt {
        let handle = Place::var(self.new_temp(TypeHint::Unknown));
        Stmt::Spawn {
            body,
            value: Value::Unknown,
            handle,
            span,
        }
    }

    /// The end of a region: every thread of the team has finished.
    fn join_team(&mut self) {
        let dst = Place::var(self.new_temp(TypeHint::Unknown));
        self.out.push(Stmt::Join {
            handle: Value::Unknown,
            dst,
        });
    }
}
