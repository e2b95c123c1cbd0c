//! Generated and mutated inputs: random token streams, fixtures with tokens deleted, swapped
//! or duplicated, and random programs that call the modeled OpenCL APIs. Each test takes its
//! share of `FUZZ_CASES` (100,000 in all by default) and fails on any internal problem.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

use crate::support::{announce, seed, total_cases, Driver, Rng};

/// Shares of the suite's inputs, in percent.
const TOKEN_SHARE: usize = 20;
const MUTATION_SHARE: usize = 45;
const PROGRAM_SHARE: usize = 35;

fn share(percent: usize) -> usize {
    total_cases() * percent / 100
}

/// The fixtures as flat token lists (a group is its open token, its contents, its close).
fn fixture_tokens() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            let ts: TokenStream = text.parse().unwrap();
            let mut toks = Vec::new();
            flatten(ts, &mut toks);
            out.push(toks);
        }
    }
    assert!(out.len() >= 12, "fixtures missing");
    out
}

fn flatten(ts: TokenStream, out: &mut Vec<String>) {
    for tt in ts {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push(open.into());
                flatten(g.stream(), out);
                out.push(close.into());
            }
            // A joint punctuation mark is glued to the next token (`::`, `'a`, `=>`).
            TokenTree::Punct(p) if p.spacing() == Spacing::Joint => {
                out.push(format!("{}\u{0}", p.as_char()));
            }
            other => out.push(other.to_string()),
        }
    }
}

fn join(tokens: &[String]) -> String {
    let mut s = String::new();
    for t in tokens {
        match t.strip_suffix('\u{0}') {
            Some(glued) => s.push_str(glued),
            None => {
                s.push_str(t);
                s.push(if matches!(t.as_str(), ";" | "{" | "}") {
                    '\n'
                } else {
                    ' '
                });
            }
        }
    }
    s
}

#[test]
fn random_token_streams() {
    let pool: Vec<String> = fixture_tokens().into_iter().flatten().collect();
    let extra = [
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        "::",
        ";",
        ",",
        ".",
        "=",
        "=>",
        "->",
        "&",
        "*",
        "?",
        "!",
        "#",
        "'a",
        "'",
        "|",
        "||",
        "..",
        "..=",
        "fn",
        "let",
        "mut",
        "if",
        "else",
        "loop",
        "while",
        "for",
        "in",
        "match",
        "return",
        "break",
        "continue",
        "move",
        "async",
        "await",
        "unsafe",
        "impl",
        "struct",
        "enum",
        "mod",
        "use",
        "self",
        "Self",
        "macro_rules",
        "0",
        "1u8",
        "\"s\"",
        "r#\"raw\"#",
        "b'x'",
        "'c'",
        "1e9",
        "0x_ff",
        "é",
        "_",
    ];
    let mut rng = Rng::new(seed() ^ 1);
    let mut d = Driver::new("tokens", 500);
    for _ in 0..share(TOKEN_SHARE) {
        let len = rng.below(200);
        let toks: Vec<String> = (0..len)
            .map(|_| {
                if rng.one_in(3) {
                    rng.pick(&extra).to_string()
                } else {
                    rng.pick(&pool).clone()
                }
            })
            .collect();
        let body = join(&toks);
        // Half the streams sit inside a function body, where statements and expressions parse.
        let text = if rng.one_in(2) {
            format!("fn f() {{ {body} }}")
        } else {
            body
        };
        d.push(text.into_bytes());
    }
    let c = d.finish();
    announce(&format!("fuzz: {} random token streams checked", c.inputs));
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The end (exclusive) of the statement starting at `i`: up to and including the next `;`
/// at the same nesting, or `None` when a group closes first.
fn statement_end(toks: &[String], i: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, t) in toks.iter().enumerate().skip(i) {
        match t.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            ";" if depth == 0 => return Some(j + 1),
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

/// One token-level mutation. Most keep the file parseable (identifiers swapped or replaced,
/// whole statements deleted, duplicated or moved), so lowering and analysis see them too;
/// the others delete, duplicate or swap arbitrary tokens.
fn mutate(toks: &mut Vec<String>, rng: &mut Rng) {
    if toks.is_empty() {
        return;
    }
    let idents: Vec<usize> = (0..toks.len()).filter(|&i| is_ident(&toks[i])).collect();
    let starts: Vec<usize> = (0..toks.len())
        .filter(|&i| i > 0 && matches!(toks[i - 1].as_str(), ";" | "{"))
        .collect();
    let i = rng.below(toks.len());
    match rng.below(8) {
        0 | 1 if idents.len() > 1 => {
            let (a, b) = (*rng.pick(&idents), *rng.pick(&idents));
            toks.swap(a, b);
        }
        2 if !idents.is_empty() => {
            let (a, b) = (*rng.pick(&idents), *rng.pick(&idents));
            toks[a] = toks[b].clone();
        }
        3 | 4 if !starts.is_empty() => {
            let at = *rng.pick(&starts);
            if let Some(end) = statement_end(toks, at) {
                let stmt: Vec<String> = toks.drain(at..end).collect();
                if rng.one_in(3) {
                    return;
                }
                let to = starts[rng.below(starts.len())].min(toks.len());
                toks.splice(to..to, stmt.iter().cloned());
                if rng.one_in(2) {
                    toks.splice(to..to, stmt);
                }
            }
        }
        5 => {
            toks.remove(i);
        }
        6 => {
            let t = toks[i].clone();
            toks.insert(i, t);
        }
        _ => {
            let j = rng.below(toks.len());
            toks.swap(i, j);
        }
    }
}

#[test]
fn mutated_fixtures() {
    let fixtures = fixture_tokens();
    let mut rng = Rng::new(seed() ^ 2);
    let mut d = Driver::new("mutations", 200);
    for _ in 0..share(MUTATION_SHARE) {
        let mut toks = rng.pick(&fixtures).clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut toks, &mut rng);
        }
        d.push(join(&toks).into_bytes());
    }
    let c = d.finish();
    assert!(
        c.parsed * 5 >= c.inputs,
        "too few mutants parse: {} of {}",
        c.parsed,
        c.inputs
    );
    announce(&format!(
        "fuzz: {} mutated fixtures checked, {} of them parsed, {} findings",
        c.inputs, c.parsed, c.findings
    ));
}

