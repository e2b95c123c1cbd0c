//! `cargo clmigrate-lint lsp`: a language server over standard input and output.
//!
//! It checks each open document as part of its crate, as a check of the whole crate does:
//! the crate's files are read from the disk and lowered once ([`CrateIndex`]), with the text
//! of each open document (as the editor holds it, unsaved changes included) in place of its
//! file. When a document is opened, changed or saved, that file is lowered again and every
//! open document of the crate is checked again (a helper's change can change what its
//! callers do); a document that is closed is the disk's file again; files changed on the
//! disk (`workspace/didChangeWatchedFiles`, registered when the client can) are read again.
//! It publishes the findings as diagnostics, clears them when the document is closed, and
//! offers each applicable fix as a quick fix. Positions are counted in UTF-16 code units,
//! the protocol's default encoding.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, Request as _, Shutdown};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeDescription, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    FileChangeType, Location, NumberOrString, Position, PublishDiagnosticsParams, Range,
    SaveOptions, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Url, WorkspaceEdit,
};

use crate::config::Config;
use crate::crate_index::{CrateIndex, FileCheck};
use crate::fix;
use crate::ir::Span;
use crate::rules::{Applicability, Finding, Level};
use crate::source::SourceFile;
use crate::Settings;

/// The name diagnostics carry as their `source`.
const SOURCE: &str = "clmigrate-lint";

/// Serves one client on standard input and output until it sends `exit` or hangs up.
/// `Ok(true)` when `shutdown` came before `exit`, as the protocol asks of a clean stop.
pub fn run_stdio(settings: &Settings) -> Result<bool, String> {
    let (connection, io_threads) = Connection::stdio();
    let clean = serve(&connection, settings)?;
    drop(connection);
    io_threads.join().map_err(|e| e.to_string())?;
    Ok(clean)
}

