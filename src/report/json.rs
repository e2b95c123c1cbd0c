//! `--message-format json`: one cargo `compiler-message` object per line, with a rustc
//! diagnostic inside, then `build-finished`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::ir::Span;
use crate::report::human::{Renderer, MAX_SHOWN_LINE};
use crate::rules::{Applicability, Finding};
use crate::source::{read_regular, SourceFile, MAX_FILE_BYTES};
use crate::targets::PackageTargets;
use crate::Report;

/// The package a file belongs to: the nearest `Cargo.toml` above it.
struct Package {
    id: String,
    manifest: String,
    edition: String,
    /// `None` for a manifest without `[package]` (a virtual workspace).
    targets: Option<PackageTargets>,
}

/// `edition.workspace = true`: the edition of the nearest workspace above `dir`.
fn workspace_edition(dir: &Path) -> Option<String> {
    dir.ancestors().skip(1).find_map(|d| {
        let text = read_regular(&d.join("Cargo.toml"), MAX_FILE_BYTES).ok()?;
        let t: toml::Table = String::from_utf8(text).ok()?.parse().ok()?;
        let edition = t.get("workspace")?.get("package")?.get("edition")?;
        Some(edition.as_str()?.to_string())
    })
}

fn package_of<'c>(
    file: &Path,
    cache: &'c mut HashMap<PathBuf, Option<Package>>,
) -> Option<&'c Package> {
    let abs = std::fs::canonicalize(file).ok()?;
    let mut dir = abs.parent();
    let found = loop {
        let d = dir?;
        if cache.contains_key(d) {
            break d.to_path_buf();
        }
        let manifest = d.join("Cargo.toml");
        let text = read_regular(&manifest, MAX_FILE_BYTES).map(String::from_utf8);
        if let Ok(Ok(text)) = text {
            let p = text.parse::<toml::Table>().ok().map(|t| {
                let pkg = t.get("package").and_then(|p| p.as_table());
                let get = |k: &str| {
                    pkg.and_then(|p| p.get(k))
                        .and_then(|v| v.as_str())
                        .map(str::to_string)
                };
                let name = get("name").unwrap_or_else(|| "workspace".into());
                let version = get("version").unwrap_or_else(|| "0.0.0".into());
                let inherited = pkg
                    .and_then(|p| p.get("edition"))
                    .and_then(|e| e.get("workspace"))
                    .and_then(|w| w.as_bool())
                    == Some(true);
                let edition = if inherited {
                    workspace_edition(d)
                } else {
                    get("edition")
                };
                Package {
                    id: format!("path+file://{}#{name}@{version}", d.display()),
                    manifest: manifest.display().to_string(),
                    edition: edition.unwrap_or_else(|| "2015".into()),
                    targets: pkg.is_some().then(|| PackageTargets::new(d, &t)),
                }
            });
            cache.insert(d.to_path_buf(), p);
            break d.to_path_buf();
        }
        dir = d.parent();
    };
    cache.get(&found)?.as_ref()
}

/// The `package_id`, `manifest_path` and `target` of a message about `file`: the target
/// whose root is the file or reaches it through `mod`; a file no target reaches (or outside
/// any package) has the kind `unknown`, named after the file.
fn origin(file: &Path, cache: &mut HashMap<PathBuf, Option<Package>>) -> (String, String, Value) {
    let pkg = package_of(file, cache);
    let target = pkg.and_then(|p| p.targets.as_ref()?.of(file).map(|t| (p, t)));
    let target = match target {
        Some((p, t)) => json!({
            "kind": t.kind,
            "crate_types": t.crate_types,
            "name": t.name,
            "src_path": t.src_path.display().to_string(),
            "edition": p.edition,
            "doc": t.doc,
            "doctest": t.doctest,
            "test": t.test,
        }),
        None => json!({
            "kind": ["unknown"],
            "crate_types": ["unknown"],
            "name": file.file_stem().map(|s| s.to_string_lossy()).unwrap_or_default(),
            "src_path": file.display().to_string(),
            "edition": pkg.map_or("2021", |p| p.edition.as_str()),
            "doc": false,
            "doctest": false,
            "test": false,
        }),
    };
    match pkg {
        Some(p) => (p.id.clone(), p.manifest.clone(), target),
        None => (
            format!("path+file://{}#unknown@0.0.0", file.display()),
            String::new(),
            target,
        ),
    }
}

/// The source lines a span's `text` gives at most.
const MAX_SPAN_LINES: usize = 100;

