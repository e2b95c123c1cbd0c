//! A small reader of OpenCL C kernel sources: the signature of each kernel (address space,
//! pointer or value, `const`, per parameter) and, for each pointer parameter, whether the
//! body writes through it.

use std::collections::HashSet;

/// Address space of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrSpace {
    Global,
    Constant,
    Local,
    Private,
}

/// What the kernel body does through a pointer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamAccess {
    Read,
    Write,
    ReadWrite,
    /// The pointer escapes (passed to a function, offset, reassigned): not known.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// The declaration as written, without the name (`__global const float*`).
    pub decl: String,
    pub space: AddrSpace,
    pub pointer: bool,
    pub const_pointee: bool,
    pub access: ParamAccess,
    /// An image (`image2d_t`, `image1d_buffer_t`, ..) or a pipe: a memory object by value.
    pub image_or_pipe: bool,
    /// A pointer written only at indices that a by-value parameter offsets (`z[i]` with
    /// `i = get_global_id(0) + offset`), or one only read at exactly those indices:
    /// launches given other offsets touch other elements.
    pub region: bool,
    /// A pointer written only at indices that depend on the work-item's global id
    /// (`out[y * nx + x]` with `x = get_global_id(0)`), or one only read at exactly the
    /// work-item's own element (`in[i]` with `i = get_global_id(0)`): launches given other
    /// global work offsets touch other elements.
    pub by_global_id: bool,
}

impl Param {
    /// The bytes of the parameter's type where the kernel takes a scalar or vector by
    /// value (`const float`: 4, `uint4`: 16): the size `clSetKernelArg` must be given.
    pub fn value_size(&self) -> Option<u64> {
        (!self.pointer && !self.image_or_pipe)
            .then(|| type_size(&self.decl))
            .flatten()
    }

    /// Whether the argument must be a memory object: a buffer for a `__global` or `__constant`
    /// pointer, an image for an `image*_t`, a pipe for a `pipe` (OpenCL C 3.0, 6.3.2: kernel
    /// arguments; `clSetKernelArg` takes a `cl_mem` for each).
    pub fn takes_mem_object(&self) -> bool {
        self.image_or_pipe
            || self.pointer && matches!(self.space, AddrSpace::Global | AddrSpace::Constant)
    }
}

/// The size of a kernel parameter's OpenCL C type as declared (`const float`, `uint`,
/// `float4`), where it is a scalar or vector type a kernel may take by value.
fn type_size(decl: &str) -> Option<u64> {
    let words: Vec<&str> = decl
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "__private" | "private" | "restrict"
            )
        })
        .collect();
    let name = match words.as_slice() {
        ["unsigned", "char"] => "uchar",
        ["unsigned", "short"] => "ushort",
        ["unsigned"] | ["unsigned", "int"] => "uint",
        ["unsigned", "long"] => "ulong",
        [one] => one,
        _ => return None,
    };
    vector_type_size(name)
}

/// The size of an OpenCL C scalar or vector type by its name (`float`: 4, `uint4`: 16; a
/// 3-vector takes the room of a 4-vector), which the host's `cl_` types share
/// (`cl_float4`).
pub fn vector_type_size(name: &str) -> Option<u64> {
    let digits = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let base = &name[..name.len() - digits.len()];
    let elem = match base {
        "char" | "uchar" => 1,
        "short" | "ushort" | "half" => 2,
        "int" | "uint" | "float" => 4,
        "long" | "ulong" | "double" => 8,
        _ => return None,
    };
    let lanes = match digits {
        "" => 1,
        "2" => 2,
        "3" | "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    Some(elem * lanes)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSig {
    pub name: String,
    pub params: Vec<Param>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Punct(String),
    Other,
}

fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++",
    "--", "->", "&&", "||", "<<", ">>",
];

fn tokenize(src: &str) -> Vec<Tok> {
    let src = strip_comments(src);
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let s = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            toks.push(Tok::Ident(chars[s..i].iter().collect()));
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.') {
                i += 1;
            }
            toks.push(Tok::Other);
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            toks.push(Tok::Other);
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let p = PUNCTS.iter().find(|p| rest.starts_with(**p));
            match p {
                Some(p) => {
                    toks.push(Tok::Punct((*p).to_string()));
                    i += p.len();
                }
                None => {
                    toks.push(Tok::Punct(c.to_string()));
                    i += 1;
                }
            }
        }
    }
    toks
}

