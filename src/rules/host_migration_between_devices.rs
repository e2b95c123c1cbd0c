//! CLM002: `CL_MIGRATE_MEM_OBJECT_HOST` on a buffer whose next use is on a device.

use super::{what, Applicability, Edit, Fix, Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM002",
    name: "host-migration-between-devices",
    level: Level::Warning,
    summary: "a migration to host memory whose buffer is next used on a device",
    doc: include_str!("../../rules/CLM002-host-migration-between-devices.md"),
    check,
};

fn check(fact: &Fact, _: Spelling) -> Option<Finding> {
    // Only a host migration followed by a device use.
    let Fact::HostMigration {
        migration,
        next,
        buffer,
    } = fact
    else {
        return None;
    };
    // The finding is on the migration, where a reader looks for it; its flags, which may
    // be lines below in a call spread over several, carry their own label.
    let host_flag = "`CL_MIGRATE_MEM_OBJECT_HOST` moves the buffer to the host";
    let mut f = RULE.finding(
        format!("`{buffer}` is migrated to host memory, but its next use is on a device"),
        migration.span,
        Label {
            span: migration.span,
            message: match migration.flags_arg {
                Some(_) => "migrated to host memory here".into(),
                None => host_flag.into(),
            },
        },
    );
    if let Some(flags) = &migration.flags_arg {
        f.secondary.push(Label {
            span: flags.span,
            message: host_flag.into(),
        });
    }
    f.secondary.push(Label {
        span: next.span,
        message: format!("next used here by {} on `{}`", what(next), next.queue),
    });
    let ocl_core = migration.binding == "ocl-core";
    f.help = Some(if ocl_core {
        "pass `MemMigrationFlags::empty()` to move it between devices: the driver picks the direct path".into()
    } else {
        "pass flags `0` to move it between devices: the driver picks the direct path".into()
    });
    if let Some(flags) = &migration.flags_arg {
        let (replacement, applicability) = if ocl_core {
            no_flags_ocl_core(flags.text.trim())
        } else {
            // Safe only when the flags are exactly the host flag.
            let t = flags.text.trim();
            let exact =
                t == "CL_MIGRATE_MEM_OBJECT_HOST" || t.ends_with("::CL_MIGRATE_MEM_OBJECT_HOST");
            let applicability = if exact {
                Applicability::Safe
            } else {
                Applicability::DisplayOnly
            };
            ("0".to_string(), applicability)
        };
        f.fix = Some(Fix {
            message: if ocl_core {
                format!("migrate with `{replacement}`")
            } else {
                "migrate with flags `0`".into()
            },
            applicability,
            edits: vec![Edit {
                span: flags.span,
                replacement,
            }],
        });
    }
    Some(f)
}

/// ocl-core's empty migration flags in place of `flags`, under the path the host flag was
/// named by. Safe for `MemMigrationFlags::OBJECT_HOST` (the type is named as written); for
/// the constant `MIGRATE_MEM_OBJECT_HOST` the type may not be in scope under its path; any
/// other expression is only shown.
fn no_flags_ocl_core(flags: &str) -> (String, Applicability) {
    if let Some(prefix) = flags.strip_suffix("MemMigrationFlags::OBJECT_HOST") {
        if prefix.is_empty() || prefix.ends_with("::") {
            return (
                format!("{prefix}MemMigrationFlags::empty()"),
                Applicability::Safe,
            );
        }
    }
    if let Some(prefix) = flags.strip_suffix("MIGRATE_MEM_OBJECT_HOST") {
        if prefix.is_empty() || prefix.ends_with("::") {
            return (
                format!("{prefix}MemMigrationFlags::empty()"),
                Applicability::MaybeIncorrect,
            );
        }
    }
    (
        "MemMigrationFlags::empty()".into(),
        Applicability::DisplayOnly,
    )
}

#[cfg(test)]
mod tests {
    use super::{no_flags_ocl_core, Applicability};

    #[test]
    fn ocl_core_flags_are_replaced_under_their_own_path() {
        assert_eq!(
            no_flags_ocl_core("MemMigrationFlags::OBJECT_HOST"),
            ("MemMigrationFlags::empty()".into(), Applicability::Safe)
        );
        assert_eq!(
            no_flags_ocl_core("core::MemMigrationFlags::OBJECT_HOST"),
            (
                "core::MemMigrationFlags::empty()".into(),
                Applicability::Safe
            )
        );
        assert_eq!(
            no_flags_ocl_core("ocl_core::MIGRATE_MEM_OBJECT_HOST"),
            (
                "ocl_core::MemMigrationFlags::empty()".into(),
                Applicability::MaybeIncorrect
            )
        );
        assert_eq!(
            no_flags_ocl_core("MIGRATE_MEM_OBJECT_HOST | MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED").1,
            Applicability::DisplayOnly
        );
    }
}
