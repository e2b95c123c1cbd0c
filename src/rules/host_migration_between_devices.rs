//! CLM002: `CL_MIGRATE_MEM_OBJECT_HOST` on a buffer whose next use is on a device.

use super::{what, Applicability, Edit, Fix, Label, Level, Rule};
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

fn check(fact: &Fact) -> Option<Finding> {
    // Only a host migration followed by a device use.
    let Fact::HostMigration {
        migration,
        next,
        buffer,
    } = fact
    else {
        return None;
    };
    let mut f = RULE.finding(
        format!("`{buffer}` is migrated to host memory, but its next use is on a device"),
        migration.span,
        Label {
            span: migration
                .flags_arg
                .as_ref()
                .map_or(migration.span, |a| a.span),
            message: "`CL_MIGRATE_MEM_OBJECT_HOST` moves the buffer to the host".into(),
        },
    );
    f.secondary.push(Label {
        span: next.span,
        message: format!("next used here by {} on `{}`", what(next), next.queue),
    });
    f.help =
        Some("pass flags `0` to move it between devices: the driver picks the direct path".into());
    // The fix is safe only when the flags are exactly the host flag.
    if let Some(flags) = &migration.flags_arg {
        let t = flags.text.trim();
        let exact =
            t == "CL_MIGRATE_MEM_OBJECT_HOST" || t.ends_with("::CL_MIGRATE_MEM_OBJECT_HOST");
        f.fix = Some(Fix {
            message: "migrate with flags `0`".into(),
            applicability: if exact {
                Applicability::Safe
            } else {
                Applicability::DisplayOnly
            },
            edits: vec![Edit {
                span: flags.span,
                replacement: "0".into(),
            }],
        });
    }
    Some(f)
}
