//! The machine-readable formats as their consumers read them: cargo's JSON through
//! `cargo_metadata`, SARIF against the official 2.1.0 schema, GitHub workflow commands and
//! the short format against committed snapshots (`BLESS=1` rewrites them).

use std::process::{Command, Output};

use cargo_metadata::diagnostic::{Applicability, DiagnosticLevel};
use cargo_metadata::Message;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(run(args).stdout).expect("UTF-8 output")
}

const SEED: &str = "fixtures/seed/buggy.rs";

#[test]
fn json_is_read_by_cargo_metadata() {
    let out = run(&["--message-format", "json", SEED]);
    assert_eq!(out.status.code(), Some(1));
    let messages: Vec<Message> = Message::parse_stream(&out.stdout[..])
        .collect::<Result<_, _>>()
        .expect("every line parses");
    let mut codes = Vec::new();
    let mut finished = None;
    for m in &messages {
        match m {
            Message::CompilerMessage(cm) => {
                let d = &cm.message;
                let code = d.code.as_ref().expect("a finding has a code");
                assert!(code.code.starts_with("CLM"), "{code:?}");
                assert!(code
                    .explanation
                    .as_deref()
                    .is_some_and(|e| e.starts_with(&format!("# {}", code.code))));
                assert!(matches!(
                    d.level,
                    DiagnosticLevel::Error | DiagnosticLevel::Warning
                ));
                assert_eq!(d.spans.iter().filter(|s| s.is_primary).count(), 1);
                for s in &d.spans {
                    assert_eq!(s.file_name, SEED);
                    assert!(s.line_start >= 1 && s.line_end >= s.line_start);
                    assert!(!s.text.is_empty());
                }
                assert!(d.rendered.as_deref().unwrap().contains(&d.message));
                codes.push(code.code.clone());
                // Fixes are `help` children whose spans carry the replacement.
                let suggestions: Vec<_> = d
                    .children
                    .iter()
                    .flat_map(|c| &c.spans)
                    .filter(|s| s.suggested_replacement.is_some())
                    .collect();
                let want = match code.code.as_str() {
                    "CLM002" => Some(("0", Applicability::MachineApplicable)),
                    "CLM001" => Some(("&common_buf", Applicability::MaybeIncorrect)),
                    _ => None,
                };
                match want {
                    Some((text, applicability)) => {
                        assert_eq!(suggestions.len(), 1, "{d:?}");
                        assert_eq!(suggestions[0].suggested_replacement.as_deref(), Some(text));
                        assert_eq!(suggestions[0].suggestion_applicability, Some(applicability));
                    }
                    None => assert!(suggestions.is_empty(), "{d:?}"),
                }
            }
            Message::BuildFinished(b) => finished = Some(b.success),
            other => panic!("unexpected message {other:?}"),
        }
    }
    codes.sort();
    assert_eq!(
        codes,
        ["CLM001", "CLM002", "CLM002", "CLM003", "CLM003", "CLM003", "CLM004"]
    );
    assert_eq!(finished, Some(false));
}

