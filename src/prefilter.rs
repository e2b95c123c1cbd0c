//! The pre-filter: what a file can matter to, decided on its raw bytes before it is
//! decoded and parsed.
//!
//! Every finding is drawn from an enqueue or a kernel-argument statement, and the lowering
//! emits those only for calls of binding-table rows with an enqueue or kernel-argument
//! effect ([`Api::is_anchor`](crate::frontend::bindings::Api::is_anchor)). Such a call names
//! its API in the source. One search of the bytes ([`Language::scan`]) tells:
//!
//! - whether the file names an OpenCL binding: a binding crate (`use opencl3::..`,
//!   `extern crate ocl`, `cl3::f(..)`) or an anchor that ordinary code does not use
//!   (`enqueue_write_buffer`, `set_arg`, `clEnqueueNDRangeKernel`). A crate none of whose
//!   files does, and whose `Cargo.toml` names no binding, has nothing to check: it is not
//!   parsed at all.
//! - whether it can hold a finding (it is *anchored*): it names such an anchor, or an
//!   anchor that ordinary code also uses (`arg`, `build`, `enq` of ocl's builders) together
//!   with a binding crate or a type of a binding (`ProQue`, `Kernel`). Such a common word
//!   alone never selects a file. In a crate with a binding, the other files are parsed
//!   only to report syntax errors, unless a selected file needs them.
//!
//! Names are found by one multi-pattern search (Teddy, else Aho-Corasick) as whole
//! identifiers. Files are selected by names, so a later phase can select more: the crate
//! index builds a second [`Prefilter`] from the names that the files selected first call
//! or define, and adds the files that mention them, until no file is added.
//!
//! The names are per language ([`Language`]); Rust's come from the binding tables.

use std::collections::HashSet;
use std::path::Path;
use std::sync::OnceLock;

use aho_corasick::{packed, AhoCorasick, MatchKind};

use crate::frontend::bindings::Bindings;

/// A search for whole-identifier occurrences of a set of names.
#[derive(Debug, Clone)]
pub struct Prefilter {
    search: Search,
    /// When every name is an identifier: the names, and `search` looks for their first
    /// [`PREFIX`] bytes only.
    identifiers: Option<HashSet<Box<[u8]>>>,
}

/// How much of each identifier the search looks for when the names are identifiers: names
/// that share their first bytes (`enqueue_read_buffer`, `enqueue_write_buffer`) are one
/// pattern, so the search has few patterns (a faster Teddy, fewer candidates to verify),
/// and each candidate's whole identifier is looked up.
const PREFIX: usize = 8;

/// Teddy (SIMD, for up to a few dozen names) where the CPU has it, else the automaton.
#[derive(Debug, Clone)]
enum Search {
    Packed(packed::Searcher),
    Automaton(AhoCorasick),
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl Prefilter {
    /// A search for these names (identifiers).
    pub fn new<I, S>(names: I) -> Prefilter
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        let names: Vec<S> = names.into_iter().collect();
        let is_identifier = |n: &[u8]| !n.is_empty() && n.iter().all(|&b| is_ident_byte(b));
        if names.iter().all(|n| is_identifier(n.as_ref())) {
            let mut prefixes: Vec<&[u8]> = names
                .iter()
                .map(|n| &n.as_ref()[..n.as_ref().len().min(PREFIX)])
                .collect();
            prefixes.sort_unstable();
            prefixes.dedup();
            let identifiers = names.iter().map(|n| n.as_ref().into()).collect();
            return Prefilter {
                search: Search::new(&prefixes),
                identifiers: Some(identifiers),
            };
        }
        Prefilter {
            search: Search::new(&names),
            identifiers: None,
        }
    }