/// Serves one client on `connection`: the handshake, then every message until `exit`
/// (`Ok(true)` when `shutdown` came first) or until the client hangs up (`Ok(false)`).
pub fn serve(connection: &Connection, settings: &Settings) -> Result<bool, String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let init = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": SOURCE, "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, init)
        .map_err(|e| e.to_string())?;
    let watch = params
        .pointer("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if watch {
        connection
            .sender
            .send(watch_files().into())
            .map_err(|_| "the client hung up".to_string())?;
    }
    let mut server = Server {
        settings: settings.clone(),
        docs: BTreeMap::new(),
        crates: HashMap::new(),
        pool: crate::pool(None),
    };
    let mut shut_down = false;
    let send = |m: Message| {
        connection
            .sender
            .send(m)
            .map_err(|_| "the client hung up".to_string())
    };
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) if shut_down => send(
                Response::new_err(
                    req.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shut down".into(),
                )
                .into(),
            )?,
            Message::Request(req) if req.method == Shutdown::METHOD => {
                shut_down = true;
                send(Response::new_ok(req.id, ()).into())?;
            }
            Message::Request(req) => send(server.request(req).into())?,
            Message::Notification(n) if n.method == Exit::METHOD => return Ok(shut_down),
            Message::Notification(_) if shut_down => {}
            Message::Notification(n) => {
                for out in server.notification(n) {
                    send(out.into())?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(false)
}

/// The request that asks the client to send `workspace/didChangeWatchedFiles` for the files
/// a crate's index is made of.
fn watch_files() -> Request {
    let watchers: Vec<serde_json::Value> = [
        "**/*.rs",
        "**/Cargo.toml",
        "**/*.cl",
        "**/clmigrate-lint.toml",
    ]
    .iter()
    .map(|g| serde_json::json!({ "globPattern": g }))
    .collect();
    Request::new(
        "clmigrate-lint/watch".to_string().into(),
        "client/registerCapability".into(),
        serde_json::json!({"registrations": [{
            "id": "clmigrate-lint/watch",
            "method": DidChangeWatchedFiles::METHOD,
            "registerOptions": {"watchers": watchers},
        }]}),
    )
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// An open document: the editor's text and what was found in it.
struct Document {
    version: i32,
    text: String,
    /// The file it is checked as.
    path: PathBuf,
    /// Its crate, a key of [`Server::crates`].
    krate: String,
    /// Its file index in the crate.
    id: Option<usize>,
    check: FileCheck,
}

struct Server {
    settings: Settings,
    /// By URI, in order: documents are checked again in that order.
    docs: BTreeMap<Url, Document>,
    /// The crates of the open documents, by [`CrateIndex::krate`].
    crates: HashMap<String, CrateIndex>,
    /// Threads with the stack the parser needs.
    pool: Option<rayon::ThreadPool>,
}

/// Runs `work` on `pool` (on this thread when there is none).
fn on<R: Send>(pool: &Option<rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

impl Server {
    fn request(&mut self, req: Request) -> Response {
        if req.method != CodeActionRequest::METHOD {
            return Response::new_err(
                req.id,
                ErrorCode::MethodNotFound as i32,
                format!("unknown request `{}`", req.method),
            );
        }
        match serde_json::from_value::<CodeActionParams>(req.params) {
            Ok(p) => Response::new_ok(req.id, self.code_actions(&p)),
            Err(e) => Response::new_err(req.id, ErrorCode::InvalidParams as i32, e.to_string()),
        }
    }

    /// What to send back for a notification: the diagnostics of the documents it touched
    /// (a change to one file of a crate can change what is found in the others).
    fn notification(&mut self, n: Notification) -> Vec<Notification> {
        self.notified(n).unwrap_or_default()
    }

    fn notified(&mut self, n: Notification) -> Option<Vec<Notification>> {
        let uri = match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p: DidOpenTextDocumentParams = serde_json::from_value(n.params).ok()?;
                let doc = p.text_document;
                let path = path_of(&doc.uri);
                let checked = matches!(doc.language_id.as_str(), "rust" | "c" | "cpp")
                    || path.extension().is_some_and(|x| x == "rs")
                    || crate::frontend::Lang::of(&path).is_some();
                if !checked {
                    return None;
                }
                self.docs.insert(
                    doc.uri.clone(),
                    Document {
                        version: doc.version,
                        text: doc.text,
                        path,
                        krate: String::new(),
                        id: None,
                        check: FileCheck::default(),
                    },
                );
                doc.uri
            }
            DidChangeTextDocument::METHOD => {
                let p: DidChangeTextDocumentParams = serde_json::from_value(n.params).ok()?;
                let doc = self.docs.get_mut(&p.text_document.uri)?;
                doc.version = p.text_document.version;
                for change in p.content_changes {
                    match change.range {
                        None => doc.text = change.text,
                        Some(r) => {
                            let start = byte_offset(&doc.text, r.start);
                            let end = byte_offset(&doc.text, r.end).max(start);
                            doc.text.replace_range(start..end, &change.text);
                        }
                    }
                }
                p.text_document.uri
            }
            DidSaveTextDocument::METHOD => {
                let p: DidSaveTextDocumentParams = serde_json::from_value(n.params).ok()?;
                let doc = self.docs.get_mut(&p.text_document.uri)?;
                if let Some(text) = p.text {
                    doc.text = text;
                }
                p.text_document.uri
            }
            DidCloseTextDocument::METHOD => {
                let p: DidCloseTextDocumentParams = serde_json::from_value(n.params).ok()?;
                let uri = p.text_document.uri;
                let doc = self.docs.remove(&uri)?;
                let mut out = vec![publish(uri, Vec::new(), None)];
                if self.docs.values().any(|d| d.krate == doc.krate) {
                    // The file is the disk's again for the others.
                    if let Some(c) = self.crates.get_mut(&doc.krate) {
                        on(&self.pool, || c.set_text(&doc.path, None));
                    }
                    out.extend(self.recheck(&doc.krate, None));
                } else {
                    self.crates.remove(&doc.krate);
                }
                return Some(out);
            }
            DidChangeWatchedFiles::METHOD => {
                let p: DidChangeWatchedFilesParams = serde_json::from_value(n.params).ok()?;
                return Some(self.files_changed(&p));
            }
            _ => return None,
        };
        let krate = self.take_text(&uri)?;
        Some(self.recheck(&krate, Some(&uri)))
    }

    /// Gives the crate of the document `uri` its text, loading the crate first when its
    /// index is not held or lacks the file; its crate.
    fn take_text(&mut self, uri: &Url) -> Option<String> {
        let doc = self.docs.get(uri)?;
        let (path, text) = (doc.path.clone(), doc.text.clone());
        let held = self.crates.values_mut().find(|c| c.contains(&path));
        let krate = match held {
            Some(c) => {
                on(&self.pool, || c.set_text(&path, Some(text)));
                c.krate.clone()
            }
            None => self.load(&path),
        };
        self.docs.get_mut(uri)?.krate = krate.clone();
        Some(krate)
    }

    /// Reads the crate of `path` from the disk, with the open documents' texts and the
    /// configuration found above it (as the command line finds it), and holds its index; its
    /// crate.
    fn load(&mut self, path: &Path) -> String {
        let open: Vec<(PathBuf, String)> = self
            .docs
            .values()
            .map(|d| (d.path.clone(), d.text.clone()))
            .collect();
        // The configuration a check of the file reads; the server's where it is invalid (the
        // command line reports that).
        let config = Config::discover(path).unwrap_or_else(|_| self.settings.config.clone());
        let index = on(&self.pool, || CrateIndex::load(path, &open, &config));
        let krate = index.krate.clone();
        self.crates.insert(krate.clone(), index);
        krate
    }

    /// Files changed on the disk (`workspace/didChangeWatchedFiles`): a changed file of a
    /// held crate is read again unless the editor holds it open (its text wins); a file
    /// created or deleted in a crate's package, or any other file changed there (a manifest,
    /// kernel sources, the configuration), has the crate read again.
    fn files_changed(&mut self, p: &DidChangeWatchedFilesParams) -> Vec<Notification> {
        let mut touched: BTreeSet<String> = BTreeSet::new();
        let mut reload: BTreeSet<String> = BTreeSet::new();
        for change in &p.changes {
            let Ok(path) = change.uri.to_file_path() else {
                continue;
            };
            let open = self.docs.values().any(|d| same_file(&d.path, &path));
            let source = path.extension().is_some_and(|x| x == "rs")
                || crate::frontend::Lang::of(&path).is_some();
            for (k, c) in self.crates.iter_mut() {
                let member = c.contains(&path);
                let inside = member || c.root().is_some_and(|r| path.starts_with(r));
                if member && change.typ == FileChangeType::CHANGED {
                    if !open {
                        on(&self.pool, || c.set_text(&path, None));
                        touched.insert(k.clone());
                    }
                } else if inside && !(source && change.typ == FileChangeType::CHANGED) {
                    reload.insert(k.clone());
                }
            }
        }
        for k in &reload {
            let doc = self.docs.values().find(|d| &d.krate == k);
            if let Some(path) = doc.map(|d| d.path.clone()) {
                self.load(&path);
            }
        }
        touched.extend(reload);
        touched.iter().flat_map(|k| self.recheck(k, None)).collect()
    }

    /// Checks again the open documents of `krate` (`first` first, then the others in
    /// order) and publishes their diagnostics.
    fn recheck(&mut self, krate: &str, first: Option<&Url>) -> Vec<Notification> {
        let Some(c) = self.crates.get(krate) else {
            return Vec::new();
        };
        let mut uris: Vec<Url> = self
            .docs
            .iter()
            .filter(|(u, d)| d.krate == krate && Some(*u) != first)
            .map(|(u, _)| u.clone())
            .collect();
        uris.splice(0..0, first.cloned());
        let mut out = Vec::new();
        for uri in uris {
            let Some(doc) = self.docs.get_mut(&uri) else {
                continue;
            };
            doc.id = c.id(&doc.path);
            doc.check = on(&self.pool, || c.check(&doc.path));
            let diagnostics = diagnostics(&uri, c, doc);
            out.push(publish(uri, diagnostics, Some(doc.version)));
        }
        out
    }

    /// A quick fix for each finding with an applicable fix whose construct meets `p.range`:
    /// its edits as `--fix` makes them (an import that only the replaced code used goes
    /// too); none for a fix that `--fix` would refuse.
    fn code_actions(&self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = &p.text_document.uri;
        let wanted = p.context.only.as_ref().is_none_or(|kinds| {
            let quickfix = CodeActionKind::QUICKFIX;
            let q = quickfix.as_str();
            kinds.iter().any(|k| {
                k.as_str().is_empty()
                    || q == k.as_str()
                    || q.starts_with(&format!("{}.", k.as_str()))
            })
        });
        let Some(doc) = self.docs.get(uri).filter(|_| wanted) else {
            return Vec::new();
        };
        let c = self.crates.get(&doc.krate);
        let Some(src) = c.zip(doc.id).and_then(|(c, id)| c.source(id)) else {
            return Vec::new();
        };
        doc.check
            .findings
            .iter()
            .filter_map(|f| {
                let fix = f.fix.as_ref()?;
                if fix.applicability == Applicability::DisplayOnly
                    || fix.edits.iter().any(|e| e.span.file != f.anchor.file)
                {
                    return None;
                }
                let meets = |s: Span| {
                    let r = range(src, s);
                    r.start <= p.range.end && p.range.start <= r.end
                };
                if !meets(f.anchor) && !meets(f.primary.span) {
                    return None;
                }
                let comment = f.code == crate::rules::unused_suppression::RULE.code;
                let made = on(&self.pool, || fix::fix_edits(src, fix, comment)).ok()?;
                if made.is_empty() {
                    return None;
                }
                let edits = made
                    .into_iter()
                    .map(|(start, end, new_text)| TextEdit {
                        range: Range::new(position(src, start), position(src, end)),
                        new_text,
                    })
                    .collect();
                Some(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("{}: {}", f.code, fix.message),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic(uri, c?, src, f)]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(uri.clone(), edits)])),
                        ..WorkspaceEdit::default()
                    }),
                    is_preferred: Some(fix.applicability == Applicability::Safe),
                    ..CodeAction::default()
                }))
            })
            .collect()
    }
}