fn is_punct(t: Option<&Tok>, p: &str) -> bool {
    matches!(t, Some(Tok::Punct(s)) if s == p)
}

fn is_assign(t: Option<&Tok>) -> bool {
    matches!(t, Some(Tok::Punct(s)) if matches!(s.as_str(), "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=" | "++" | "--"))
}

/// Index just past the group opened at `open` (`(`/`[`/`{`), or the end.
fn close_of(toks: &[Tok], open: usize) -> usize {
    let (o, c) = match &toks[open] {
        Tok::Punct(p) if p == "(" => ("(", ")"),
        Tok::Punct(p) if p == "[" => ("[", "]"),
        _ => ("{", "}"),
    };
    let mut depth = 0usize;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if is_punct(Some(t), o) {
            depth += 1;
        } else if is_punct(Some(t), c) {
            depth -= 1;
            if depth == 0 {
                return i + 1;
            }
        }
    }
    toks.len()
}

/// Every `__kernel`/`kernel` function in the source.
pub fn parse_kernels(src: &str) -> Vec<KernelSig> {
    let toks = tokenize(src);
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let is_kernel = matches!(&toks[i], Tok::Ident(s) if s == "__kernel" || s == "kernel");
        if !is_kernel {
            i += 1;
            continue;
        }
        // Find the name: the identifier right before the first `(`.
        let Some(open) = (i..toks.len()).find(|&j| is_punct(toks.get(j), "(")) else {
            break;
        };
        let name = match toks.get(open.wrapping_sub(1)) {
            Some(Tok::Ident(n)) if open > i + 1 => n.clone(),
            _ => {
                i = open + 1;
                continue;
            }
        };
        let close = close_of(&toks, open);
        let param_toks = &toks[open + 1..close.saturating_sub(1).max(open + 1)];
        let body = if is_punct(toks.get(close), "{") {
            let end = close_of(&toks, close);
            &toks[close..end]
        } else {
            &toks[close..close]
        };
        let mut params: Vec<Param> = split_params(param_toks)
            .into_iter()
            .filter_map(|p| param(p, body))
            .collect();
        let scalars: Vec<String> = (params.iter())
            .filter(|p| !p.pointer && !p.image_or_pipe)
            .map(|p| p.name.clone())
            .collect();
        for p in params.iter_mut().filter(|p| p.pointer) {
            p.by_global_id = match p.access {
                ParamAccess::Read => read_at_global_ids(&p.name, body),
                _ => written_by_global_id(&p.name, body),
            };
            p.region = match p.access {
                ParamAccess::Read => read_at_own_offsets(&p.name, body, &scalars),
                _ => written_at_offsets(&p.name, body, &scalars),
            };
        }
        out.push(KernelSig { name, params });
        i = close.max(i + 1);
    }
    out
}

fn split_params(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct(p) if p == "(" || p == "[" || p == "<" => depth += 1,
            Tok::Punct(p) if p == ")" || p == "]" || p == ">" => depth -= 1,
            Tok::Punct(p) if p == "," && depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        out.push(&toks[start..]);
    }
    out
}

fn param(toks: &[Tok], body: &[Tok]) -> Option<Param> {
    let idents: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Ident(s) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    if idents == ["void"] || idents.is_empty() {
        return None;
    }
    let name = idents.last()?.to_string();
    let star = toks.iter().position(|t| is_punct(Some(t), "*"));
    let pointer = star.is_some() || toks.iter().any(|t| is_punct(Some(t), "["));
    let has = |w: &[&str]| idents.iter().any(|i| w.contains(i));
    let image_or_pipe = idents
        .iter()
        .any(|i| *i == "pipe" || i.starts_with("image") && i.ends_with("_t"));
    let space = if has(&["__global", "global"]) {
        AddrSpace::Global
    } else if has(&["__constant", "constant"]) {
        AddrSpace::Constant
    } else if has(&["__local", "local"]) {
        AddrSpace::Local
    } else {
        AddrSpace::Private
    };
    // `const` before the `*` qualifies the pointee.
    let const_pointee = match star {
        Some(s) => toks[..s]
            .iter()
            .any(|t| matches!(t, Tok::Ident(i) if i == "const")),
        None => false,
    } || has(&["__read_only", "read_only"]);
    let access = if !pointer || const_pointee || space == AddrSpace::Constant {
        ParamAccess::Read
    } else {
        body_access(&name, body)
    };
    let decl = toks[..toks.len().saturating_sub(1)]
        .iter()
        .map(|t| match t {
            Tok::Ident(s) | Tok::Punct(s) => s.as_str(),
            Tok::Other => "?",
        })
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" *", "*");
    Some(Param {
        name,
        decl,
        space,
        pointer,
        const_pointee,
        access,
        image_or_pipe,
        region: false,
        by_global_id: false,
    })
}