    /// Whether one of the names occurs in `bytes` as a whole identifier (not inside a
    /// longer one). Bytes other than ASCII letters, digits and `_` end an identifier, so a
    /// name next to a non-ASCII character counts: the search may keep a file it did not
    /// need, never skip one it needs.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        let Some(names) = &self.identifiers else {
            return self.search.find_whole(bytes);
        };
        // Each match starts an identifier's prefix: a match inside an identifier cannot
        // hide one at an identifier's start, which would follow an identifier byte.
        self.search.any(bytes, |start, _| {
            if start > 0 && is_ident_byte(bytes[start - 1]) {
                return false;
            }
            let end = bytes[start..]
                .iter()
                .position(|&b| !is_ident_byte(b))
                .map_or(bytes.len(), |i| start + i);
            names.contains(&bytes[start..end])
        })
    }
}

impl Search {
    /// A search for `names`, leftmost-longest.
    fn new<S: AsRef<[u8]>>(names: &[S]) -> Search {
        // Leftmost-longest: where names share a prefix (`set_arg`, `set_arg_local_buffer`)
        // the longest one at a position is the only one that can end at an identifier's end.
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(names)
            .build();
        match teddy {
            Some(t) => Search::Packed(t),
            None => Search::Automaton(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(names)
                    .expect("patterns build an automaton"),
            ),
        }
    }

    /// Whether `hit` holds for one of the matches in `bytes` (given as start and end).
    fn any(&self, bytes: &[u8], mut hit: impl FnMut(usize, usize) -> bool) -> bool {
        match self {
            Search::Packed(p) => p.find_iter(bytes).any(|m| hit(m.start(), m.end())),
            Search::Automaton(a) => a.find_iter(bytes).any(|m| hit(m.start(), m.end())),
        }
    }

    /// Whether a match is neither preceded nor followed by an identifier byte (a path
    /// prefix such as `cl::` is followed by one).
    fn find_whole(&self, bytes: &[u8]) -> bool {
        // A rejected match cannot hide an accepted one: a name starting inside it would
        // follow an identifier byte.
        self.any(bytes, |start, end| {
            let before = start.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(end).copied();
            let path = bytes[..end].ends_with(b"::");
            !before.is_some_and(is_ident_byte) && (path || !after.is_some_and(is_ident_byte))
        })
    }
}

/// The crates of the OpenCL bindings, as Rust code names them (`-` as `_`).
pub const BINDING_CRATES: &[&str] = &["opencl3", "cl3", "ocl", "ocl_core", "cl_sys", "opencl_sys"];

/// Names that mark C or C++ code as OpenCL host code: the API's handle types and the
/// C++ wrapper's namespace (`cl::Buffer`).
const CLIKE_BINDING_NAMES: &[&str] = &[
    "cl::",
    "cl_mem",
    "cl_command_queue",
    "cl_kernel",
    "cl_event",
    "cl_context",
    "cl_program",
];

/// Modeled API names that ordinary Rust uses for other things (`std::process::Command::arg`,
/// builders' `build`): never an anchor on their own.
const ORDINARY: &[&str] = &[
    "arg", "build", "cmd", "create", "enq", "new", "read", "write", "finish", "wait", "get", "set",
    "len", "from", "into", "copy", "fill", "map", "run", "launch", "flush",
];

/// Whether an anchor is a name ordinary code uses: a word of [`ORDINARY`], or one of ocl's
/// kernel-builder methods `arg_*` (`arg_vec` is also a method of clap's `Command`).
fn ordinary(name: &str) -> bool {
    ORDINARY.contains(&name) || name.starts_with("arg_")
}

/// What the pre-filter learned about one file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scan {
    /// It names a binding crate or an anchor that ordinary code does not use: its crate
    /// has something to check.
    pub binding: bool,
    /// It can hold a finding: it names an anchor that ordinary code does not use, or one
    /// that it does together with a binding crate or a binding's type.
    pub anchored: bool,
}

/// The names the pre-filter looks for in the source files of one language. A frontend for
/// another language gives its own: what marks a file as using OpenCL (an include of
/// `CL/cl.h`, say), its distinctive anchors (`clEnqueueWriteBuffer`), and its common-word
/// anchors with what must come with them.
#[derive(Debug, Clone)]
pub struct Language {
    /// The binding's names and the distinctive anchors: one search that most files fail.
    binding: Prefilter,
    strong: Prefilter,
    /// Anchors that ordinary code also uses, which count only with one of `companions`.
    weak: Option<Prefilter>,
    companions: Prefilter,
}

