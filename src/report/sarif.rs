//! `--format sarif`: a SARIF 2.1.0 log for code scanning (GitHub's `upload-sarif`, IDE
//! viewers), built from typed structures that mirror the parts of the schema it uses.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ir::Span;
use crate::rules::{Applicability, Finding, Level, Rule, RULES};
use crate::Report;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of the fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "clmigrateLint/v1";
const SRCROOT: &str = "%SRCROOT%";

#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub invocations: Vec<Invocation>,
    pub original_uri_base_ids: BTreeMap<String, ArtifactLocation>,
    pub column_kind: &'static str,
    pub results: Vec<SarifResult>,
}

#[derive(Serialize)]
pub struct Tool {
    pub driver: ToolComponent,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolComponent {
    pub name: &'static str,
    pub version: &'static str,
    pub semantic_version: &'static str,
    pub rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportingDescriptor {
    pub id: &'static str,
    pub name: &'static str,
    pub short_description: MultiformatMessageString,
    pub full_description: MultiformatMessageString,
    pub help: MultiformatMessageString,
    pub default_configuration: ReportingConfiguration,
}

#[derive(Serialize)]
pub struct MultiformatMessageString {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
}

#[derive(Serialize)]
pub struct ReportingConfiguration {
    pub level: &'static str,
}

#[derive(Serialize)]
pub struct Message {
    pub text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: &'static str,
    pub rule_index: usize,
    pub level: &'static str,
    pub message: Message,
    pub locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<Location>,
    pub partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub code_flows: Vec<CodeFlow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<usize>,
    pub physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<ArtifactContent>,
}

#[derive(Serialize)]
pub struct ArtifactContent {
    pub text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeFlow {
    pub message: Message,
    pub thread_flows: Vec<ThreadFlow>,
}

#[derive(Serialize)]
pub struct ThreadFlow {
    pub locations: Vec<ThreadFlowLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadFlowLocation {
    pub location: Location,
    pub execution_order: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    pub description: Message,
    pub artifact_changes: Vec<ArtifactChange>,
    pub properties: FixProperties,
}

#[derive(Serialize)]
pub struct FixProperties {
    /// `Safe`, `MaybeIncorrect` or `DisplayOnly`, as `--fix` reads it.
    pub applicability: Applicability,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactChange {
    pub artifact_location: ArtifactLocation,
    pub replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    pub deleted_region: Region,
    pub inserted_content: ArtifactContent,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    pub execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
pub struct Notification {
    pub level: &'static str,
    pub message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
    }
}

/// The first paragraph of a rule spec's "What it does", on one line.
fn what_it_does(doc: &str) -> String {
    doc.split_once("## What it does")
        .map(|(_, rest)| rest.trim_start())
        .and_then(|rest| rest.split("\n\n").next())
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn descriptor(r: &Rule) -> ReportingDescriptor {
    ReportingDescriptor {
        id: r.code,
        name: r.name,
        short_description: MultiformatMessageString {
            text: r.summary.to_string(),
            markdown: None,
        },
        full_description: MultiformatMessageString {
            text: what_it_does(r.doc),
            markdown: None,
        },
        help: MultiformatMessageString {
            text: r.doc.to_string(),
            markdown: Some(r.doc.to_string()),
        },
        default_configuration: ReportingConfiguration {
            level: level(r.level),
        },
    }
}

/// Builds the locations of one report, paths relative to the source root.
struct Locator<'a> {
    report: &'a Report,
    root: &'a std::path::Path,
}

impl Locator<'_> {
    fn artifact(&self, file: usize) -> ArtifactLocation {
        let f = &self.report.files[file];
        let rel = f.relative_to(self.root);
        let inside = std::path::absolute(&f.path).is_ok_and(|p| p.starts_with(self.root));
        ArtifactLocation {
            uri: uri_escape(&rel),
            uri_base_id: inside.then_some(SRCROOT),
        }
    }

    fn region(&self, s: Span, snippet: bool) -> Region {
        let f = &self.report.files[s.file];
        let (start_line, start_column) = f.line_col(s.start);
        let (end_line, end_column) = f.line_col(s.end);
        Region {
            start_line,
            start_column,
            end_line,
            end_column,
            snippet: snippet.then(|| ArtifactContent {
                text: f.slice(s).to_string(),
            }),
        }
    }

    fn location(&self, s: Span, id: Option<usize>, message: Option<&str>) -> Location {
        Location {
            id,
            physical_location: PhysicalLocation {
                artifact_location: self.artifact(s.file),
                region: Some(self.region(s, true)),
            },
            message: message.map(|m| Message {
                text: m.to_string(),
            }),
        }
    }
}

/// Percent-encodes what may not stand in a URI reference's path.
fn uri_escape(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn result(loc: &Locator, f: &Finding, fingerprint: String) -> SarifResult {
    let rule_index = RULES.iter().position(|r| r.code == f.code).unwrap_or(0);
    let mut message = f.message.clone();
    if let Some(h) = &f.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    let related: Vec<Location> = f
        .secondary
        .iter()
        .enumerate()
        .map(|(i, l)| loc.location(l.span, Some(i + 1), Some(&l.message)))
        .collect();
    // CLM003's first secondary label is the producer, the primary the consumer that does not
    // wait, or the call that leads to it; the consumer in that call comes after.
    let code_flows = match (f.code, f.secondary.first()) {
        ("CLM003", Some(producer)) => vec![CodeFlow {
            message: Message {
                text: "the producer, then the consumer that does not wait for it".into(),
            },
            thread_flows: vec![ThreadFlow {
                locations: [producer, &f.primary]
                    .into_iter()
                    .chain(&f.secondary[1..])
                    .enumerate()
                    .map(|(i, l)| ThreadFlowLocation {
                        location: loc.location(l.span, None, Some(&l.message)),
                        execution_order: i + 1,
                    })
                    .collect(),
            }],
        }],
        _ => Vec::new(),
    };
    let fixes = f
        .fix
        .iter()
        .map(|fix| {
            let mut by_file: BTreeMap<usize, Vec<Replacement>> = BTreeMap::new();
            for e in &fix.edits {
                by_file.entry(e.span.file).or_default().push(Replacement {
                    deleted_region: loc.region(e.span, false),
                    inserted_content: ArtifactContent {
                        text: e.replacement.clone(),
                    },
                });
            }
            Fix {
                description: Message {
                    text: fix.message.clone(),
                },
                artifact_changes: by_file
                    .into_iter()
                    .map(|(file, replacements)| ArtifactChange {
                        artifact_location: loc.artifact(file),
                        replacements,
                    })
                    .collect(),
                properties: FixProperties {
                    applicability: fix.applicability,
                },
            }
        })
        .collect();
    SarifResult {
        rule_id: f.code,
        rule_index,
        level: level(f.level),
        message: Message { text: message },
        locations: vec![loc.location(f.primary.span, None, Some(&f.primary.message))],
        related_locations: related,
        partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, fingerprint)]),
        code_flows,
        fixes,
    }
}

/// The SARIF log of a report; paths are relative to `root`, which is `%SRCROOT%`.
pub fn log(report: &Report, root: &std::path::Path) -> Log {
    let loc = Locator { report, root };
    // Identical constructs in one file share a fingerprint; the occurrence tells them apart.
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let results = report
        .findings
        .iter()
        .zip(crate::baseline::fingerprints(report, root))
        .map(|(f, (fp, path))| {
            let n = seen.entry((fp.clone(), path)).or_insert(0);
            *n += 1;
            result(&loc, f, format!("{fp}:{n}"))
        })
        .collect();
    let notifications = report
        .problems
        .iter()
        .map(|p| Notification {
            level: if p.is_error() { "error" } else { "warning" },
            message: Message {
                text: format!("{}: {}", p.path.display(), p.message),
            },
            locations: p
                .span
                .filter(|s| !report.files[s.file].text.is_empty())
                .map(|s| vec![loc.location(s, None, None)])
                .unwrap_or_default(),
        })
        .collect();
    let mut root_uri = format!("file://{}", uri_escape(&root.to_string_lossy()));
    if !root_uri.ends_with('/') {
        root_uri.push('/');
    }
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: ToolComponent {
                    name: "clmigrate-lint",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules: RULES.iter().map(descriptor).collect(),
                },
            },
            invocations: vec![Invocation {
                execution_successful: !report.problems.iter().any(|p| p.internal),
                tool_execution_notifications: notifications,
            }],
            original_uri_base_ids: BTreeMap::from([(
                SRCROOT.to_string(),
                ArtifactLocation {
                    uri: root_uri,
                    uri_base_id: None,
                },
            )]),
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
}

/// The SARIF log as pretty-printed JSON.
pub fn render(report: &Report) -> String {
    let mut s =
        serde_json::to_string_pretty(&log(report, &crate::source::src_root())).unwrap_or_default();
    s.push('\n');
    s
}
