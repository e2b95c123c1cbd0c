//! `cargo clmigrate-lint lsp`: a language server over standard input and output.
//!
//! It checks each open Rust document's text as the editor holds it (not the file on disk)
//! when it is opened, changed and saved, publishes the findings as diagnostics, clears them
//! when the document is closed, and offers each applicable fix as a quick fix. Positions are
//! counted in UTF-16 code units, the protocol's default encoding.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, Request as _, Shutdown};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeDescription, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, Location, NumberOrString, Position,
    PublishDiagnosticsParams, Range, SaveOptions, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Url,
    WorkspaceEdit,
};

use crate::ir::Span;
use crate::rules::{Applicability, Finding, Level};
use crate::source::SourceFile;
use crate::{check_source, Report, Settings};

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
    let (id, _params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let init = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": {"name": SOURCE, "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, init)
        .map_err(|e| e.to_string())?;
    let mut server = Server {
        settings: settings.clone(),
        docs: HashMap::new(),
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
                if let Some(out) = server.notification(n) {
                    send(out.into())?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(false)
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

/// An open document: the editor's text and the report on it.
struct Document {
    version: i32,
    text: String,
    report: Report,
}

struct Server {
    settings: Settings,
    docs: HashMap<Url, Document>,
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

    /// What to send back for a notification: the diagnostics of the document it touched.
    fn notification(&mut self, n: Notification) -> Option<Notification> {
        let uri = match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let p: DidOpenTextDocumentParams = serde_json::from_value(n.params).ok()?;
                let doc = p.text_document;
                let path = std::path::Path::new(doc.uri.path());
                let checked = matches!(doc.language_id.as_str(), "rust" | "c" | "cpp")
                    || path.extension().is_some_and(|x| x == "rs")
                    || crate::frontend::Lang::of(path).is_some();
                if !checked {
                    return None;
                }
                self.docs.insert(
                    doc.uri.clone(),
                    Document {
                        version: doc.version,
                        text: doc.text,
                        report: Report::default(),
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
                self.docs.remove(&p.text_document.uri)?;
                return Some(publish(p.text_document.uri, Vec::new(), None));
            }
            _ => return None,
        };
        let doc = self.docs.get_mut(&uri)?;
        doc.report = check_source(&path_of(&uri), &doc.text, &self.settings);
        let diagnostics = diagnostics(&uri, &doc.report);
        Some(publish(uri, diagnostics, Some(doc.version)))
    }

    /// A quick fix for each finding with an applicable fix whose construct meets `p.range`.
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
        let Some(src) = doc.report.files.first() else {
            return Vec::new();
        };
        doc.report
            .findings
            .iter()
            .filter_map(|f| {
                let fix = f.fix.as_ref()?;
                if fix.applicability == Applicability::DisplayOnly {
                    return None;
                }
                let meets = |s: Span| {
                    let r = range(src, s);
                    r.start <= p.range.end && p.range.start <= r.end
                };
                if !meets(f.anchor) && !meets(f.primary.span) {
                    return None;
                }
                let edits = fix
                    .edits
                    .iter()
                    .map(|e| TextEdit {
                        range: range(src, e.span),
                        new_text: e.replacement.clone(),
                    })
                    .collect();
                Some(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("{}: {}", f.code, fix.message),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic(uri, src, f)]),
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

/// Every finding and problem of a one-file report.
fn diagnostics(uri: &Url, report: &Report) -> Vec<Diagnostic> {
    let Some(src) = report.files.first() else {
        return Vec::new();
    };
    let findings = report.findings.iter().map(|f| diagnostic(uri, src, f));
    let problems = report.problems.iter().map(|p| Diagnostic {
        range: p.span.map_or_else(Range::default, |s| range(src, s)),
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

/// The diagnostic of one finding: its primary label's range, the finding's message with the
/// label, note and help after it, and the secondary labels as related information.
fn diagnostic(uri: &Url, src: &SourceFile, f: &Finding) -> Diagnostic {
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
        .filter(|l| l.span.file == f.primary.span.file)
        .map(|l| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range(src, l.span)),
            message: l.message.clone(),
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
