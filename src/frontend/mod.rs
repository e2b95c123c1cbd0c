//! Frontends for the languages other than Rust: C and C++ host code, read with tree-sitter
//! and lowered to the same host IR ([`crate::ir`]) as the Rust frontend ([`crate::lower`]).
//! The analysis does not know which language a function came from; the rules only spell
//! their messages in the file's language ([`Spelling`](crate::rules::Spelling)).

pub mod clike;

use std::path::Path;

/// A source language other than Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    C,
    Cpp,
}

impl Lang {
    /// The language of a file by its extension: `.c` and `.h` are C; `.cpp`, `.cc`,
    /// `.cxx`, `.hpp`, `.hh` and `.hxx` are C++. Anything else is Rust's.
    pub fn of(path: &Path) -> Option<Lang> {
        match path.extension()?.to_str()? {
            "c" | "h" => Some(Lang::C),
            "cpp" | "cc" | "cxx" | "hpp" | "hh" | "hxx" => Some(Lang::Cpp),
            _ => None,
        }
    }
}