/// Whether two paths name the same file.
fn same_file(a: &Path, b: &Path) -> bool {
    let c = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    a == b || c(a) == c(b)
}

fn publish(uri: Url, diagnostics: Vec<Diagnostic>, version: Option<i32>) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.into(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    )
}

/// The path a document is checked as: its file path, or the URI itself for an unsaved one.
fn path_of(uri: &Url) -> PathBuf {
    uri.to_file_path()
        .unwrap_or_else(|()| PathBuf::from(uri.as_str()))
}

/// Every finding and problem of an open document.
fn diagnostics(uri: &Url, c: &CrateIndex, doc: &Document) -> Vec<Diagnostic> {
    let src = doc.id.and_then(|id| c.source(id));
    let findings = src.into_iter().flat_map(|src| {
        doc.check
            .findings
            .iter()
            .map(move |f| diagnostic(uri, c, src, f))
    });
    let problems = doc.check.problems.iter().map(|p| Diagnostic {
        range: p
            .span
            .zip(src)
            .map_or_else(Range::default, |(s, src)| range(src, s)),
        severity: Some(if p.is_error() {
            DiagnosticSeverity::ERROR
        } else {
            DiagnosticSeverity::WARNING
        }),
        source: Some(SOURCE.into()),
        message: p.message.clone(),
        ..Diagnostic::default()
    });
    findings.chain(problems).collect()
}