#[test]
fn json_reports_an_unparsable_file_as_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.rs");
    std::fs::write(&broken, "fn broken( { queue.enqueue_task(").unwrap();
    let out = run(&["--format", "json", broken.to_str().unwrap()]);
    let messages: Vec<Message> = Message::parse_stream(&out.stdout[..])
        .collect::<Result<_, _>>()
        .unwrap();
    let problems: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::CompilerMessage(cm) => Some(&cm.message),
            _ => None,
        })
        .collect();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].level, DiagnosticLevel::Error);
    // CI fails on it, as on an error finding.
    assert_eq!(out.status.code(), Some(1));
    assert!(problems[0].message.contains("could not parse"));
    assert_eq!(problems[0].spans.len(), 1);
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn valid(v: &jsonschema::Validator, log: &Value) {
    let errors: Vec<String> = v
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn sarif_is_valid_and_complete() {
    let v = sarif_validator();
    let out = run(&["--format", "sarif", SEED]);
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    valid(&v, &log);
    let run0 = &log["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), clmigrate_lint::rules::RULES.len());
    for r in rules {
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(!r[key]["text"].as_str().unwrap().is_empty(), "{r}");
        }
        assert!(r["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("## Why is this bad?"));
        assert!(matches!(
            r["defaultConfiguration"]["level"].as_str(),
            Some("error" | "warning")
        ));
    }
    assert!(run0["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap()
        .ends_with('/'));
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), 7);
    for r in results {
        let rule = &rules[r["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], SEED);
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(r["partialFingerprints"]["clmigrateLint/v1"]
            .as_str()
            .is_some_and(|f| f.len() > 16));
        // Secondary labels are related locations; CLM001 has none.
        let related = r["relatedLocations"].as_array().map_or(0, Vec::len);
        assert_eq!(related == 0, r["ruleId"] == "CLM001", "{r}");
    }
    // CLM003: a thread flow from the producer (the secondary label) to the consumer.
    let clm003: Vec<&Value> = results.iter().filter(|r| r["ruleId"] == "CLM003").collect();
    assert_eq!(clm003.len(), 3);
    for r in clm003 {
        let flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
            .as_array()
            .unwrap();
        assert_eq!(flow.len(), 2);
        assert_eq!(
            flow[0]["location"]["physicalLocation"]["region"],
            r["relatedLocations"][0]["physicalLocation"]["region"]
        );
        assert_eq!(
            flow[1]["location"]["physicalLocation"]["region"],
            r["locations"][0]["physicalLocation"]["region"]
        );
        assert!(flow[0]["location"]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("written here"));
    }
    // CLM002's safe fix travels as a SARIF fix.
    let clm002 = results.iter().find(|r| r["ruleId"] == "CLM002").unwrap();
    let fix = &clm002["fixes"][0];
    assert_eq!(fix["properties"]["applicability"], "Safe");
    assert_eq!(
        fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"],
        "0"
    );
}

/// A finding on the caller's line: the code flow goes producer → call → the helper's read.
#[test]
fn sarif_flow_of_a_finding_on_the_callers_line() {
    let out = run(&["--format", "sarif", "fixtures/host-shapes/solver_struct.rs"]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    valid(&sarif_validator(), &log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 66)
        .expect("the finding on `fetch(q1, &buf)?`");
    let flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let line = |l: &Value| l["location"]["physicalLocation"]["region"]["startLine"].clone();
    let lines: Vec<Value> = flow.iter().map(line).collect();
    assert_eq!(lines, [65, 66, 48].map(Value::from), "{r}");
    assert_eq!(
        flow[2]["location"]["message"]["text"],
        "read here on `q1`, in `fetch`"
    );
}

/// A finding on the line of a closure's call: the code flow goes from the first call's
/// launch to the call, then into the closure.
#[test]
fn sarif_flow_of_a_finding_on_a_closures_call_line() {
    let out = run(&["--format", "sarif", "fixtures/host-shapes/closure_calls.rs"]);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    valid(&sarif_validator(), &log);
    let results = log["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 31)
        .expect("the finding on `launch(q1)?`");
    let flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
        .as_array()
        .unwrap();
    let line = |l: &Value| l["location"]["physicalLocation"]["region"]["startLine"].clone();
    let lines: Vec<Value> = flow.iter().map(line).collect();
    assert_eq!(lines, [28, 31, 28].map(Value::from), "{r}");
    assert_eq!(
        flow[2]["location"]["message"]["text"],
        "written here on `q1`, in `launch`"
    );
}

#[test]
fn sarif_of_problems_and_of_every_fixture_is_valid() {
    let v = sarif_validator();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.rs");
    std::fs::write(&broken, "fn broken( { queue.enqueue_task(").unwrap();
    let log: Value =
        serde_json::from_str(&stdout(&["--format", "sarif", broken.to_str().unwrap()])).unwrap();
    valid(&v, &log);
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes.as_array().unwrap().len(), 1, "{log}");
    let all: Value = serde_json::from_str(&stdout(&["--format", "sarif", "fixtures"])).unwrap();
    valid(&v, &all);
    assert!(all["runs"][0]["results"].as_array().unwrap().len() > 6);
}

/// `tests/data/<name>` holds the expected output; `BLESS=1` rewrites it.
fn snapshot(name: &str, got: &str) {
    let path = format!("tests/data/{name}");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(want, got, "{path} differs; run with BLESS=1 to accept");
}

#[test]
fn github_and_short_match_snapshots() {
    let github = stdout(&["--format", "github", SEED]);
    snapshot("seed.github", &github);
    assert!(github
        .lines()
        .all(|l| l.starts_with("::error file=fixtures/seed/buggy.rs,")
            || l.starts_with("::warning file=fixtures/seed/buggy.rs,")));
    let short = stdout(&["--format", "short", SEED]);
    snapshot("seed.short", &short);
    assert_eq!(stdout(&["--message-format", "short", SEED]), short);
    // The two spellings of the format are one option.
    assert_eq!(
        run(&["--format", "short", "--message-format", "json", SEED])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn rules_as_json() {
    let rules: Vec<Value> = serde_json::from_str(&stdout(&["rules", "--format", "json"])).unwrap();
    let codes: Vec<&str> = rules.iter().map(|r| r["code"].as_str().unwrap()).collect();
    let want: Vec<&str> = clmigrate_lint::rules::RULES
        .iter()
        .map(|r| r.code)
        .collect();
    assert_eq!(codes, want);
    assert!(codes.contains(&"CLM900"));
    for r in &rules {
        assert!(r["doc"].as_str().unwrap().starts_with("# CLM"));
        assert!(matches!(r["level"].as_str(), Some("error" | "warning")));
    }
}
