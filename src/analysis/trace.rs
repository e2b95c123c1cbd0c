//! What the analysis did, for `debug trace`: each command with the queue and buffers it
//! resolved to and what it is ordered after, and each time facts were forgotten.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

static ON: AtomicBool = AtomicBool::new(false);
static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Starts recording.
pub fn enable() {
    ON.store(true, Ordering::Relaxed);
}

/// The lines recorded so far, emptied.
pub fn take() -> Vec<String> {
    std::mem::take(&mut LINES.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Whether recording is on: checked before a line is formatted.
pub(super) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

pub(super) fn line(s: String) {
    LINES.lock().unwrap_or_else(|e| e.into_inner()).push(s);
}
