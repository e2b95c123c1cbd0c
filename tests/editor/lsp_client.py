"""Drives `cargo-clmigrate-lint lsp` with pygls' language client, as an editor would.

Usage: python lsp_client.py BINARY FIXTURES_SEED_DIR CRATE_DIR CALLER_LINE_FILE

Opens the seed program, checks the published diagnostics against the `//~` markers and the
command line's JSON output, takes both CLM002 quick fixes (the second also removes the import
it leaves unused, as `--fix` does), edits the document to the fixed version, saves, closes.
Then, on a copy of the two-file crate CRATE_DIR, opens the file whose bug is only seen with
the crate's other file, edits that other file without saving, closes it, and changes it on the
disk. Then opens CALLER_LINE_FILE, whose bug sits in a closure called like a helper: the
diagnostic is on the caller's line, with the closure's command as related information.
Prints a transcript of what the server sent (positions as the protocol counts them:
0-based lines, UTF-16 columns). Exits non-zero when a check fails.
"""

import asyncio
import collections
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as t
from pygls.exceptions import JsonRpcMethodNotFound
from pygls.lsp.client import LanguageClient

TIMEOUT = 60


def utf16_offset(text, pos):
    """The index in `text` of an LSP position (UTF-16 columns)."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: pos.line])
    units = 0
    for i, ch in enumerate(lines[pos.line]):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(lines[pos.line])


def span_text(text, r):
    return text[utf16_offset(text, r.start) : utf16_offset(text, r.end)]


def apply(text, edits):
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: utf16_offset(text, e.range.start)] + e.new_text + text[utf16_offset(text, e.range.end) :]
    return text


def fmt_range(r):
    return f"{r.start.line}:{r.start.character}-{r.end.line}:{r.end.character}"


def fmt_diag(d, full, uri=None):
    severity = {t.DiagnosticSeverity.Error: "error", t.DiagnosticSeverity.Warning: "warning"}[d.severity]
    lines = [f"  {fmt_range(d.range)} {severity} {d.code} [{d.source}] {d.message.splitlines()[0]}"]
    if not full:
        return lines[0]
    lines += [f"    {line}" for line in d.message.splitlines()[1:]]
    for r in d.related_information or []:
        where = "" if r.location.uri == uri else f"{Path(unquote(urlparse(r.location.uri).path)).name} "
        lines.append(f"    related {where}{fmt_range(r.location.range)}: {r.message}")
    return "\n".join(lines)


class Session:
    def __init__(self, binary):
        self.binary = binary
        self.client = LanguageClient("clmigrate-lint-tests", "1")
        self.published = asyncio.Queue()

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params):
            self.published.put_nowait(params)

        self.out = []

    def say(self, line):
        self.out.append(line)

    async def diagnostics(self, uri, version, what, full=False):
        p = await asyncio.wait_for(self.published.get(), TIMEOUT)
        assert p.uri == uri, (p.uri, uri)
        assert p.version == version, (p.version, version)
        self.say(f"{what}: {len(p.diagnostics)} diagnostics (version {p.version})")
        self.out += [fmt_diag(d, full, uri) for d in p.diagnostics]
        return list(p.diagnostics)


def markers(text):
    """Expected codes per 1-based line, from the `//~ CLMxxx` markers."""
    found = collections.Counter()
    for n, line in enumerate(text.split("\n"), 1):
        m = re.search(r"//~\s*(.*)$", line)
        if m:
            for code in m.group(1).split():
                found[code] += 1
    return found


def cli_findings(binary, path, only=None):
    """(code, 0-based line, 0-based column) of each primary span in the JSON output (in the
    file `only`, when given)."""
    run = subprocess.run([binary, "--message-format", "json", str(path)], capture_output=True, text=True)
    found = []
    for line in run.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") != "compiler-message" or not msg["message"]["code"]:
            continue
        for span in msg["message"]["spans"]:
            if span["is_primary"] and (only is None or Path(span["file_name"]).resolve() == only.resolve()):
                found.append((msg["message"]["code"]["code"], span["line_start"] - 1, span["column_start"] - 1))
    return sorted(found)


def cli_fixed(binary, text):
    """`text` as `--fix` leaves it, in a file of its own."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "buggy.rs"
        path.write_text(text)
        subprocess.run([binary, "--fix", str(path)], capture_output=True, text=True)
        return path.read_text()


