//! The language server: in process over `Connection::memory()`, and end to end through a real
//! client (pygls' `LanguageClient`, `tests/editor/lsp_client.py`) talking to the built
//! binary's `lsp` subcommand, whose transcript is the snapshot `tests/editor/lsp_session.out`
//! (`BLESS=1` rewrites it).

#[path = "editor/venv.rs"]
mod venv;

use std::path::Path;
use std::process::Command;
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId};
use lsp_types::{
    CodeActionOrCommand, Diagnostic, DiagnosticSeverity, NumberOrString, Position,
    PublishDiagnosticsParams, Range, Url,
};
use serde_json::{json, Value};

use clmigrate_lint::lsp::serve;
use clmigrate_lint::Settings;

const TIMEOUT: Duration = Duration::from_secs(60);

struct Client {
    conn: Connection,
    server: JoinHandle<Result<bool, String>>,
    next_id: i32,
}

impl Client {
    /// A server on its own thread, without the handshake.
    fn spawn() -> Client {
        let (conn, server_end) = Connection::memory();
        let server = std::thread::spawn(move || serve(&server_end, &Settings::default()));
        Client {
            conn,
            server,
            next_id: 0,
        }
    }

    /// A server after `initialize` and `initialized`.
    fn start() -> Client {
        let mut c = Client::spawn();
        let init = c.request("initialize", json!({"capabilities": {}}));
        let caps = &init.expect("initialize succeeds")["capabilities"];
        assert_eq!(caps["textDocumentSync"]["change"], 1, "{caps}");
        c.notify("initialized", json!({}));
        c
    }

    fn send(&self, m: Message) {
        self.conn.sender.send(m).expect("the server is running");
    }

    fn recv(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(TIMEOUT)
            .expect("the server answers")
    }

    /// The result of a request, or its error code.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, i32> {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.into(), params).into());
        match self.recv() {
            Message::Response(r) if r.id == id => r.response_result.map_err(|e| e.code),
            other => panic!("expected the response to {method}, got {other:?}"),
        }
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.into(), params).into());
    }

    fn diagnostics(&self) -> PublishDiagnosticsParams {
        match self.recv() {
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                serde_json::from_value(n.params).expect("valid diagnostics")
            }
            other => panic!("expected diagnostics, got {other:?}"),
        }
    }

    fn open(&self, uri: &Url, text: &str) -> PublishDiagnosticsParams {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}}),
        );
        self.diagnostics()
    }

    fn change(&self, uri: &Url, version: i32, changes: Value) -> PublishDiagnosticsParams {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        );
        self.diagnostics()
    }

    fn code_actions(&mut self, uri: &Url, range: Range, only: Option<&[&str]>) -> Vec<Value> {
        let mut context = json!({"diagnostics": []});
        if let Some(only) = only {
            context["only"] = json!(only);
        }
        let r = self.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": range, "context": context}),
        );
        let actions: Vec<CodeActionOrCommand> =
            serde_json::from_value(r.expect("code actions")).expect("valid actions");
        actions
            .into_iter()
            .map(|a| serde_json::to_value(a).unwrap())
            .collect()
    }

    /// `shutdown`, `exit`, and what the server returned.
    fn stop(mut self) -> Result<bool, String> {
        assert_eq!(self.request("shutdown", Value::Null), Ok(Value::Null));
        self.notify("exit", Value::Null);
        self.server.join().expect("the server does not panic")
    }
}

