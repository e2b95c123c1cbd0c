//! The pre-filter: whether a file can hold a finding at all, decided on its raw bytes
//! before it is decoded and parsed.
//!
//! Every finding is drawn from an enqueue or a kernel-argument statement, and the lowering
//! emits those only for calls of binding-table rows with an enqueue or kernel-argument
//! effect ([`Api::is_anchor`](crate::lower::bindings::Api::is_anchor)). Such a call names
//! its API in the source, so a file in which none of those names occurs as a whole
//! identifier cannot hold a finding and is not parsed. One multi-pattern search
//! (Aho-Corasick) over the bytes decides it.
//!
//! Files are selected by names, so a later phase can select more: a crate index that
//! follows helper functions across files would build a second [`Prefilter`] from the
//! names of the functions defined in the files selected first, and add the files that
//! mention them, until no file is added.

use std::sync::OnceLock;

use aho_corasick::{packed, AhoCorasick, MatchKind};

use crate::lower::bindings::Bindings;

/// A search for whole-identifier occurrences of a set of names.
#[derive(Debug, Clone)]
pub struct Prefilter {
    search: Search,
}

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
        // Leftmost-longest: where names share a prefix (`set_arg`, `set_arg_local_buffer`)
        // the longest one at a position is the only one that can end at an identifier's end.
        let teddy = packed::Config::new()
            .match_kind(packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(&names)
            .build();
        let search = match teddy {
            Some(t) => Search::Packed(t),
            None => Search::Automaton(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&names)
                    .expect("identifier patterns build an automaton"),
            ),
        };
        Prefilter { search }
    }

    /// The search for the binding tables' anchor names (Rust's, C's and C++'s).
    pub fn get() -> &'static Prefilter {
        static P: OnceLock<Prefilter> = OnceLock::new();
        let clike = crate::frontend::clike::bindings().anchors();
        P.get_or_init(|| Prefilter::new(Bindings::get().anchors().iter().chain(clike)))
    }

    /// Whether one of the names occurs in `bytes` as a whole identifier (not inside a
    /// longer one). Bytes other than ASCII letters, digits and `_` end an identifier, so a
    /// name next to a non-ASCII character counts: the search may keep a file it did not
    /// need, never skip one it needs.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        // A rejected match cannot hide an accepted one: a name starting inside it would
        // follow an identifier byte.
        let whole = |start: usize, end: usize| {
            let before = start.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(end).copied();
            !before.is_some_and(is_ident_byte) && !after.is_some_and(is_ident_byte)
        };
        match &self.search {
            Search::Packed(p) => p.find_iter(bytes).any(|m| whole(m.start(), m.end())),
            Search::Automaton(a) => a.find_iter(bytes).any(|m| whole(m.start(), m.end())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Prefilter;

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

    #[test]
    fn the_anchor_names_are_the_enqueues_and_kernel_arguments() {
        let b = crate::lower::bindings::Bindings::get();
        let anchors = b.anchors();
        assert!(anchors.iter().any(|n| n == "enqueue_write_buffer"));
        assert!(anchors.iter().any(|n| n == "set_arg"));
        assert!(anchors.iter().any(|n| n == "enqueue_nd_range"));
        // Creating objects and waiting cannot alone produce a finding.
        for n in ["create", "new", "finish", "wait"] {
            assert!(!anchors.iter().any(|a| a == n), "{n}");
        }
        assert!(Prefilter::get().matches(b"queue.enqueue_write_buffer(&mut b, CL_BLOCKING"));
    }
}
