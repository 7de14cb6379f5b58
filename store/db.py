"""Opening the store: one SQLite file, WAL, busy timeout, forward migrations."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from workbench.errors import StoreError  # noqa: F401  (raised here; the family is workbench.errors)
from workbench.store import method_migrations
from workbench.store.rollback import rollback
from workbench.store.schema import FOREIGN_KEYS_OFF, MIGRATIONS, SCHEMA_VERSION

# A reader (the TUI) and a writer (a headless run) share the file. WAL lets them
# proceed side by side; the busy timeout makes a momentary writer-writer clash
# wait instead of failing with "database is locked".
BUSY_TIMEOUT_MS = 30_000


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# Marks a file as a workbench store (PRAGMA application_id, "AWB1"), so another
# application's SQLite file is never migrated into one.
APPLICATION_ID = 0x41574231


def connect(path: str | Path, create: bool = True) -> sqlite3.Connection:
    """A configured sqlite3 connection with the schema brought up to date.

    `create=False` (read-only commands): a missing file is an error, never an
    empty new database (nor its folder)."""
    path = Path(path)
    try:
        path.stat()
    except FileNotFoundError:
        pass
    except OSError as exc:  # a folder on the way this user may not enter
        raise StoreError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if path.is_dir():
        raise StoreError(f"{path}: is a directory; --db takes a database file")
    if not path.exists():
        if not create:
            raise StoreError(f"{path}: no such database (a `workbench run` creates one)")
        if not path.parent.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{path}: cannot create its folder ({exc.strerror or exc})") from None
        if not os.access(path.parent, os.W_OK):
            raise StoreError(f"{path}: cannot create it: its folder is read-only here")
    if not _writable(path) and path.exists():
        if not create:
            return _read_only(path)
        # A command that writes: SQLite would say only "unable to open database file".
        raise StoreError(
            f"{path}: read-only here (the file, its folder or the disk), and this command writes to the "
            "database; commands that only read (status, metrics, export, report) work on it"
        )
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open ({exc})") from None
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _check_ours(conn, path)
        _journal_mode_wal(conn)  # another mode (e.g. on a read-only medium) is still usable
        # NORMAL is durable across application crashes in WAL mode (only a power
        # loss can drop the last transactions), and much faster than FULL.
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path)
        method_migrations.apply(conn, path)  # each method's own tables, after the core's
    except StoreError:
        conn.close()
        raise
    except method_migrations.MethodTablesError as exc:
        conn.close()
        raise StoreError(str(exc)) from None
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: {reason(exc)}") from None
    return conn


def tuples(conn: sqlite3.Connection, sql: str, args: tuple = ()) -> list[tuple]:
    """Rows as plain tuples: bulk reads (a million mentions, a 100k-question bank) fetch
    about half as long again as `sqlite3.Row`s, the connection's row factory."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, args).fetchall()