fn span_json(
    file: &SourceFile,
    s: Span,
    primary: bool,
    label: Option<&str>,
    suggestion: Option<(&str, Applicability)>,
) -> Value {
    let (line_start, column_start) = file.line_col(s.start);
    let (line_end, column_end) = file.line_col(s.end);
    // As in the human output, a line too long to show is left out (each finding on it would
    // repeat it), and so are the lines of a long span past the first ones.
    let lines: Vec<Value> = (line_start..=line_end)
        .take(MAX_SPAN_LINES)
        .filter_map(|l| {
            let text = file.line_text(l);
            if text.len() > MAX_SHOWN_LINE {
                return None;
            }
            let hs = if l == line_start { column_start } else { 1 };
            let he = if l == line_end {
                column_end
            } else {
                text.chars().count() + 1
            };
            Some(json!({"text": text, "highlight_start": hs, "highlight_end": he}))
        })
        .collect();
    json!({
        "file_name": file.display,
        "byte_start": s.start,
        "byte_end": s.end,
        "line_start": line_start,
        "line_end": line_end,
        "column_start": column_start,
        "column_end": column_end,
        "is_primary": primary,
        "text": lines,
        "label": label,
        "suggested_replacement": suggestion.map(|(r, _)| r),
        "suggestion_applicability": suggestion.map(|(_, a)| match a {
            Applicability::Safe => "MachineApplicable",
            Applicability::MaybeIncorrect => "MaybeIncorrect",
            // A concrete replacement that is not known to be right (rustc's
            // `HasPlaceholders` is for replacements with `...` in them).
            Applicability::DisplayOnly => "Unspecified",
        }),
        "expansion": null,
    })
}

fn child(level: &str, message: &str, spans: Vec<Value>) -> Value {
    json!({"message": message, "code": null, "level": level, "spans": spans, "children": [], "rendered": null})
}

/// The rustc diagnostic of one finding.
pub fn diagnostic(report: &Report, rendered: &Renderer, f: &Finding) -> Value {
    let file = &report.files[f.primary.span.file];
    let mut spans = vec![span_json(
        file,
        f.primary.span,
        true,
        Some(&f.primary.message),
        None,
    )];
    for l in &f.secondary {
        spans.push(span_json(
            &report.files[l.span.file],
            l.span,
            false,
            Some(&l.message),
            None,
        ));
    }
    let mut children = Vec::new();
    if let Some(n) = &f.note {
        children.push(child("note", n, vec![]));
    }
    if let Some(h) = &f.help {
        children.push(child("help", h, vec![]));
    }
    if let Some(fix) = &f.fix {
        let spans = fix
            .edits
            .iter()
            .map(|e| {
                span_json(
                    &report.files[e.span.file],
                    e.span,
                    true,
                    None,
                    Some((&e.replacement, fix.applicability)),
                )
            })
            .collect();
        children.push(child("help", &fix.message, spans));
    }
    json!({
        "$message_type": "diagnostic",
        "message": f.message,
        // rustc's `explanation` is the long text `rustc --explain` prints.
        "code": {"code": f.code, "explanation": crate::rules::find(f.code).map(|r| r.doc)},
        "level": f.level.as_str(),
        "spans": spans,
        "children": children,
        "rendered": rendered.render(f),
    })
}

/// Every line of the JSON output.
pub fn render(report: &Report) -> String {
    let mut cache = HashMap::new();
    let mut out = String::new();
    let rendered = Renderer::new(report);
    // Many findings share a file: its origin is looked up once.
    let mut origins: HashMap<usize, (String, String, Value)> = HashMap::new();
    for f in &report.findings {
        let file = f.primary.span.file;
        let (id, manifest, target) = origins
            .entry(file)
            .or_insert_with(|| origin(&report.files[file].path, &mut cache))
            .clone();
        let msg = json!({
            "reason": "compiler-message",
            "package_id": id,
            "manifest_path": manifest,
            "target": target,
            "message": diagnostic(report, &rendered, f),
        });
        out.push_str(&msg.to_string());
        out.push('\n');
    }
    for p in &report.problems {
        let spans: Vec<Value> = p
            .span
            .filter(|s| !report.files[s.file].text.is_empty())
            .map(|s| vec![span_json(&report.files[s.file], s, true, None, None)])
            .unwrap_or_default();
        let text = format!("{}: {}", p.path.display(), p.message);
        let (id, manifest, target) = origin(&p.path, &mut cache);
        let msg = json!({
            "reason": "compiler-message",
            "package_id": id,
            "manifest_path": manifest,
            "target": target,
            "message": {
                "$message_type": "diagnostic",
                "message": text,
                "code": null,
                "level": if p.internal {
                    "error: internal compiler error"
                } else if p.error {
                    "error"
                } else {
                    "warning"
                },
                "spans": spans,
                "children": [],
                "rendered": format!("warning: {text}\n"),
            },
        });
        out.push_str(&msg.to_string());
        out.push('\n');
    }
    let success = !report.has_errors();
    out.push_str(&json!({"reason": "build-finished", "success": success}).to_string());
    out.push('\n');
    out
}