/// A by-value parameter added to an index at `k` (`gid + offset`), not one that scales
/// it (`gid * n`).
fn summand(toks: &[Tok], k: usize, scalars: &[String]) -> bool {
    let (prev, next) = (k.checked_sub(1).and_then(|p| toks.get(p)), toks.get(k + 1));
    let scales = |t: Option<&Tok>| ["*", "/", "%"].iter().any(|o| is_punct(t, o));
    let adds = |t: Option<&Tok>| is_punct(t, "+") || is_punct(t, "-");
    matches!(&toks[k], Tok::Ident(s) if scalars.contains(s))
        && !scales(prev)
        && !scales(next)
        && (adds(prev) || adds(next))
}

/// Whether an expression adds a by-value parameter, itself or through a local that does
/// (`derived`), outside the indices of other arrays.
fn offsets(toks: &[Tok], scalars: &[String], derived: &HashSet<&str>) -> bool {
    outside_brackets(toks).any(|k| {
        summand(toks, k, scalars)
            || matches!(&toks[k], Tok::Ident(s) if derived.contains(s.as_str()))
    })
}

/// The locals assigned from an expression that a by-value parameter offsets (`const
/// size_t i = gid + offset;`), directly or through each other.
fn offset_locals<'b>(body: &'b [Tok], scalars: &[String]) -> HashSet<&'b str> {
    derived_locals(body, false, |rhs, derived| offsets(rhs, scalars, derived))
}

/// The locals assigned from an expression `from` accepts, given the locals found so far
/// (a few rounds, so that one assigned from another counts). An assignment ends at its
/// `;`, or also at a `,` where `declarators` (`int x = gid(0), y = gid(1);`).
fn derived_locals(
    body: &[Tok],
    declarators: bool,
    from: impl Fn(&[Tok], &HashSet<&str>) -> bool,
) -> HashSet<&str> {
    let mut derived: HashSet<&str> = HashSet::new();
    for _ in 0..3 {
        for (i, t) in body.iter().enumerate() {
            let (Tok::Ident(x), true) = (t, is_punct(body.get(i + 1), "=")) else {
                continue;
            };
            let end = (i + 2..body.len())
                .find(|&j| {
                    is_punct(body.get(j), ";") || (declarators && is_punct(body.get(j), ","))
                })
                .unwrap_or(body.len());
            if from(&body[i + 2..end], &derived) {
                derived.insert(x.as_str());
            }
        }
    }
    derived
}

/// Whether pointer `name` is read only at the elements of the launch's own offset: every
/// use of it (there is one at least) is `name[i]` of a local `i = gid + offset`, or
/// `name[gid + offset]`, with nothing added to move the index off them (`p[i - 1]` of a
/// stencil reads a neighbour's elements).
fn read_at_own_offsets(name: &str, body: &[Tok], scalars: &[String]) -> bool {
    if scalars.is_empty() {
        return false;
    }
    let derived = offset_locals(body, scalars);
    let plain = |t: &Tok| matches!(t, Tok::Ident(s) if !derived.contains(s.as_str()) && !scalars.contains(s));
    let param = |t: &Tok| matches!(t, Tok::Ident(s) if scalars.contains(s));
    every_use_index(name, body, |index| match index {
        [Tok::Ident(d)] => derived.contains(d.as_str()),
        [a, Tok::Punct(op), b] if op == "+" => (plain(a) && param(b)) || (param(a) && plain(b)),
        // `get_global_id(0) + offset`
        [Tok::Ident(f), Tok::Punct(o), _, Tok::Punct(c), Tok::Punct(op), b]
            if f == "get_global_id" && o == "(" && c == ")" && op == "+" =>
        {
            param(b)
        }
        _ => false,
    })
}