/// Random programs in the shape of OpenCL host code: the modeled methods and functions of
/// `rules/bindings/opencl3.toml` with random arguments, in loops, branches and closures.
pub struct ProgramGen {
    rng: Rng,
    /// `(name, number of arguments)` of the modeled methods.
    methods: Vec<(String, usize)>,
    /// `(path, number of arguments)` of the modeled functions.
    functions: Vec<(String, usize)>,
    depth: usize,
}

const QUEUES: &[&str] = &[
    "q0",
    "q1",
    "cmdq_dev0",
    "queues[0]",
    "queues[1]",
    "queues[i]",
    "self.queue",
    "&q0",
];
const BUFFERS: &[&str] = &["b0", "b1", "b2", "halo", "self.halo", "bufs[0]", "bufs[i]"];
const EVENTS: &[&str] = &["e0", "e1", "e2", "done", "evs[0]"];
const HOSTS: &[&str] = &["h0", "h1", "data", "result", "arr"];
const KERNELS: &[&str] = &["k0", "k1", "kernel"];

const KERNEL_SOURCES: &[&str] = &[
    "__kernel void k0(__global const float* a, __global float* b) { size_t i = get_global_id(0); b[i] = a[i] * 2.0f; }",
    "kernel void k1(global float* restrict x, __constant float* c, __local float* l, int n) { x[n] += c[0]; l[0] = 1; }",
    "__kernel void k2(__global float4* v, __read_only image2d_t img) { vstore4(vload4(0, (float*)v), 1, (float*)v); atomic_add(v, 1); }",
];