/// The diagnostic of one finding in `src`, the document `uri`: its primary label's range,
/// the finding's message with the label, note and help after it, and the secondary labels
/// (in any file of the crate `c`) as related information.
fn diagnostic(uri: &Url, c: &CrateIndex, src: &SourceFile, f: &Finding) -> Diagnostic {
    let mut message = f.message.clone();
    for (prefix, text) in [
        ("", Some(&f.primary.message)),
        ("note: ", f.note.as_ref()),
        ("help: ", f.help.as_ref()),
    ] {
        if let Some(t) = text.filter(|t| !t.is_empty()) {
            message.push('\n');
            message.push_str(prefix);
            message.push_str(t);
        }
    }
    let related: Vec<DiagnosticRelatedInformation> = f
        .secondary
        .iter()
        .filter_map(|l| {
            let location = if l.span.file == f.primary.span.file {
                Location::new(uri.clone(), range(src, l.span))
            } else {
                let other = c.source(l.span.file)?;
                let at = Url::from_file_path(std::path::absolute(&other.path).ok()?).ok()?;
                Location::new(at, range(other, l.span))
            };
            Some(DiagnosticRelatedInformation {
                location,
                message: l.message.clone(),
            })
        })
        .collect();
    Diagnostic {
        range: range(src, f.primary.span),
        severity: Some(match f.level {
            Level::Error => DiagnosticSeverity::ERROR,
            Level::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(f.code.into())),
        code_description: rule_doc(f),
        source: Some(SOURCE.into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// A link to the rule's spec, when the package's `rules/` folder is still where it was built.
fn rule_doc(f: &Finding) -> Option<CodeDescription> {
    let doc = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rules")
        .join(format!("{}-{}.md", f.code, f.name));
    doc.is_file()
        .then(|| Url::from_file_path(&doc).ok())
        .flatten()
        .map(|href| CodeDescription { href })
}

fn range(src: &SourceFile, s: Span) -> Range {
    Range::new(position(src, s.start), position(src, s.end))
}

/// The protocol position of a byte offset: 0-based line, column in UTF-16 code units.
fn position(src: &SourceFile, byte: usize) -> Position {
    let byte = byte.min(src.text.len());
    let (line, _) = src.line_col(byte);
    let start = src.offset(line, 0);
    let character = src
        .text
        .get(start..byte)
        .map_or(0, |s| s.encode_utf16().count());
    Position::new(to_u32(line - 1), to_u32(character))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The byte offset of a protocol position in `text`, clamped to its line and to the text.
fn byte_offset(text: &str, p: Position) -> usize {
    let line_start = match p.line {
        0 => 0,
        n => match text.match_indices('\n').nth(n as usize - 1) {
            Some((i, _)) => i + 1,
            None => return text.len(),
        },
    };
    let rest = &text[line_start..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= p.character as usize {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    line_start + line.len()
}