impl Language {
    /// A language from its binding names, anchors (those `ordinary` says are common words
    /// are weak) and the names that make a weak anchor count.
    pub fn new(
        binding: &[String],
        anchors: &[String],
        ordinary: impl Fn(&str) -> bool,
        types: &[String],
    ) -> Self {
        let (weak, strong): (Vec<&String>, Vec<&String>) =
            anchors.iter().partition(|a| ordinary(a));
        let mut companions: Vec<&String> = binding.iter().chain(types).collect();
        companions.sort();
        companions.dedup();
        Language {
            binding: Prefilter::new(binding.iter().chain(strong.iter().copied())),
            strong: Prefilter::new(&strong),
            weak: (!weak.is_empty()).then(|| Prefilter::new(&weak)),
            companions: Prefilter::new(&companions),
        }
    }

    /// Rust: the binding crates and the binding tables' anchors and types.
    pub fn rust() -> &'static Language {
        static L: OnceLock<Language> = OnceLock::new();
        L.get_or_init(|| {
            let b = Bindings::get();
            let crates: Vec<String> = BINDING_CRATES.iter().map(|c| c.to_string()).collect();
            Language::new(&crates, b.anchors(), ordinary, b.types())
        })
    }

    /// C and C++: the OpenCL C API's handle types and the C++ wrapper's namespace, with
    /// the anchors and types of the C and C++ tables.
    pub fn clike() -> &'static Language {
        static L: OnceLock<Language> = OnceLock::new();
        L.get_or_init(|| {
            let b = crate::frontend::clike::bindings();
            let names: Vec<String> = CLIKE_BINDING_NAMES.iter().map(|c| c.to_string()).collect();
            Language::new(&names, b.anchors(), ordinary, b.types())
        })
    }

    /// The language of a source file.
    pub fn of(path: &Path) -> &'static Language {
        match crate::frontend::Lang::of(path) {
            Some(_) => Language::clike(),
            None => Language::rust(),
        }
    }

    /// What `bytes` can matter to. `in_binding_crate`: the file's package names a binding
    /// in its manifest, so a weak anchor with a companion selects it even when the file
    /// names no binding itself.
    pub fn scan(&self, bytes: &[u8], in_binding_crate: bool) -> Scan {
        let binding = self.binding.matches(bytes);
        if !binding && !in_binding_crate {
            return Scan::default();
        }
        let anchored = self.strong.matches(bytes)
            || self
                .weak
                .as_ref()
                .is_some_and(|w| w.matches(bytes) && self.companions.matches(bytes));
        Scan { binding, anchored }
    }
}

#[cfg(test)]
mod tests {
    use super::{Language, Prefilter, Scan};

    #[test]
    fn whole_identifiers_only() {
        let p = Prefilter::new(["set_arg", "set_arg_local_buffer", "enqueue_task"]);
        for yes in [
            &b"k.set_arg(&x)"[..],
            b"k.set_arg_local_buffer(4)",
            b"q.r#enqueue_task(&k)",
            b"enqueue_task",
            b"\xff\xfe enqueue_task \xff",
            b"\xc3\xa9set_arg",
        ] {
            assert!(p.matches(yes), "{}", String::from_utf8_lossy(yes));
        }
        for no in [
            &b"my_set_arg()"[..],
            b"set_args",
            b"set_arg_local",
            b"enqueue_tasks enqueue_task2 xenqueue_task",
            b"",
        ] {
            assert!(!p.matches(no), "{}", String::from_utf8_lossy(no));
        }
    }