/// Whether pointer `name` is used (once at least) only as `name[index]`, each index one
/// that `ok` accepts.
fn every_use_index(name: &str, body: &[Tok], ok: impl Fn(&[Tok]) -> bool) -> bool {
    let mut uses = 0;
    for (i, t) in body.iter().enumerate() {
        if !matches!(t, Tok::Ident(s) if s == name) {
            continue;
        }
        if !is_punct(body.get(i + 1), "[") {
            return false;
        }
        let close = close_of(body, i + 1);
        if !ok(&body[i + 2..close.saturating_sub(1).max(i + 2)]) {
            return false;
        }
        uses += 1;
    }
    uses > 0
}

/// Whether pointer `name` is read (once at least) only at the work-item's own element:
/// `name[get_global_id(0)]`, or `name[i]` of a local assigned `get_global_id(0)` and
/// nothing else. A read moved off it (`in[i - 1]`) or scaled (`a[row * k + t]`) may be
/// another work-item's element.
fn read_at_global_ids(name: &str, body: &[Tok]) -> bool {
    let gid = |toks: &[Tok]| {
        matches!(toks, [Tok::Ident(f), Tok::Punct(o), _, Tok::Punct(c)]
            if f == "get_global_id" && o == "(" && c == ")")
    };
    let exact = derived_locals(body, true, |rhs, _| match rhs {
        // `(int)get_global_id(0)`
        [Tok::Punct(o), Tok::Ident(_), Tok::Punct(c), rest @ ..] if o == "(" && c == ")" => {
            gid(rest)
        }
        _ => gid(rhs),
    });
    every_use_index(name, body, |index| match index {
        [Tok::Ident(x)] => exact.contains(x.as_str()),
        _ => gid(index),
    })
}

/// Whether every write through pointer `name` (there is one at least) is at an index that
/// depends on `get_global_id`, directly or through locals assigned from it.
fn written_by_global_id(name: &str, body: &[Tok]) -> bool {
    let gid = |toks: &[Tok], derived: &HashSet<&str>| {
        outside_brackets(toks).any(|k| match &toks[k] {
            Tok::Ident(s) => s == "get_global_id" || derived.contains(s.as_str()),
            _ => false,
        })
    };
    let derived = derived_locals(body, true, gid);
    every_write_index(name, body, |index| gid(index, &derived))
}

/// Whether every write through pointer `name` (there is one at least) is at an index that
/// depends on one of `scalars`, directly or through locals assigned from them.
fn written_at_offsets(name: &str, body: &[Tok], scalars: &[String]) -> bool {
    if scalars.is_empty() {
        return false;
    }
    let derived = offset_locals(body, scalars);
    // `norms[slot] = m`: the element the parameter itself names.
    every_write_index(name, body, |index| {
        offsets(index, scalars, &derived) || matches!(index, [Tok::Ident(s)] if scalars.contains(s))
    })
}

/// Whether pointer `name` is written at least once and every index it is written at
/// (`z[i] = ..`, `z[i]++`, `atomic_inc(&bins[base + v])`) satisfies `ok`.
fn every_write_index(name: &str, body: &[Tok], ok: impl Fn(&[Tok]) -> bool) -> bool {
    let mut writes = 0;
    for (i, t) in body.iter().enumerate() {
        if !matches!(t, Tok::Ident(s) if s == name) || !is_punct(body.get(i + 1), "[") {
            continue;
        }
        let close = close_of(body, i + 1);
        let prev = if i > 0 { body.get(i - 1) } else { None };
        // `atomic_inc(&bins[base + v])`, `atom_add(&z[i], x)`: the atomic writes the element.
        let atomic = is_punct(prev, "&")
            && i >= 3
            && is_punct(body.get(i - 2), "(")
            && matches!(body.get(i - 3), Some(Tok::Ident(f)) if f.starts_with("atomic_") || f.starts_with("atom_"));
        // A member or swizzle of the element (`pos[i].xyz += ..`) is the element written.
        let mut after = close;
        while is_punct(body.get(after), ".") {
            after += 2;
        }
        let written =
            is_assign(body.get(after)) || is_punct(prev, "++") || is_punct(prev, "--") || atomic;
        if !written {
            continue;
        }
        if !ok(&body[i + 2..close.saturating_sub(1).max(i + 2)]) {
            return false;
        }
        writes += 1;
    }
    writes > 0
}

