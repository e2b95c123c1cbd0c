//! Lowering is tested as data: `tests/lowering/<binding>.rs` calls every modeled API of a
//! binding, and its `debug ir` output must equal `tests/lowering/<binding>.ir` (run with
//! `BLESS=1` to rewrite after reviewing). Every table row must appear in the fixture.

use std::path::Path;

use clmigrate_lint::debug_ir;
use clmigrate_lint::frontend::bindings::Bindings;

#[test]
fn embedded_binding_tables_parse() {
    let b = Bindings::from_tables(Bindings::tables()).expect("the embedded tables are valid");
    assert!(b.names().len() > 30);
    assert!(b.method("enqueue_migrate_mem_object", 4).is_some());
    assert!(b.method("set_arg", 2).is_some() && b.method("set_arg", 1).is_some());
}

/// ocl-core's free functions hold under the paths the crate goes by, and cl3's under cl3's
/// modules; a bare name of the same arity is neither's (an import resolves it before this
/// lookup: `use cl3::command_queue::*` makes it cl3's, ocl-core's own crate-root calls stay
/// its own).
#[test]
fn ocl_core_rows_hold_under_its_paths_only() {
    let b = Bindings::get();
    let binding = |path: &str, arity: usize| {
        let segs: Vec<String> = path.split("::").map(String::from).collect();
        b.function(&segs, arity).map(|a| a.binding.as_str())
    };
    assert_eq!(
        binding("ocl_core::enqueue_fill_buffer", 8),
        Some("ocl-core")
    );
    assert_eq!(binding("core::enqueue_fill_buffer", 8), Some("ocl-core"));
    assert_eq!(
        binding("ocl::core::enqueue_fill_buffer", 8),
        Some("ocl-core")
    );
    assert_eq!(binding("enqueue_fill_buffer", 8), None);
    assert_eq!(
        binding("command_queue::enqueue_fill_buffer", 8),
        Some("cl3")
    );
    assert_eq!(
        binding("cl3::command_queue::enqueue_fill_buffer", 8),
        Some("cl3")
    );
    // Another arity is another function.
    assert_eq!(binding("core::enqueue_kernel", 7), None);
    assert_eq!(binding("core::ArgVal::mem", 1), Some("ocl-core"));
}

#[test]
fn invalid_binding_rows_are_rejected_with_their_name() {
    let bad = r#"
binding = "x"
[[method]]
name = "enqueue_thing"
receiver = "queue"
effect = "command:teleport"
args = []
"#;
    let e = Bindings::from_tables(&[("x", bad)]).unwrap_err();
    assert!(
        e.contains("x.toml") && e.contains("enqueue_thing") && e.contains("teleport"),
        "{e}"
    );
    let bad_role = "binding = \"x\"\n[[function]]\npath = \"A::b\"\neffect = \"finish\"\nargs = [\"queue\", \"wings\"]\n";
    let e = Bindings::from_tables(&[("x", bad_role)]).unwrap_err();
    assert!(e.contains("wings"), "{e}");
}

#[test]
fn lowering_snapshots() {
    let bless = std::env::var_os("BLESS").is_some();
    for (binding, table) in Bindings::tables() {
        let src = Path::new("tests/lowering").join(format!("{binding}.rs"));
        let text = std::fs::read_to_string(&src)
            .unwrap_or_else(|_| panic!("{} is missing", src.display()));
        // Every row of the table is exercised by the fixture.
        for line in table.lines() {
            let name = line
                .strip_prefix("name = \"")
                .or_else(|| line.strip_prefix("path = \""))
                .map(|r| r.trim_end_matches('"'));
            if let Some(name) = name {
                let last = name.rsplit("::").next().unwrap_or(name);
                assert!(
                    text.contains(last),
                    "{}: no call of `{name}`",
                    src.display()
                );
            }
        }
        let ir = debug_ir(&src).expect("the fixture parses");
        let snap = src.with_extension("ir");
        if bless {
            std::fs::write(&snap, &ir).unwrap();
        } else {
            let want = std::fs::read_to_string(&snap).unwrap_or_default();
            assert_eq!(
                want,
                ir,
                "{} changed; run with BLESS=1 to accept",
                snap.display()
            );
        }
    }
}

/// The C and C++ tables: `tests/lowering/c.c` calls every row of the C API (`ffi.toml`,
/// `c.toml`), `tests/lowering/cpp.cpp` every row of `opencl.hpp` (`cpp.toml`); their IR
/// must equal `c.ir` and `cpp.ir`.
#[test]
fn clike_lowering_snapshots() {
    let bless = std::env::var_os("BLESS").is_some();
    Bindings::from_tables(clmigrate_lint::frontend::clike::tables())
        .expect("the embedded C and C++ tables are valid");
    for (table, fixture) in [("ffi", "c.c"), ("c", "c.c"), ("cpp", "cpp.cpp")] {
        let text_of = |name: &str| {
            clmigrate_lint::frontend::clike::tables()
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, t)| *t)
                .unwrap()
        };
        let src = Path::new("tests/lowering").join(fixture);
        let text = std::fs::read_to_string(&src).unwrap();
        for line in text_of(table).lines() {
            let name = line
                .strip_prefix("name = \"")
                .or_else(|| line.strip_prefix("path = \""))
                .map(|r| r.trim_end_matches('"'));
            if let Some(name) = name {
                let last = name.rsplit("::").next().unwrap_or(name);
                assert!(
                    text.contains(last),
                    "{}: no call of `{name}`",
                    src.display()
                );
            }
        }
        let ir = debug_ir(&src).expect("the fixture lowers");
        let snap = src.with_extension("ir");
        if bless {
            std::fs::write(&snap, &ir).unwrap();
        } else {
            let want = std::fs::read_to_string(&snap).unwrap_or_default();
            assert_eq!(want, ir, "{} changed; run with BLESS=1", snap.display());
        }
    }
}