def _writable(path: Path) -> bool:
    """Whether this process may write the store and the files SQLite keeps beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _read_only(path: Path) -> sqlite3.Connection:
    """A store this process may not write (an archived audit, a colleague's file): opened
    read-only, nothing written, no file created beside it, always with the commits of its
    write-ahead log (`_open_read_only`). A store of an older schema, or without a registered
    method's tables, cannot be brought up to date here, and says so."""
    conn = _open_read_only(path)
    conn.row_factory = sqlite3.Row
    app_id, version = (conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("application_id", "user_version"))
    if app_id != APPLICATION_ID and not (version > 0 and _has_workbench_tables(conn)):
        conn.close()
        raise StoreError(f"{path}: is an SQLite database of another application, not a workbench store")
    if version != SCHEMA_VERSION:
        conn.close()
        newer = version > SCHEMA_VERSION
        raise StoreError(
            f"{path}: schema version {version} is "
            + (
                "newer than this workbench understands; upgrade the workbench"
                if newer
                else "older than this workbench's"
            )
            + ("" if newer else f" ({SCHEMA_VERSION}) and the file is read-only here: open it once with write access")
        )
    try:
        method_migrations.refuse_missing(conn, path)
    except method_migrations.MethodTablesError as exc:
        conn.close()
        raise StoreError(str(exc)) from None
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _open_read_only(path: Path) -> sqlite3.Connection:
    """The connection `_read_only` reads through. No -wal beside the store: no writer is
    connected (one keeps it while it is), so the file is read as it stands (immutable), and
    SQLite creates no WAL index for a reader that may not remove it. A -wal beside it holds
    commits the file may not have yet (a writer that crashed before a checkpoint): it is
    always read with them, never as immutable, which would show the store without them."""
    from urllib.parse import quote

    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    wal = Path(f"{path}-wal")
    if not wal.exists():
        attempts = [(uri + "&immutable=1", False), (uri, False)]
    else:
        # Read through the shared WAL index (-shm) when there is one or SQLite may make one.
        # Without it (a crashed writer's -shm removed, a folder this user may not write),
        # exclusive locking keeps the index in this process's memory: SQLite builds it from
        # the -wal (a checksum ends it at the last whole commit); the "unix-none" files take
        # no lock, which a read-only descriptor could not hold. No -shm means no writer is
        # connected; one that starts meanwhile appends to the -wal past what is read (only a
        # checkpoint of its, 1000 pages on or at its close, rewrites pages of the file).
        attempts = [(uri, False), (uri + "&vfs=unix-none", True)]
    failure: sqlite3.Error | None = None
    for target, exclusive in attempts:
        conn = None
        try:
            conn = sqlite3.connect(target, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            if exclusive:
                conn.execute("PRAGMA locking_mode = EXCLUSIVE")  # before the first read: no -shm
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            failure = exc
    if wal.exists():
        raise StoreError(
            f"{path}: its write-ahead log {wal.name} holds commits not yet in the file, and this user "
            f"cannot read them ({reason(failure)}): ask its owner to open it once (any workbench "
            f"command folds the log into the file), or to copy it with its {wal.name} to a folder you may write"
        ) from None
    raise StoreError(f"{path}: cannot open it read-only ({reason(failure)})") from None


def _journal_mode_wal(conn: sqlite3.Connection) -> str:
    """Switch to WAL. While another connection creates the file or changes its mode,
    SQLite answers "locked" at once (the busy timeout does not cover a journal-mode
    change), so try again for a while before giving up."""
    import time

    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def reason(exc: sqlite3.Error) -> str:
    """A one-line explanation of an SQLite error for the user."""
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return f"not a usable SQLite database ({text})"
    if "readonly" in text or "read-only" in text:
        return (
            "the database is read-only here (the file, its folder or the disk), and this command writes "
            "to it; commands that only read (status, metrics, export, report) work on it"
        )
    if "full" in text:
        return f"the disk is full ({text}); nothing after the last stored answer was lost"
    if "disk I/O error" in text:  # what a write past the space (or the size a file may have) gives
        return (
            f"the database could not be written ({text}): is the disk full? The store is as its last "
            "commit left it; free some space and run the same command again"
        )
    return text


def _check_ours(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse SQLite files of other applications; mark new (and older) workbench stores."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id == APPLICATION_ID:
        return
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    ours = app_id == 0 and (tables == 0 or (version > 0 and _has_workbench_tables(conn)))
    if not ours:
        raise StoreError(
            f"{path}: is an SQLite database of another application, not a workbench store; "
            "give a new file name or an existing workbench database"
        )
    try:
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    except sqlite3.OperationalError:
        pass  # read-only: still readable


def _has_workbench_tables(conn: sqlite3.Connection) -> bool:
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"studies", "models", "requests", "responses"} <= names


def migrate(conn: sqlite3.Connection, path: Path | str = "database") -> int:
    """Apply the migrations this database has not seen; returns the new version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: schema version {version} is newer than this workbench understands "
            f"({SCHEMA_VERSION}); upgrade the workbench"
        )
    for number in range(version, SCHEMA_VERSION):
        keys_off = MIGRATIONS[number].startswith(FOREIGN_KEYS_OFF)
        if keys_off:  # only outside a transaction can this be switched
            conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated.
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current > number:
                conn.execute("COMMIT")
                continue
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
            if keys_off and conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
                raise StoreError(f"{path}: migration {number + 1} would break a foreign key; nothing was changed")
            conn.execute(f"PRAGMA user_version = {number + 1}")
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        finally:
            if keys_off:
                conn.execute("PRAGMA foreign_keys = ON")
    return conn.execute("PRAGMA user_version").fetchone()[0]


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit implicitly)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


@contextmanager
def opened(path: str | Path, create: bool = True) -> Iterator[sqlite3.Connection]:
    """A connection for one short piece of work (UI actions, polling), closed after it."""
    conn = connect(path, create)
    try:
        yield conn
    finally:
        conn.close()


# The connections inside a `snapshot` of their own, by id, with their count of changed
# rows when it began (a sqlite3 connection takes no attributes and no weak references).
_SNAPSHOTS: dict[int, int] = {}


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One `BEGIN IMMEDIATE` transaction; inside another, a savepoint of it, so that a
    caller can make several of these functions one all-or-nothing change (an import that
    creates its study, stores its rows and checks them is refused as a whole)."""
    if conn.in_transaction:
        # Savepoints may share a name: ROLLBACK TO and RELEASE act on the innermost.
        conn.execute("SAVEPOINT nested")
        try:
            yield conn
        except BaseException:
            rollback(conn, "nested")
            raise
        conn.execute("RELEASE nested")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        rollback(conn)
        raise
    conn.execute("COMMIT")


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction around a piece of work that reads several tables: every read
    in it sees the store as one commit left it. Without it each statement reads the latest
    commit, and a writer committing between two reads (an import replacing the lists
    while `metrics` reads the lists, then their mentions) makes them disagree. In WAL
    mode the first read pins the snapshot until the end, and writers go on meanwhile.
    Inside a transaction already (a write's), the reads are simply part of it."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    _SNAPSHOTS[id(conn)] = conn.total_changes
    try:
        yield conn
    except BaseException:
        _SNAPSHOTS.pop(id(conn), None)
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    _SNAPSHOTS.pop(id(conn), None)
    if conn.in_transaction:
        conn.execute("COMMIT")  # a write made inside stays (none is expected; none is lost)


def reads_committed(conn: sqlite3.Connection) -> bool:
    """Whether what `conn` reads now is committed: outside any transaction, or inside a
    `snapshot` that has written nothing (so a cache may keep what it read)."""
    if not conn.in_transaction:
        return True
    began = _SNAPSHOTS.get(id(conn))
    return began is not None and began == conn.total_changes


@contextmanager
def reading(path: str | Path, create: bool = True) -> Iterator[sqlite3.Connection]:
    """`opened` for a read of several tables (a screen's refresh): one `snapshot`."""
    with opened(path, create) as conn, snapshot(conn):
        yield conn


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's change counter for this connection: it moves when another connection
    (another thread or process) commits, so a display can tell its numbers are stale."""
    return conn.execute("PRAGMA data_version").fetchone()[0]


@contextmanager
def new_store_kept_only_if_used(path: str | Path):
    """Around the first steps of a command that may create its database (a run's plan, an
    import): a refusal before anything was stored (a plan too large, a model named twice, a
    file refused) leaves no empty new database behind; one that was there is never touched."""
    existed = Path(path).exists()
    try:
        yield
    except BaseException:
        if not existed:
            _remove_if_empty(Path(path))
        raise


def _remove_if_empty(path: Path) -> None:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            empty = conn.execute("SELECT COUNT(*) FROM studies").fetchone()[0] == 0
        except sqlite3.OperationalError:  # its tables not made yet
            empty = True
        finally:
            conn.close()
        if empty:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    except (OSError, sqlite3.Error):  # kept: what cannot be checked is not removed
        pass
