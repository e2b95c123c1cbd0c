//! CLM006: a raw `cl_event` that is never released on some path.

use super::{Label, Level, Rule, Spelling};
use crate::analysis::Fact;
use crate::rules::Finding;

pub const RULE: Rule = Rule {
    code: "CLM006",
    name: "unreleased-event",
    level: Level::Error,
    summary: "a raw `cl_event` is created and never released, returned or handed to an owner",
    doc: include_str!("../../rules/CLM006-unreleased-event.md"),
    check,
};

fn check(fact: &Fact, spelling: Spelling) -> Option<Finding> {
    // Only raw events that leak.
    let Fact::Unreleased {
        site,
        api,
        event_var,
        overwritten,
        early,
        ..
    } = fact
    else {
        return None;
    };
    // A user event is made by `create_user_event` in the analysis's terms.
    let api = match spelling {
        Spelling::C | Spelling::Cpp if api == "create_user_event" => "clCreateUserEvent",
        _ => api,
    };
    let what = match event_var {
        Some(v) => format!("the event `{v}` made by `{api}`"),
        None => format!("the event made by `{api}`"),
    };
    let mut f = RULE.finding(
        match (overwritten, early) {
            (Some(_), _) => format!("{what} is overwritten before it is released"),
            (None, Some(_)) => format!("{what} is not released where the function returns early"),
            (None, None) => format!("{what} is never released"),
        },
        *site,
        Label {
            span: *site,
            message: "raw event created here".into(),
        },
    );
    if let Some(o) = overwritten {
        f.secondary.push(Label {
            span: *o,
            message: "its only reference is overwritten here".into(),
        });
    }
    if let Some(r) = early {
        f.secondary.push(Label {
            span: *r,
            message: "returns here without releasing it".into(),
        });
    }
    let release = match api.starts_with("cl") {
        true => "clReleaseEvent",
        false => "release_event",
    };
    let owner = match spelling {
        Spelling::Rust => ", or wrap it in `opencl3::event::Event::new`",
        Spelling::C => ", on every path",
        Spelling::Cpp => ", or hold it in a `cl::Event`, which releases it",
    };
    f.help = Some(match event_var {
        // Released on the other paths: the fix is at that return.
        Some(v) if early.is_some() => format!("call `{release}({v})` before this return too"),
        None if early.is_some() => format!("call `{release}` on it before this return too"),
        Some(v) => format!("call `{release}({v})` after its last use{owner}"),
        // cl3 returns the event of every enqueue; a raw call can be given no event pointer.
        None if release == "release_event" => {
            format!("keep the returned event and call `{release}` on it after its last use{owner}")
        }
        None => format!(
            "keep the event and call `{release}` after its last use, or pass a null event pointer"
        ),
    });
    Some(f)
}
