"""Exports go to regular files: a FIFO, a device, a socket or a symlink loop as the
target is refused at once, in one line naming the path, and left as it was.

The FIFO and device cases run `workbench` as a child process with a timeout: an export
that waited on the FIFO would fail the test, not hang it.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest
from helpers import on_screen, run_cli, wait_for, write_mentions

from workbench.files.safe_output import OutputRefused, atomic_text_file, check_output_path


@pytest.fixture
def store(tmp_path) -> Path:
    db = tmp_path / "audit.db"
    assert (
        run_cli("import", "mentions", str(write_mentions(tmp_path / "m.csv")), "--db", db, "--study", "s").returncode
        == 0
    )
    return db


def export_to(db: Path, target: Path | str) -> object:
    """`workbench export -o TARGET` in a child process; a hang fails after 10 s."""
    return run_cli("export", "--db", db, "--what", "mentions", "-o", target, process=True, timeout=10)


def one_line_error(result, *said: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for words in said:
        assert words in result.stderr, result.stderr


def test_a_fifo_is_refused_without_being_opened(store, tmp_path):
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    one_line_error(export_to(store, fifo), str(fifo), "FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, not replaced by a file
    # A link to a FIFO is the FIFO.
    link = tmp_path / "link.csv"
    link.symlink_to(fifo)
    one_line_error(export_to(store, link), "FIFO")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and link.is_symlink()


def a_character_device(tmp_path: Path) -> Path:
    """A character device to export onto. As root, a node of its own (the null device's
    numbers) in tmp_path: a regression must not replace the machine's /dev/null. Others
    cannot replace /dev/null, so it is safe to aim at."""
    if os.geteuid() == 0:
        node = tmp_path / "null"
        try:
            os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
            return node
        except OSError:  # no CAP_MKNOD (a container): fall through
            pytest.skip("running as root without the right to make a device node: /dev/null is not risked")
    return Path("/dev/null")


def test_a_character_device_is_refused_and_stays_a_device(store, tmp_path):
    device = a_character_device(tmp_path)
    one_line_error(export_to(store, device), str(device), "character device")
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert not list(device.parent.glob(f".{device.name}.*.part"))  # no temporary file left


def test_a_symlink_loop_is_one_line_not_a_traceback(store, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.symlink_to(b)
    b.symlink_to(a)
    result = run_cli("export", "--db", store, "--what", "mentions", "-o", a)
    one_line_error(result, str(a), "loop of symbolic links")
    assert a.is_symlink() and b.is_symlink()
    # A loop further up the path, too.
    one_line_error(run_cli("export", "--db", store, "-o", a / "x.csv"), "x.csv")


def test_a_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "s"
    if len(str(path)) > 100:  # the limit of a socket's path
        pytest.skip("no short path to a socket here")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OutputRefused, match="a socket"):
            check_output_path(path)
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_a_regular_file_and_a_new_one_still_export(store, tmp_path):
    existing = tmp_path / "old.csv"
    existing.write_text("previous\n")
    for target in (existing, tmp_path / "new.csv"):
        result = run_cli("export", "--db", store, "--what", "mentions", "-o", target)
        assert result.returncode == 0, result.stderr
        assert target.read_text().startswith("study,model,topic")


def test_the_metrics_screen_export_refuses_a_fifo(metrics_db):
    """The app's `e` writes DB.metrics.csv/.json/.md through the same check."""
    from workbench.app import WorkbenchApp

    fifo = Path(f"{metrics_db.with_suffix('')}.metrics.csv")
    os.mkfifo(fifo)
    # Both ends held open, with bytes to read: a regression that opened the FIFO would
    # read or write and go on (and the test fail on the checks below), never block.
    guard = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    os.write(guard, b"0123456789abcdef")

    async def scenario():
        app = WorkbenchApp(metrics_db)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("2")
            assert await wait_for(pilot, lambda: app.screen.query_one("#peir-table").row_count == 2)
            await pilot.press("e")
            assert await on_screen(pilot, "EditText")
            await pilot.press("enter")  # the proposed path, beside the database
            assert await wait_for(pilot, lambda: any("Export failed" in n.message for n in app._notifications))
            return next(n.message for n in app._notifications if "Export failed" in n.message)

    try:
        message = asyncio.run(scenario())
    finally:
        os.close(guard)
    assert "FIFO" in message
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not Path(f"{metrics_db.with_suffix('')}.metrics.json").exists()  # refused before any file


def test_atomic_text_file_refuses_special_files_before_creating_anything(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    guard = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # as above: a regression reads on, never blocks
    os.write(guard, b"0123456789abcdef")
    try:
        with pytest.raises(OutputRefused, match="FIFO"), atomic_text_file(fifo) as out:
            out.write("never")
    finally:
        os.close(guard)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