/// The positions of `toks` outside square brackets: an offset inside an index of another
/// array (`v = data[gid + offset]`, `bins[remap[i]]`) offsets that read, not this index.
fn outside_brackets(toks: &[Tok]) -> impl Iterator<Item = usize> + '_ {
    let mut depth = 0usize;
    (0..toks.len()).filter(move |&k| {
        if is_punct(toks.get(k), "[") {
            depth += 1;
        } else if is_punct(toks.get(k), "]") {
            depth = depth.saturating_sub(1);
        }
        depth == 0
    })
}

/// Whether the body reads or writes through pointer `name`.
fn body_access(name: &str, body: &[Tok]) -> ParamAccess {
    let mut read = false;
    let mut write = false;
    let mut i = 0;
    while i < body.len() {
        if !matches!(&body[i], Tok::Ident(s) if s == name) {
            i += 1;
            continue;
        }
        let prev = if i > 0 { body.get(i - 1) } else { None };
        let next = body.get(i + 1);
        if matches!(prev, Some(Tok::Punct(p)) if p == ".") {
            // A struct member of the same name.
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let element = if is_punct(next, "[") {
            j = close_of(body, i + 1);
            true
        } else if is_punct(next, "->") {
            j = i + 3;
            true
        } else {
            false
        };
        if element {
            while is_punct(body.get(j), ".") {
                j += 2;
            }
            let pre_inc = is_punct(prev, "++") || is_punct(prev, "--");
            if is_punct(prev, "&") {
                // The element's address is taken: an atomic writes it, anything else may.
                match call_of(body, i).as_deref() {
                    Some(f) if f.starts_with("atomic_") || f.starts_with("atom_") => {
                        read = true;
                        write = true;
                    }
                    _ => return ParamAccess::Unknown,
                }
            } else if is_assign(body.get(j)) || pre_inc {
                write = true;
                if !is_punct(body.get(j), "=") {
                    read = true;
                }
            } else {
                read = true;
            }
            i = j;
            continue;
        }
        let operand_before = i >= 2 && matches!(&body[i - 2], Tok::Ident(_) | Tok::Other)
            || is_punct(body.get(i.wrapping_sub(2)), ")")
            || is_punct(body.get(i.wrapping_sub(2)), "]");
        let deref = is_punct(prev, "*") && !operand_before;
        if deref {
            if is_assign(next) {
                write = true;
            } else {
                read = true;
            }
            i += 1;
            continue;
        }
        // Passed to a function: a store or atomic writes; anything else escapes.
        let callee = call_of(body, i);
        match callee.as_deref() {
            Some(f)
                if f.starts_with("vstore")
                    || f.starts_with("atomic_")
                    || f.starts_with("atom_") =>
            {
                write = true;
                read |= f.starts_with("atom");
            }
            Some(f) if f.starts_with("vload") => read = true,
            _ => return ParamAccess::Unknown,
        }
        i += 1;
    }
    match (read, write) {
        (_, false) => ParamAccess::Read,
        (false, true) => ParamAccess::Write,
        (true, true) => ParamAccess::ReadWrite,
    }
}

/// The function whose argument list holds token `i` directly, if any.
fn call_of(body: &[Tok], i: usize) -> Option<String> {
    let mut depth = 0i32;
    let mut k = i;
    while k > 0 {
        k -= 1;
        match &body[k] {
            Tok::Punct(p) if p == ")" => depth += 1,
            Tok::Punct(p) if p == "(" => {
                if depth == 0 {
                    return match body.get(k.wrapping_sub(1)) {
                        Some(Tok::Ident(f)) if k > 0 => Some(f.clone()),
                        _ => None,
                    };
                }
                depth -= 1;
            }
            Tok::Punct(p) if p == ";" || p == "{" || p == "}" => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_value_sizes() {
        assert_eq!(type_size("const float"), Some(4));
        assert_eq!(type_size("uint"), Some(4));
        assert_eq!(type_size("unsigned int"), Some(4));
        assert_eq!(type_size("const double"), Some(8));
        assert_eq!(type_size("float3"), Some(16));
        assert_eq!(type_size("ulong"), Some(8));
        assert_eq!(type_size("sampler_t"), None);
        assert_eq!(type_size("size_t"), None);
        assert_eq!(type_size("struct params"), None);
    }

    #[test]
    fn writes_offset_by_a_value_parameter_are_a_region() {
        let sigs = parse_kernels(
            "kernel void saxpy(global float* z, global const float* x, float a, uint offset) {\n\
                 const size_t i = get_global_id(0) + offset;\n\
                 z[i] = a * x[i];\n\
             }\n\
             kernel void rows(global float* c, uint n, uint row0) {\n\
                 uint row = get_global_id(1) + row0;\n\
                 c[row * n + get_global_id(0)] = 0.0f;\n\
             }\n\
             kernel void add(global float* z, global const float* x, uint n) {\n\
                 if (get_global_id(0) < n) z[get_global_id(0)] += x[get_global_id(0)];\n\
             }\n\
             kernel void strided(global float* out, uint n) {\n\
                 out[get_global_id(1) * n + get_global_id(0)] = 0.0f;\n\
             }\n\
             kernel void mixed(global float* z, uint offset) {\n\
                 z[get_global_id(0) + offset] = 1.0f;\n\
                 z[0] = 2.0f;\n\
             }\n\
             kernel void bins(global const uchar* px, global uint* bins, uint base) {\n\
                 atomic_inc(&bins[base + px[get_global_id(0)]]);\n\
             }\n\
             kernel void all_bins(global const uchar* px, global uint* bins) {\n\
                 atomic_inc(&bins[px[get_global_id(0)]]);\n\
             }\n\
             kernel void loaded(global const uint* data, global uint* bins, uint offset) {\n\
                 uint v = data[get_global_id(0) + offset];\n\
                 atomic_inc(&bins[v & 255]);\n\
             }\n\
             kernel void drift(global float4* pos, global const float4* vel, uint first) {\n\
                 const uint i = get_global_id(0) + first;\n\
                 pos[i].xyz += vel[i].xyz;\n\
             }\n\
             kernel void resid(global const float* a, global float* norms, int slot) {\n\
                 norms[slot] = a[0];\n\
             }\n",
        );
        let region = |k: usize, p: usize| sigs[k].params[p].region;
        assert!(region(0, 0), "z[i] with i = gid + offset");
        assert!(region(0, 1), "x is read at the same elements");
        assert!(region(1, 0), "c[(gid + row0) * n + ..]");
        assert!(
            !region(2, 0),
            "z[gid]: n bounds the launch but does not offset it"
        );
        assert!(!region(3, 0), "out[gid * n + ..]: n is a stride");
        assert!(!region(4, 0), "z[0] is written whatever the offset");
        assert!(region(5, 1), "atomic_inc(&bins[base + ..])");
        assert!(!region(6, 1), "atomic_inc(&bins[..]) with no offset");
        assert!(
            !region(7, 1),
            "bins[v & 255] of a value read at an offset is not offset"
        );
        assert!(region(8, 0), "pos[i].xyz += ..: a swizzle of the element");
        assert!(region(9, 1), "norms[slot]: the element the parameter names");
    }

    #[test]
    fn writes_at_global_ids_are_the_work_items_elements() {
        let sigs = parse_kernels(
            "kernel void relax(global const float* in, global float* out, const int cols) {\n\
                 const int c = get_global_id(0), r = get_global_id(1);\n\
                 const int idx = r * cols + c;\n\
                 out[idx] = in[idx];\n\
             }\n\
             kernel void sum(global const float* in, global float* total) {\n\
                 if (get_global_id(0) == 0) total[0] = in[0];\n\
             }\n\
             kernel void hist(global const uchar* px, global uint* bins) {\n\
                 atomic_inc(&bins[px[get_global_id(0)]]);\n\
             }\n\
             kernel void decode(global const uchar* packed, global const float* near, global float* out) {\n\
                 size_t i = get_global_id(0);\n\
                 out[i] = packed[i] + near[i + 1];\n\
             }\n",
        );
        let by_gid = |k: usize, p: usize| sigs[k].params[p].by_global_id;
        assert!(by_gid(0, 1), "out[r * cols + c] of the global ids");
        assert!(
            !by_gid(0, 0),
            "in[r * cols + c]: not the work-item's own element"
        );
        assert!(!by_gid(1, 1), "total[0] whatever the work-item");
        assert!(!by_gid(2, 1), "bins[px[gid]]: a bin the data picks");
        assert!(
            by_gid(2, 0),
            "px[get_global_id(0)]: the work-item's own element"
        );
        assert!(by_gid(3, 0), "packed[i] of i = get_global_id(0)");
        assert!(!by_gid(3, 1), "near[i + 1]: the next work-item's element");
    }

    #[test]
    fn reads_at_exactly_the_offset_elements_are_a_region() {
        let sigs = parse_kernels(
            "kernel void dot(global const float* a, global const float* b, global float* out,\n\
                             uint row0, uint rows) {\n\
                 uint g = get_global_id(0);\n\
                 out[g] = g < rows ? a[g + row0] * b[get_global_id(0) + row0] : 0.0f;\n\
             }\n\
             kernel void lap(global const float* p, global float* ap, uint row0) {\n\
                 uint i = get_global_id(0) + row0;\n\
                 ap[i] = 2.0f * p[i] - p[i - 1] - p[i + 1];\n\
             }\n\
             kernel void lap2(global const float* u, global float* v, uint row0, uint nx) {\n\
                 uint i = get_global_id(0) + row0 * nx;\n\
                 v[i] = u[i + nx] - u[i];\n\
             }\n\
             kernel void gather(global const float* src, global float* dst, uint first) {\n\
                 dst[get_global_id(0)] = src[first + get_global_id(1)];\n\
             }\n",
        );
        let region = |k: usize, p: usize| sigs[k].params[p].region;
        assert!(region(0, 0), "a[g + row0]");
        assert!(region(0, 1), "b[get_global_id(0) + row0]");
        assert!(!region(1, 0), "p[i - 1] reads a neighbour's element");
        assert!(region(1, 1), "ap[i] is written at the offset");
        assert!(!region(2, 0), "u[i + nx] reads past the offset");
        assert!(
            !region(3, 0),
            "src[first + get_global_id(1)]: not the launch's own index form"
        );
    }

    const SRC: &str = r#"
        // a comment with __kernel void fake(int x)
        __kernel void step(__global const float* own, __global float* halo,
                           __constant float* coeff, __local float* tile,
                           float4 color, const uint n, __global float* out,
                           __global int* hist, __global float* opaque) {
            size_t i = get_global_id(0);
            halo[i] = halo[i] * 0.5f + own[i] * coeff[0];
            tile[i] = color.x;
            float v = out[i];
            atomic_inc(&hist[0]);
            helper(opaque);
        }
        kernel void fill(global float *dst) { *dst = 1.0f; dst[1] += 2.0f; }
    "#;

    #[test]
    fn signatures_and_accesses() {
        let ks = parse_kernels(SRC);
        assert_eq!(
            ks.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
            ["step", "fill"]
        );
        let p = &ks[0].params;
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            ["own", "halo", "coeff", "tile", "color", "n", "out", "hist", "opaque"]
        );
        assert_eq!(
            (p[0].space, p[0].pointer, p[0].const_pointee, p[0].access),
            (AddrSpace::Global, true, true, ParamAccess::Read)
        );
        assert_eq!(p[1].access, ParamAccess::ReadWrite);
        assert!(p[1].takes_mem_object() && p[2].takes_mem_object());
        assert_eq!(p[2].space, AddrSpace::Constant);
        assert!(
            !p[3].takes_mem_object(),
            "a __local pointer takes no buffer"
        );
        assert!(!p[4].pointer && !p[4].takes_mem_object());
        assert_eq!(p[6].access, ParamAccess::Read);
        // `&hist[0]` inside an atomic: an element access, then the call writes it.
        assert_ne!(p[7].access, ParamAccess::Read);
        assert_eq!(p[8].access, ParamAccess::Unknown);
        assert_eq!(ks[1].params[0].access, ParamAccess::ReadWrite);
    }

    #[test]
    fn broken_sources_do_not_panic() {
        for src in [
            "__kernel",
            "__kernel void",
            "__kernel void k(",
            "kernel void k(__global float* x) { x[",
            "/* unterminated",
        ] {
            let _ = parse_kernels(src);
        }
    }
}