fn seed(name: &str) -> (Url, String) {
    let path = std::fs::canonicalize(Path::new("fixtures/seed").join(name)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    (Url::from_file_path(path).unwrap(), text)
}

/// The text a protocol range covers (UTF-16 columns).
fn slice(text: &str, r: Range) -> &str {
    let at = |p: Position| {
        let line_start: usize = text
            .split_inclusive('\n')
            .take(p.line as usize)
            .map(str::len)
            .sum();
        let mut units = 0;
        for (i, c) in text[line_start..].char_indices() {
            if units >= p.character as usize {
                return line_start + i;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    &text[at(r.start)..at(r.end)]
}

fn codes(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .map(|d| match &d.code {
            Some(NumberOrString::String(s)) => s.clone(),
            other => panic!("code {other:?}"),
        })
        .collect()
}

fn with_code<'a>(d: &'a [Diagnostic], code: &str) -> &'a Diagnostic {
    d.iter()
        .find(|d| d.code == Some(NumberOrString::String(code.into())))
        .unwrap_or_else(|| panic!("no {code} in {d:?}"))
}

#[test]
fn ranges_count_utf16_units_and_edits_apply_to_the_editor_text() {
    let (uri, buggy) = seed("buggy.rs");
    // Before the finding on its line: a character outside the BMP (two UTF-16 units, four
    // bytes) and one of two bytes.
    let wide = buggy.replace(
        "kernel0.set_arg(1, &common_arr)?;",
        "/* 𝄞 é */ kernel0.set_arg(1, &common_arr)?;",
    );
    let c = Client::start();
    let p = c.open(&uri, &wide);
    assert_eq!(p.version, Some(1));
    let clm001 = with_code(&p.diagnostics, "CLM001");
    assert_eq!(slice(&wide, clm001.range), "&common_arr");
    assert_eq!(clm001.severity, Some(DiagnosticSeverity::ERROR));
    assert_eq!(clm001.source.as_deref(), Some("clmigrate-lint"));
    assert!(clm001.message.contains("help: did you mean `common_buf`?"));

    // An edit by range, with positions after the wide characters, replaces exactly the
    // argument: the finding goes away and the others stay.
    let p = c.change(
        &uri,
        2,
        json!([{"range": clm001.range, "text": "&common_buf"}]),
    );
    assert_eq!(p.version, Some(2));
    assert_eq!(
        codes(&p.diagnostics),
        ["CLM004", "CLM003", "CLM002", "CLM003", "CLM002", "CLM003"]
    );
    let clm004 = with_code(&p.diagnostics, "CLM004");
    let related = clm004.related_information.as_ref().expect("related");
    assert_eq!(related.len(), 1);
    assert_eq!(related[0].location.uri, uri);
    assert!(slice(&wide, related[0].location.range)
        .starts_with("cmdq_dev0.enqueue_write_buffer(&mut common_buf"));
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn code_actions_carry_the_fix_of_the_finding_under_the_range() {
    let (uri, buggy) = seed("buggy.rs");
    let mut c = Client::start();
    let p = c.open(&uri, &buggy);
    let clm002 = with_code(&p.diagnostics, "CLM002");

    let actions = c.code_actions(&uri, clm002.range, None);
    assert_eq!(actions.len(), 1, "{actions:?}");
    let a = &actions[0];
    assert_eq!(a["kind"], "quickfix");
    assert_eq!(a["isPreferred"], true);
    assert_eq!(a["diagnostics"][0]["code"], "CLM002");
    let edits = a["edit"]["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    let range: Range = serde_json::from_value(edits[0]["range"].clone()).unwrap();
    assert_eq!(slice(&buggy, range), "CL_MIGRATE_MEM_OBJECT_HOST");
    assert_eq!(edits[0]["newText"], "0");

    // Filtered by kind: the empty kind is every kind.
    assert_eq!(
        c.code_actions(&uri, clm002.range, Some(&["quickfix"]))
            .len(),
        1
    );
    assert_eq!(c.code_actions(&uri, clm002.range, Some(&[""])).len(), 1);
    assert!(c
        .code_actions(&uri, clm002.range, Some(&["refactor"]))
        .is_empty());
    // A fix that needs review is offered but not preferred.
    let clm001 = with_code(&p.diagnostics, "CLM001");
    let actions = c.code_actions(&uri, clm001.range, None);
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["isPreferred"], false);
    // Nothing on a line without findings, nor in a document that is not open.
    let first = Range::new(Position::new(0, 0), Position::new(0, 3));
    assert!(c.code_actions(&uri, first, None).is_empty());
    let other = Url::parse("file:///not/open.rs").unwrap();
    assert!(c.code_actions(&other, clm002.range, None).is_empty());
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn a_fix_that_is_only_shown_is_not_a_code_action() {
    let (uri, buggy) = seed("buggy.rs");
    let text = buggy.replacen(
        "CL_MIGRATE_MEM_OBJECT_HOST,\n",
        "CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,\n",
        1,
    );
    let mut c = Client::start();
    let p = c.open(&uri, &text);
    let clm002 = with_code(&p.diagnostics, "CLM002");
    assert!(slice(&text, clm002.range).contains("CONTENT_UNDEFINED"));
    assert!(c.code_actions(&uri, clm002.range, None).is_empty());
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn close_clears_and_an_unparseable_text_is_one_error() {
    let (uri, buggy) = seed("buggy.rs");
    let c = Client::start();
    assert_eq!(c.open(&uri, &buggy).diagnostics.len(), 7);
    let p = c.change(&uri, 2, json!([{"text": "fn broken( {"}]));
    assert_eq!(p.diagnostics.len(), 1, "{p:?}");
    let d = &p.diagnostics[0];
    assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
    assert!(d.message.contains("could not parse"), "{}", d.message);
    assert_eq!(d.code, None);
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    let p = c.diagnostics();
    assert_eq!((p.uri, p.diagnostics.len(), p.version), (uri, 0, None));
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn bad_input_is_answered_and_never_stops_the_server() {
    let mut c = Client::spawn();
    let r = c.request("textDocument/codeAction", json!({}));
    assert_eq!(r, Err(ErrorCode::ServerNotInitialized as i32));
    assert!(c.request("initialize", json!({"capabilities": {}})).is_ok());
    c.notify("initialized", json!({}));

    let r = c.request("textDocument/hover", json!({}));
    assert_eq!(r, Err(ErrorCode::MethodNotFound as i32));
    let r = c.request("textDocument/codeAction", json!({"textDocument": 3}));
    assert_eq!(r, Err(ErrorCode::InvalidParams as i32));
    // Malformed notifications, a change to a document that is not open, a document that is
    // not Rust and an unknown notification are dropped without an answer.
    c.notify("textDocument/didOpen", json!({"textDocument": "x"}));
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///nope.rs", "version": 2}, "contentChanges": [{"text": ""}]}),
    );
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": "file:///notes.md", "languageId": "markdown", "version": 1, "text": "x"}}),
    );
    c.notify("$/cancelRequest", json!({"id": 1}));
    // A range past the end of the text is clamped.
    let (uri, buggy) = seed("buggy.rs");
    assert_eq!(c.open(&uri, &buggy).uri, uri);
    let far = Range::new(Position::new(10_000, 5), Position::new(10_001, 0));
    let p = c.change(&uri, 2, json!([{"range": far, "text": "\n"}]));
    assert_eq!(p.diagnostics.len(), 7);

    assert_eq!(c.request("shutdown", Value::Null), Ok(Value::Null));
    let r = c.request("textDocument/codeAction", json!({}));
    assert_eq!(r, Err(ErrorCode::InvalidRequest as i32));
    c.notify("exit", Value::Null);
    assert_eq!(c.server.join().unwrap(), Ok(true));
}

#[test]
fn exit_without_shutdown_or_a_hang_up_is_not_a_clean_stop() {
    let c = Client::start();
    c.notify("exit", Value::Null);
    assert_eq!(c.server.join().unwrap(), Ok(false));
    let c = Client::start();
    drop(c.conn);
    assert_eq!(c.server.join().unwrap(), Ok(false));
}

/// `Content-Length` framing of JSON-RPC messages.
fn framed(messages: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        let body = m.to_string();
        out.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).bytes());
    }
    out
}

fn run_lsp(stdin: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
        .arg("lsp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_process_exit_status_follows_the_protocol() {
    let init =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
    let shutdown = json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"});
    let exit = json!({"jsonrpc": "2.0", "method": "exit"});
    let clean = run_lsp(&framed(&[
        init.clone(),
        initialized.clone(),
        shutdown,
        exit.clone(),
    ]));
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
    let unclean = run_lsp(&framed(&[init.clone(), initialized.clone(), exit]));
    assert_eq!(unclean.status.code(), Some(1), "{unclean:?}");
    // A body that is not JSON ends the session with an error, not a panic.
    let mut garbage = framed(&[init, initialized]);
    garbage.extend(b"Content-Length: 5\r\n\r\n{oops");
    let broken = run_lsp(&garbage);
    let stderr = String::from_utf8_lossy(&broken.stderr);
    assert_eq!(broken.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error: language server: malformed LSP payload"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_real_client_over_stdio() {
    let python = venv::python();
    let out = Command::new(&python)
        .arg("tests/editor/lsp_client.py")
        .arg(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
        .arg("fixtures/seed")
        .arg("tests/editor/crate")
        .arg("fixtures/host-shapes/closure_calls.rs")
        .output()
        .expect("the client runs");
    let transcript = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the client failed:\n{transcript}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let snap = Path::new("tests/editor/lsp_session.out");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(snap, transcript.as_bytes()).unwrap();
    }
    let want = std::fs::read_to_string(snap).unwrap_or_default();
    assert_eq!(
        want,
        transcript,
        "the session differs from {}; run with BLESS=1 to accept",
        snap.display()
    );
}

#[test]
fn the_server_asks_to_hear_of_changed_files_when_the_client_can() {
    let mut c = Client::spawn();
    let caps = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    assert!(c
        .request("initialize", json!({"capabilities": caps}))
        .is_ok());
    c.notify("initialized", json!({}));
    let Message::Request(r) = c.recv() else {
        panic!("expected the registration request");
    };
    assert_eq!(r.method, "client/registerCapability");
    let registration = &r.params["registrations"][0];
    assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
    let globs: Vec<&str> = registration["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    assert_eq!(
        globs,
        [
            "**/*.rs",
            "**/Cargo.toml",
            "**/*.cl",
            "**/clmigrate-lint.toml"
        ]
    );
    c.send(lsp_server::Response::new_ok(r.id, Value::Null).into());
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn a_file_created_in_the_crate_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for name in ["Cargo.toml", "src/lib.rs", "src/other.rs"] {
        let to = root.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new("tests/editor/crate").join(name), to).unwrap();
    }
    let lib = root.join("src/lib.rs");
    let uri = Url::from_file_path(&lib).unwrap();
    let c = Client::start();
    // Without the helper's file, its call is unknown: nothing to report.
    let p = c.open(&uri, &std::fs::read_to_string(&lib).unwrap());
    assert!(p.diagnostics.is_empty(), "{p:?}");
    let gpu = root.join("src/gpu.rs");
    std::fs::copy("tests/editor/crate/src/gpu.rs", &gpu).unwrap();
    let created = Url::from_file_path(&gpu).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": created, "type": 1}]}),
    );
    let p = c.diagnostics();
    assert_eq!((p.uri.clone(), p.version), (uri, Some(1)));
    assert_eq!(codes(&p.diagnostics), ["CLM003"]);
    let related = p.diagnostics[0].related_information.as_ref().unwrap();
    assert_eq!(related[0].location.uri, created);
    assert_eq!(c.stop(), Ok(true));
}

#[test]
fn the_configuration_above_the_file_sets_the_levels() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for name in ["Cargo.toml", "src/lib.rs", "src/gpu.rs"] {
        let to = root.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new("tests/editor/crate").join(name), to).unwrap();
    }
    std::fs::write(
        root.join("clmigrate-lint.toml"),
        "[levels]\nmissing-wait-list = \"warn\"\n",
    )
    .unwrap();
    let lib = root.join("src/lib.rs");
    let uri = Url::from_file_path(&lib).unwrap();
    let c = Client::start();
    let p = c.open(&uri, &std::fs::read_to_string(&lib).unwrap());
    assert_eq!(codes(&p.diagnostics), ["CLM003"]);
    assert_eq!(p.diagnostics[0].severity, Some(DiagnosticSeverity::WARNING));
    // Changed: the crate is read again with it.
    std::fs::write(
        root.join("clmigrate-lint.toml"),
        "[levels]\nCLM003 = \"allow\"\n",
    )
    .unwrap();
    let changed = Url::from_file_path(root.join("clmigrate-lint.toml")).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": changed, "type": 2}]}),
    );
    assert!(c.diagnostics().diagnostics.is_empty());
    assert_eq!(c.stop(), Ok(true));
}