async def quick_fix(s, uri, text, diag):
    """The one quick fix of `diag`, logged, and `text` with it applied."""
    actions = await asyncio.wait_for(
        s.client.text_document_code_action_async(
            t.CodeActionParams(
                text_document=t.TextDocumentIdentifier(uri=uri),
                range=diag.range,
                context=t.CodeActionContext(diagnostics=[diag]),
            )
        ),
        TIMEOUT,
    )
    fixes = [a for a in actions if a.diagnostics and a.diagnostics[0].code == diag.code]
    assert len(fixes) == 1, actions
    fix = fixes[0]
    assert fix.kind == t.CodeActionKind.QuickFix, fix
    edits = fix.edit.changes[uri]
    s.say(f"code actions at {fmt_range(diag.range)}: {[a.title for a in actions]}")
    for e in edits:
        s.say(f"  {fmt_range(e.range)} `{span_text(text, e.range)}` -> `{e.new_text}` preferred={fix.is_preferred}")
    return fix, edits, apply(text, edits)


def open_doc(c, uri, text):
    c.text_document_did_open(
        t.DidOpenTextDocumentParams(t.TextDocumentItem(uri=uri, language_id="rust", version=1, text=text))
    )


def change(c, uri, version, text):
    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def disk_changed(c, path):
    c.workspace_did_change_watched_files(
        t.DidChangeWatchedFilesParams(changes=[t.FileEvent(uri=path.as_uri(), type=t.FileChangeType.Changed)])
    )


async def two_files(s, root):
    """The crate at `root`: `src/lib.rs` reads what `src/gpu.rs`'s helper uploads on another
    queue without blocking, a bug seen only with both files."""
    c = s.client
    lib, gpu = (root / "src/lib.rs").resolve(), (root / "src/gpu.rs").resolve()
    lib_uri, gpu_uri = lib.as_uri(), gpu.as_uri()
    lib_text, gpu_text = lib.read_text(), gpu.read_text()
    # The helper waits for its upload before it returns: no bug.
    finished = gpu_text.replace("data, &[])? };\n", "data, &[])? };\n    queue.finish()?;\n")
    assert finished != gpu_text
    whole = cli_findings(s.binary, root, lib)
    assert len(whole) == 1 and cli_findings(s.binary, lib) == [], whole

    open_doc(c, lib_uri, lib_text)
    diags = await s.diagnostics(lib_uri, 1, "open src/lib.rs of two_files", full=True)
    assert sorted((d.code, d.range.start.line, d.range.start.character) for d in diags) == whole, diags
    related = diags[0].related_information
    assert [r.location.uri for r in related] == [gpu_uri], related
    assert span_text(gpu_text, related[0].location.range).startswith("queue.enqueue_write_buffer("), related

    open_doc(c, gpu_uri, gpu_text)
    assert await s.diagnostics(gpu_uri, 1, "open src/gpu.rs") == []
    assert len(await s.diagnostics(lib_uri, 1, "src/lib.rs again")) == 1

    # Unsaved: the editor's text of the helper wins over the disk's.
    change(c, gpu_uri, 2, finished)
    assert await s.diagnostics(gpu_uri, 2, "src/gpu.rs finishes its queue, unsaved") == []
    assert await s.diagnostics(lib_uri, 1, "src/lib.rs with the unsaved helper") == []
    assert cli_findings(s.binary, root, lib) == whole

    # Closed without saving: the disk's helper again.
    c.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=gpu_uri)))
    assert await s.diagnostics(gpu_uri, None, "src/gpu.rs closed unsaved") == []
    assert len(await s.diagnostics(lib_uri, 1, "src/lib.rs with the helper on the disk")) == 1

    # Changed on the disk, as another program (or a save elsewhere) would.
    gpu.write_text(finished)
    disk_changed(c, gpu)
    assert await s.diagnostics(lib_uri, 1, "src/gpu.rs finishes its queue on the disk") == []
    gpu.write_text(gpu_text)
    disk_changed(c, gpu)
    assert len(await s.diagnostics(lib_uri, 1, "src/gpu.rs back on the disk")) == 1

    c.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=lib_uri)))
    assert await s.diagnostics(lib_uri, None, "src/lib.rs closed") == []


async def caller_line(s, path):
    """A finding whose command is in a closure and whose cause is the call: on the call line,
    the closure's command related."""
    c = s.client
    uri = path.resolve().as_uri()
    text = path.read_text()
    open_doc(c, uri, text)
    diags = await s.diagnostics(uri, 1, f"open {path.name}", full=True)
    got = sorted((d.code, d.range.start.line, d.range.start.character) for d in diags)
    assert got == cli_findings(s.binary, path), (got, cli_findings(s.binary, path))
    lines = text.split("\n")
    assert sorted(d.range.start.line for d in diags) == [
        n for n, line in enumerate(lines) if "//~" in line
    ], diags
    call = next(d for d in diags if span_text(text, d.range) == "launch(q1)")
    related = call.related_information
    inside = [r for r in related if r.message.endswith("in `launch`")]
    assert len(inside) == 1 and span_text(text, inside[0].location.range).startswith("ExecuteKernel::new(scale)"), related
    c.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    assert await s.diagnostics(uri, None, f"{path.name} closed") == []