impl ProgramGen {
    pub fn new(seed: u64) -> Self {
        let table: toml::Table = std::fs::read_to_string("rules/bindings/opencl3.toml")
            .unwrap()
            .parse()
            .unwrap();
        let rows = |key: &str, name: &str| -> Vec<(String, usize)> {
            table[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    let args = r.get("args").and_then(|a| a.as_array()).map_or(0, Vec::len);
                    (r[name].as_str().unwrap().to_string(), args)
                })
                .collect()
        };
        let methods = rows("method", "name");
        let functions = rows("function", "path");
        assert!(methods.len() > 20 && functions.len() > 10);
        ProgramGen {
            rng: Rng::new(seed),
            methods,
            functions,
            depth: 0,
        }
    }

    fn pick(&mut self, items: &[&str]) -> String {
        self.rng.pick(items).to_string()
    }

    fn arg(&mut self) -> String {
        match self.rng.below(22) {
            0 => format!("&mut {}", self.pick(BUFFERS)),
            1 => format!("&{}", self.pick(BUFFERS)),
            2 => format!("{}.get()", self.pick(BUFFERS)),
            3 => format!("&[{}.get()]", self.pick(BUFFERS)),
            4 => "CL_BLOCKING".into(),
            5 => "CL_NON_BLOCKING".into(),
            6 => "0".into(),
            7 => format!("&{}", self.pick(HOSTS)),
            8 => format!("&mut {}", self.pick(HOSTS)),
            9 => format!("&[{}.get()]", self.pick(EVENTS)),
            10 => "&[]".into(),
            11 => "CL_MIGRATE_MEM_OBJECT_HOST".into(),
            12 => "CL_MEM_READ_WRITE".into(),
            13 => format!("{}.as_ptr() as *mut c_void", self.pick(HOSTS)),
            14 => "ptr::null_mut()".into(),
            15 => format!("&{}", self.pick(EVENTS)),
            16 => format!("{}.get()", self.pick(KERNELS)),
            17 => format!("&[{}, {}]", self.pick(EVENTS), self.pick(EVENTS)),
            18 => format!("|x| {}.len() + x", self.pick(HOSTS)),
            19 => format!("{}", self.rng.below(4)),
            20 => format!("unknown({})", self.pick(BUFFERS)),
            _ => "N".into(),
        }
    }

    fn args(&mut self, n: usize) -> String {
        let n = match self.rng.below(8) {
            0 => n.saturating_sub(1),
            1 => n + 1,
            _ => n,
        };
        (0..n).map(|_| self.arg()).collect::<Vec<_>>().join(", ")
    }

    fn call(&mut self) -> String {
        if self.rng.one_in(3) {
            let (path, n) = self.rng.pick(&self.functions).clone();
            let args = match path.as_str() {
                "Kernel::create" => {
                    format!("&program, \"{}\"", self.pick(&["k0", "k1", "k2", "nope"]))
                }
                "Program::create_and_build_from_source" | "Program::create_from_source" => {
                    format!("&context, {}, \"\"", self.source())
                }
                _ => self.args(n),
            };
            format!("{path}({args})")
        } else {
            let (name, n) = self.rng.pick(&self.methods).clone();
            let recv = match self.rng.below(4) {
                0 => self.pick(KERNELS),
                1 => self.pick(EVENTS),
                2 => format!("ExecuteKernel::new(&{})", self.pick(KERNELS)),
                _ => self.pick(QUEUES),
            };
            let args = self.args(n);
            let mut call = format!("{recv}.{name}({args})");
            while self.rng.one_in(3) {
                let (name, n) = self.rng.pick(&self.methods).clone();
                let args = self.args(n);
                call = format!("{call}\n    .{name}({args})");
            }
            call
        }
    }

    fn source(&mut self) -> String {
        match self.rng.below(4) {
            0 => "SOURCE".into(),
            1 => format!(
                "include_str!(\"{}\")",
                self.pick(&["k.cl", "../k.cl", "/dev/null", "f00000.rs"])
            ),
            2 => format!("&[{}, SOURCE]", self.mutated_kernel()),
            _ => self.mutated_kernel(),
        }
    }

    /// An OpenCL C source with characters deleted or inserted, as a Rust raw string.
    fn mutated_kernel(&mut self) -> String {
        let mut chars: Vec<char> = self.rng.pick(KERNEL_SOURCES).chars().collect();
        for _ in 0..self.rng.below(6) {
            let i = self.rng.below(chars.len() + 1);
            if self.rng.one_in(2) && i < chars.len() {
                chars.remove(i);
            } else {
                let c = *self.rng.pick(&[
                    '(', ')', '{', '}', '*', '/', '"', 'é', '漢', ',', ' ', '\n', '[',
                ]);
                chars.insert(i, c);
            }
        }
        let text: String = chars.into_iter().collect();
        format!("r##\"{}\"##", text.replace("\"##", ""))
    }

    fn buffer_binding(&mut self) -> String {
        let b = self.pick(BUFFERS);
        if b.contains(['.', '[']) {
            b
        } else {
            format!("let mut {b}")
        }
    }

    fn stmt(&mut self) -> String {
        let nested = self.depth < 4;
        match self.rng.below(if nested { 16 } else { 9 }) {
            0..=2 => {
                let e = self.pick(EVENTS);
                let bind = if e.contains('[') { "" } else { "let " };
                format!("{bind}{e} = {}?;", self.call())
            }
            3 => format!("{}?;", self.call()),
            4 => format!(
                "{} = Buffer::<cl_float>::create(&context, {}, N, {})?;",
                self.buffer_binding(),
                self.pick(&["CL_MEM_READ_WRITE", "CL_MEM_COPY_HOST_PTR", "0"]),
                self.pick(&["ptr::null_mut()", "h0.as_mut_ptr() as *mut c_void"])
            ),
            5 => format!(
                "{}.set_arg({}, &{})?;",
                self.pick(KERNELS),
                self.rng.below(3),
                self.pick(&["b0", "h0", "halo", "n", "arr"])
            ),
            6 => format!("{}.finish()?;", self.pick(QUEUES)),
            7 => self.pick(&[
                "return Ok(());",
                "drop(e0);",
                "std::mem::swap(&mut b0, &mut b1);",
                "let (b0, b1) = (b1, b0);",
                "let b2 = b0.clone();",
                "wait_for_events(&[e0.get()])?;",
                "e1.wait()?;",
            ]),
            8 => format!("let {} = vec![0.0f32; N];", self.pick(HOSTS)),
            9 => format!("for i in 0..{} {{\n{}\n}}", self.rng.below(4), self.block()),
            10 => format!(
                "if {} {{\n{}\n}} else {{\n{}\n}}",
                self.pick(&["i == 0", "flag", "n > 1"]),
                self.block(),
                self.block()
            ),
            11 => format!("loop {{\n{}\nbreak;\n}}", self.block()),
            12 => format!("let c = |x: usize| {{\n{}\n}};\nc(1);", self.block()),
            13 => format!(
                "match n {{ 0 => {{\n{}\n}} _ => {{\n{}\n}} }}",
                self.block(),
                self.block()
            ),
            14 => format!("unsafe {{\n{}\n}}", self.block()),
            _ => format!(
                "'outer: while flag {{\n{}\nif n > 2 {{ continue 'outer; }}\n}}",
                self.block()
            ),
        }
    }

    fn block(&mut self) -> String {
        self.depth += 1;
        let n = self.rng.below(6);
        let body = (0..n).map(|_| self.stmt()).collect::<Vec<_>>().join("\n");
        self.depth -= 1;
        body
    }

    pub fn program(&mut self) -> String {
        let mut s = String::from(
            "use opencl3::command_queue::CommandQueue;\nuse opencl3::kernel::{ExecuteKernel, Kernel};\nuse opencl3::memory::*;\n",
        );
        s.push_str(&format!(
            "const SOURCE: &str = {};\n",
            self.mutated_kernel()
        ));
        for f in 0..1 + self.rng.below(3) {
            let body = self.block();
            if self.rng.one_in(3) {
                s.push_str(&format!(
                    "impl Halo {{\n fn step{f}(&mut self, queues: &[CommandQueue], i: usize) -> Result<(), Box<dyn Error>> {{\n{body}\nOk(())\n}}\n}}\n"
                ));
            } else {
                s.push_str(&format!(
                    "fn run{f}(context: &Context, q0: &CommandQueue, q1: &CommandQueue, queues: &[CommandQueue], bufs: &mut [Buffer<f32>], i: usize, n: usize, flag: bool) -> Result<(), Box<dyn Error>> {{\nlet program = Program::create_and_build_from_source(context, SOURCE, \"\")?;\nlet k0 = Kernel::create(&program, \"k0\")?;\n{body}\nOk(())\n}}\n"
                ));
            }
        }
        s
    }
}

#[test]
fn generated_opencl_programs() {
    let mut g = ProgramGen::new(seed() ^ 3);
    let mut d = Driver::new("programs", 200);
    for _ in 0..share(PROGRAM_SHARE) {
        d.push(g.program().into_bytes());
    }
    let c = d.finish();
    assert!(
        c.parsed * 10 >= c.inputs * 9,
        "generated programs should parse: {} of {}",
        c.parsed,
        c.inputs
    );
    announce(&format!(
        "fuzz: {} generated OpenCL programs checked, {} findings",
        c.inputs, c.findings
    ));
}
