//! The Python environment of the editor tests' real clients, made by `scripts/test-venv.sh`.

use std::path::PathBuf;
use std::process::Command;

/// The python of the test environment, created with the pinned packages when missing.
pub fn python() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-venv");
    let out = Command::new("bash")
        .arg("scripts/test-venv.sh")
        .arg(&dir)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "scripts/test-venv.sh failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}