async def main(binary, seed, crate, caller):
    buggy_path, fixed_path = seed / "buggy.rs", seed / "fixed.rs"
    buggy, fixed = buggy_path.read_text(), fixed_path.read_text()
    uri = buggy_path.resolve().as_uri()
    s = Session(binary)
    c = s.client
    await c.start_io(binary, "lsp")

    init = await asyncio.wait_for(
        c.initialize_async(t.InitializeParams(capabilities=t.ClientCapabilities(), process_id=None)), TIMEOUT
    )
    sync = init.capabilities.text_document_sync
    assert sync.change == t.TextDocumentSyncKind.Full and sync.open_close, sync
    assert list(init.capabilities.code_action_provider.code_action_kinds) == [t.CodeActionKind.QuickFix]
    s.say(f"initialized: {init.server_info.name}")
    c.initialized(t.InitializedParams())

    c.text_document_did_open(
        t.DidOpenTextDocumentParams(t.TextDocumentItem(uri=uri, language_id="rust", version=1, text=buggy))
    )
    diags = await s.diagnostics(uri, 1, "open buggy.rs", full=True)
    assert collections.Counter(d.code for d in diags) == markers(buggy), [d.code for d in diags]
    got = sorted((d.code, d.range.start.line, d.range.start.character) for d in diags)
    assert got == cli_findings(binary, buggy_path), (got, cli_findings(binary, buggy_path))
    assert all(d.source == "clmigrate-lint" for d in diags)
    for d in diags:
        doc = d.code_description.href
        assert re.search(rf"/rules/{d.code}-[a-z-]+\.md$", doc) and Path(unquote(urlparse(doc).path)).is_file(), doc

    clm002 = next(d for d in diags if d.code == "CLM002")
    fix, edits, edited = await quick_fix(s, uri, buggy, clm002)
    assert fix.is_preferred, fix
    assert [(span_text(buggy, e.range), e.new_text) for e in edits] == [("CL_MIGRATE_MEM_OBJECT_HOST", "0")], edits
    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=edited)],
        )
    )
    diags = await s.diagnostics(uri, 2, "fix applied")
    assert sum(d.code == "CLM002" for d in diags) == markers(buggy)["CLM002"] - 1

    # The second one leaves `CL_MIGRATE_MEM_OBJECT_HOST` unused: its import goes in the same
    # action, and the text is what `--fix` makes of the seed program.
    clm002 = next(d for d in diags if d.code == "CLM002")
    _, edits, both = await quick_fix(s, uri, edited, clm002)
    assert [(span_text(edited, e.range), e.new_text) for e in edits] == [
        (", CL_MIGRATE_MEM_OBJECT_HOST", ""),
        ("CL_MIGRATE_MEM_OBJECT_HOST", "0"),
    ], edits
    assert both == cli_fixed(s.binary, buggy), both
    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=both)],
        )
    )
    diags = await s.diagnostics(uri, 3, "both fixes applied")
    assert not any(d.code == "CLM002" for d in diags), diags
    assert "use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};\n" in both, both

    # A line with characters outside the BMP and Latin-1 before the finding: the range is in
    # UTF-16 code units and still covers exactly the argument.
    wide = buggy.replace("kernel0.set_arg(1, &common_arr)?;", "/* 𝄞 é */ kernel0.set_arg(1, &common_arr)?;")
    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=4),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=wide)],
        )
    )
    diags = await s.diagnostics(uri, 4, "non-ASCII before CLM001")
    clm001 = next(d for d in diags if d.code == "CLM001")
    assert span_text(wide, clm001.range) == "&common_arr", span_text(wide, clm001.range)

    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=5),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=fixed)],
        )
    )
    assert await s.diagnostics(uri, 5, "changed to fixed.rs") == []

    # The file on disk is still the buggy one: saving checks the editor's text.
    c.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    assert await s.diagnostics(uri, 5, "saved") == []

    c.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=6),
            content_changes=[t.TextDocumentContentChangeWholeDocument(text=buggy)],
        )
    )
    assert len(await s.diagnostics(uri, 6, "changed back to buggy.rs")) == sum(markers(buggy).values())
    c.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
    assert await s.diagnostics(uri, None, "closed") == []

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "two_files"
        shutil.copytree(crate, root)
        await two_files(s, root)
    await caller_line(s, caller)

    try:
        await asyncio.wait_for(c.protocol.send_request_async("clmigrate/noSuchRequest", None), TIMEOUT)
        raise AssertionError("an unknown request was answered")
    except JsonRpcMethodNotFound as e:
        s.say(f"unknown request: error {e.CODE}")

    await asyncio.wait_for(c.shutdown_async(None), TIMEOUT)
    c.exit(None)
    await asyncio.wait_for(c.stop(), TIMEOUT)
    s.say("shut down")
    print("\n".join(s.out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4])))
