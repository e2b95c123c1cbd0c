//! Configuration: per-rule levels and excluded paths.
//!
//! Looked up from the first checked path upwards. In each directory, `clmigrate-lint.toml`
//! wins over `Cargo.toml`; in a `Cargo.toml`, `[package.metadata.clmigrate-lint]` wins over
//! `[workspace.metadata.clmigrate-lint]`; a `Cargo.toml` with neither table does not stop
//! the search, so a workspace member without its own table uses the workspace's. The first
//! table found is the whole configuration (tables are not merged). `--config FILE` names the
//! file instead.
//!
//! ```toml
//! exclude = ["generated/**", "legacy.rs"]   # globs, relative to the file's directory
//!
//! [levels]                   # by code or name: "allow", "warn" or "deny"
//! CLM002 = "deny"
//! duplicate-shared-buffer-init = "allow"
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::rules::{self, Level, Rule};

/// What the configuration says about a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleLevel {
    /// Not reported.
    Allow,
    Warn,
    Deny,
}

/// A configuration that could not be used: the file, the key and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub file: String,
    /// The dotted key, empty when the file as a whole is wrong.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.key, self.message)
        }
    }
}

/// The configuration of a run; the default enables every rule at its own level.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file it came from, as shown in messages.
    pub source: Option<String>,
    /// The directory `exclude` globs are relative to.
    root: PathBuf,
    levels: HashMap<&'static str, RuleLevel>,
    exclude: GlobSet,
    /// The `exclude` globs without a `/`, also matched against file and directory names.
    exclude_names: GlobSet,
}

const TABLE: &str = "clmigrate-lint";
const FILE: &str = "clmigrate-lint.toml";

impl Config {
    /// The configuration for a run over `start` (a file or directory), searched upwards.
    pub fn discover(start: &Path) -> Result<Config, ConfigError> {
        let abs = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        let first = if abs.is_dir() {
            Some(abs.as_path())
        } else {
            abs.parent()
        };
        let mut dir = first;
        while let Some(d) = dir {
            let own = d.join(FILE);
            if own.is_file() {
                return Config::load(&own);
            }
            let manifest = d.join("Cargo.toml");
            if manifest.is_file() {
                let shown = shown(&manifest);
                let table = read_toml(&manifest, &shown)?;
                for section in ["package", "workspace"] {
                    if let Some(t) = table
                        .get(section)
                        .and_then(|s| s.get("metadata"))
                        .and_then(|m| m.get(TABLE))
                    {
                        let prefix = format!("{section}.metadata.{TABLE}");
                        return Config::from_value(t, &prefix, shown, d);
                    }
                }
            }
            dir = d.parent();
        }
        Ok(Config::default())
    }

    /// Reads `clmigrate-lint.toml` (or any file in its format).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = shown(path);
        let table = read_toml(path, &shown)?;
        let root = std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        Config::from_value(&toml::Value::Table(table), "", shown, &root)
    }

    fn from_value(
        v: &toml::Value,
        prefix: &str,
        file: String,
        root: &Path,
    ) -> Result<Config, ConfigError> {
        let err = |key: String, message: String| ConfigError {
            file: file.clone(),
            key,
            message,
        };
        let key = |k: &str| {
            if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}.{k}")
            }
        };
        let table = v
            .as_table()
            .ok_or_else(|| err(prefix.to_string(), "expected a table".into()))?;
        let mut config = Config {
            source: Some(file.clone()),
            root: root.to_path_buf(),
            ..Config::default()
        };
        for (k, value) in table {
            match k.as_str() {
                "levels" => {
                    let levels = value
                        .as_table()
                        .ok_or_else(|| err(key(k), "expected a table of rule = level".into()))?;
                    for (rule, level) in levels {
                        let at = key(&format!("levels.{rule}"));
                        let r = rules::find(rule)
                            .ok_or_else(|| err(at.clone(), "no such rule".into()))?;
                        let l = match level.as_str() {
                            Some("allow") => RuleLevel::Allow,
                            Some("warn") => RuleLevel::Warn,
                            Some("deny") => RuleLevel::Deny,
                            _ => {
                                return Err(err(
                                    at,
                                    format!(
                                        "expected \"allow\", \"warn\" or \"deny\", found {level}"
                                    ),
                                ))
                            }
                        };
                        config.levels.insert(r.code, l);
                    }
                }
                "exclude" => {
                    let globs = value
                        .as_array()
                        .ok_or_else(|| err(key(k), "expected an array of globs".into()))?;
                    let mut all = GlobSetBuilder::new();
                    let mut names = GlobSetBuilder::new();
                    for (i, g) in globs.iter().enumerate() {
                        let at = key(&format!("exclude[{i}]"));
                        let s = g
                            .as_str()
                            .ok_or_else(|| err(at.clone(), "expected a string".into()))?;
                        let pattern = s.trim_end_matches('/');
                        let glob = GlobBuilder::new(pattern)
                            .literal_separator(true)
                            .build()
                            .map_err(|e| err(at.clone(), format!("invalid glob: {}", e.kind())))?;
                        if !pattern.contains('/') {
                            names.add(glob.clone());
                        }
                        all.add(glob);
                    }
                    let build = |b: GlobSetBuilder| {
                        b.build()
                            .map_err(|e| err(key(k), format!("invalid glob: {}", e.kind())))
                    };
                    config.exclude = build(all)?;
                    config.exclude_names = build(names)?;
                }
                _ => {
                    return Err(err(
                        key(k),
                        "unknown key; expected `levels` or `exclude`".into(),
                    ))
                }
            }
        }
        Ok(config)
    }

    /// The level findings of `rule` are reported at, or `None` when the rule is off.
    pub fn level(&self, rule: &Rule) -> Option<Level> {
        match self.levels.get(rule.code) {
            Some(RuleLevel::Allow) => None,
            Some(RuleLevel::Warn) => Some(Level::Warning),
            Some(RuleLevel::Deny) => Some(Level::Error),
            None => Some(rule.level),
        }
    }

    /// Sets a rule's level, over what the configuration file says (the command line's
    /// `-D`, `-W`, `-A`, `--select` and `--ignore`).
    pub fn set_level(&mut self, rule: &Rule, level: RuleLevel) {
        self.levels.insert(rule.code, level);
    }

    /// Whether `path` (or a directory above it, up to the configuration's directory) matches
    /// an `exclude` glob.
    pub fn excludes(&self, path: &Path) -> bool {
        if self.exclude.is_empty() {
            return false;
        }
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let Ok(rel) = abs.strip_prefix(&self.root) else {
            return false;
        };
        rel.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| {
                self.exclude.is_match(a)
                    || a.file_name()
                        .is_some_and(|n| self.exclude_names.is_match(n))
            })
    }
}

fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.strip_prefix(&cwd).unwrap_or(&abs).display().to_string()
}

fn read_toml(path: &Path, shown: &str) -> Result<toml::Table, ConfigError> {
    let err = |message: String| ConfigError {
        file: shown.to_string(),
        key: String::new(),
        message,
    };
    // The same limit as for sources: a configuration is never worth more.
    let bytes = crate::source::read_regular(path, crate::source::MAX_FILE_BYTES).map_err(err)?;
    let text = String::from_utf8(bytes).map_err(|_| err("not UTF-8".into()))?;
    text.parse::<toml::Table>().map_err(|e| {
        err(format!(
            "invalid TOML: {}",
            e.message().trim_end_matches('\n')
        ))
    })
}