    /// The search by prefixes finds what looking for each whole name finds.
    #[test]
    fn prefixes_find_every_whole_name_and_nothing_else() {
        let b = crate::frontend::bindings::Bindings::get();
        let names: Vec<&str> = b.anchors().iter().map(String::as_str).collect();
        let p = Prefilter::new(&names);
        let whole = |text: &[u8]| {
            names.iter().any(|n| {
                (0..text.len()).any(|s| {
                    text[s..].starts_with(n.as_bytes())
                        && (s == 0 || !super::is_ident_byte(text[s - 1]))
                        && text
                            .get(s + n.len())
                            .is_none_or(|&c| !super::is_ident_byte(c))
                })
            })
        };
        let mut texts = 0;
        for n in &names {
            for (before, after) in [
                ("", ""),
                ("x.", "("),
                ("_", ""),
                ("", "_"),
                ("", "x"),
                ("é", "é"),
            ] {
                for cut in [0, 1, n.len() / 2] {
                    let text = format!("{before}{}{after} {n}2", &n[..n.len() - cut]);
                    assert_eq!(p.matches(text.as_bytes()), whole(text.as_bytes()), "{text}");
                    texts += 1;
                }
            }
        }
        assert!(texts > 100);
    }

    #[test]
    fn the_anchor_names_are_the_enqueues_and_kernel_arguments() {
        let b = crate::frontend::bindings::Bindings::get();
        let anchors = b.anchors();
        assert!(anchors.iter().any(|n| n == "enqueue_write_buffer"));
        assert!(anchors.iter().any(|n| n == "set_arg"));
        assert!(anchors.iter().any(|n| n == "enqueue_nd_range"));
        // Creating objects and waiting cannot alone produce a finding.
        for n in ["create", "new", "finish", "wait"] {
            assert!(!anchors.iter().any(|a| a == n), "{n}");
        }
        let rust = Language::rust();
        let scan = |s: &str, krate| rust.scan(s.as_bytes(), krate);
        let hit = Scan {
            binding: true,
            anchored: true,
        };
        assert_eq!(
            scan("queue.enqueue_write_buffer(&mut b, CL_BLOCKING", false),
            hit
        );
        assert_eq!(scan("unsafe { clEnqueueNDRangeKernel(q, k) }", false), hit);
    }

    /// `arg`, `build`, `enq` are anchors of ocl's builders, and words of ordinary Rust.
    #[test]
    fn common_words_select_only_with_a_binding() {
        let rust = Language::rust();
        let scan = |s: &str, krate| rust.scan(s.as_bytes(), krate);
        let ordinary = "let o = Command::new(\"rg\").arg(item).build(); e.enq();";
        assert_eq!(scan(ordinary, false), Scan::default());
        // In a crate whose manifest names a binding, still not without a binding's name.
        assert_eq!(
            scan(ordinary, true),
            Scan {
                binding: false,
                anchored: false
            }
        );
        let ocl = "use ocl::ProQue;\nfn f(k: &ocl::Kernel) { k.cmd().enq().unwrap(); }";
        assert!(scan(ocl, false).anchored);
        // A helper of a crate that depends on ocl, naming only its types.
        let helper = "fn f(k: &Kernel) { k.cmd().enq().unwrap(); }";
        assert!(!scan(helper, false).binding);
        assert!(scan(helper, true).anchored);
        // Naming a binding without an anchor: checked for syntax only.
        assert_eq!(
            scan("use opencl3::types::cl_int;", false),
            Scan {
                binding: true,
                anchored: false
            }
        );
        assert_eq!(scan("let locl = ocl_like;", false), Scan::default());
        assert_eq!(scan("let v = cmd.arg_vec(names);", false), Scan::default());
    }

    #[test]
    fn the_cpp_namespace_names_a_binding_only_as_a_path() {
        let clike = Language::of(std::path::Path::new("alloc.c"));
        let binding = |s: &str| clike.scan(s.as_bytes(), false).binding;
        assert!(binding("cl::Buffer buf(ctx, CL_MEM_READ_ONLY, n);"));
        assert!(binding("std::vector<cl::Event> events;"));
        assert!(binding("cl_mem m = clCreateBuffer(ctx, 0, n, NULL, &err);"));
        // An allocator's source: `clang-cl` in a comment, a local named `cl`.
        assert!(!binding(
            "#if defined(__clang__)  // exclude clang-cl, see issue #631"
        ));
        assert!(!binding("int cl = count_lines(text);"));
    }
}
