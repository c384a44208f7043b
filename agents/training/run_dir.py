"""The run directory: what a run owns, who writes it, and cutting it back to a checkpoint.

Four guarantees, each in one place:

- **Nothing is deleted that a run did not create.** A run writes a manifest
  (:data:`MANIFEST`) before anything else, naming its kind (``train``,
  ``quickstart`` or ``exploit``: :data:`RUN_KINDS`) and the entries that kind
  writes. ``--overwrite`` removes only what that kind of run writes: its own
  top-level files, and inside its directories only the files it writes, by
  name (e.g. ``plots/learning_curve.png``, never another
  file in ``plots/``); anything else is left alone and named
  (:func:`remove_run_files`). It refuses a directory without a manifest, the
  current directory, any parent of it, the home directory and the file system
  root (:func:`check_replaceable`).
- **One writer at a time.** :class:`RunLock` holds :data:`LOCK` (the owner's
  PID and host); a second writer is refused with the holder's PID, and the
  lock of a process that no longer runs is taken over. A job of several
  trainings (``exploit``, ``harden``, ``quickstart``) holds one lock for all of
  it (:func:`held`) and passes it to each training, so that no other writer
  gets in between its stages.
- **Nothing is written or deleted outside the run.** Before a run reads or
  writes anything, :func:`check_entries` refuses a symbolic link or a special
  file (FIFO, socket, device) among the entries a run owns, at any depth, so
  a stranger's run directory cannot point a resume at other files; the run's
  own writes replace files (:func:`atomic_write_bytes`, never through a link)
  rather than changing them in place.
- **Resume as if the run never died.** :func:`cut_back` drops every CSV row,
  league snapshot and checkpoint written after the checkpoint a run resumes
  from, so the resumed run writes them again exactly once.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import re
import shutil
import socket
import stat
import struct
from pathlib import Path

from kakurega.agents.training.config import ConfigError
from kakurega.envs.core.safe_load import open_regular, read_at_most

MANIFEST = ".kakurega-run.json"
LOCK = ".kakurega-lock"
#: a file a run writes (its hidden ``.<name>.tmp`` temporary too)
FILE = "file"
#: a directory a run writes whole (a checkpoint ``step_<N>/``): removed with everything in it
WHOLE = "whole"
_STEP = r"\d{1,20}"
_SLUG = r"\w{1,40}"
_TRAIN_OWN = {
    "config.yaml": FILE, "policy.safetensors": FILE, "eval.csv": FILE, "summary.json": FILE,
    "checkpoints": {rf"step_{_STEP}": WHOLE, rf"model_{_STEP}\.zip": FILE, rf"replay_{_STEP}\.pkl": FILE},
    "league": {rf"snapshot_{_STEP}\.safetensors": FILE},
    "logs": {rf"part{_STEP}": {r"progress\.csv": FILE, r"events\.out\.tfevents\.[^/]{1,200}": FILE}},
    "evaluation": {r"evaluation\.json": FILE, r"evaluation\.txt": FILE,
                   rf"vs_{_SLUG}(\.json|\.csv|_head_to_head\.csv|_heatmap\.png)": FILE},
    "plots": {r"learning_curve\.png": FILE},
}
_TOURNAMENT = {r"tournament(\.json|\.csv|_head_to_head\.csv|_heatmap\.png)": FILE}
#: what each kind of run writes, and so what ``--overwrite`` may delete: a top-level name maps to :data:`FILE`,
#: :data:`WHOLE` or, for a directory that may hold other files too, ``{regular expression of a name: the same}``
RUN_KINDS = {
    "train": _TRAIN_OWN,
    "quickstart": {**_TRAIN_OWN, "tournament": _TOURNAMENT},
    "exploit": {**_TRAIN_OWN, "exploit.json": FILE, "exploit.txt": FILE,
                "evaluation": {**_TRAIN_OWN["evaluation"], rf"exploit_stage_{_STEP}\.safetensors": FILE},
                "plots": {**_TRAIN_OWN["plots"], r"exploit_curve\.png": FILE}},
}
#: every top-level entry some kind of run writes (links and special files are refused among them: :func:`check_entries`)
RUN_ENTRIES = tuple(dict.fromkeys(name for own in RUN_KINDS.values() for name in own))
#: the entries a run appends to (every other file it writes is replaced whole, so a hard link there is harmless)
APPENDED = ("eval.csv",)


class RunWriteError(OSError):
    """The storage stopped a run (a full disk, a read-only place); the message says which file and what is intact."""


#: errors of the storage itself, which a message in words explains (other OS errors propagate as they are)
STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO, errno.EFBIG,
                  errno.ENOTDIR, errno.EISDIR, errno.ELOOP, errno.ENAMETOOLONG}


def why(error: OSError) -> str:
    """``error`` in words: its file and its reason (``No space left on device``)."""
    reason = error.strerror or str(error) or type(error).__name__
    return f"{error.filename}: {reason}" if error.filename else reason


# ---------------------------------------------------------------- ownership
def write_manifest(out: Path, kind: str = "train") -> None:
    """Mark ``out`` as a kakurega run directory of ``kind`` (before the run writes anything else)."""
    _check_kind(kind)
    text = json.dumps({"format": "kakurega-run", "format_version": 2, "kind": kind, "entries": list(RUN_KINDS[kind])},
                      indent=2)
    atomic_write_bytes(out / MANIFEST, text.encode())


def _check_kind(kind: str) -> None:
    if kind not in RUN_KINDS:
        raise ValueError(f"unknown kind of run {kind!r}; expected one of {', '.join(RUN_KINDS)}")


def check_replaceable(out: Path) -> None:
    """Raise :class:`ConfigError` unless ``out`` may be emptied by ``--overwrite``."""
    cwd = Path.cwd().resolve()
    home = Path.home().resolve()
    if out == Path(out.anchor):
        raise ConfigError(f"refusing to overwrite {out}: it is the file system root")
    if out == home:
        raise ConfigError(f"refusing to overwrite {out}: it is the home directory")
    if out == cwd or out in cwd.parents:
        raise ConfigError(f"refusing to overwrite {out}: it is the current directory or a parent of it")
    if not (out / MANIFEST).is_file():
        raise ConfigError(
            f"refusing to overwrite {out}: it holds no {MANIFEST}, so it was not written by a kakurega run "
            "(or by one older than the manifest); choose another output_dir or remove it yourself"
        )


def remove_run_files(out: Path, kind: str = "train") -> list[str]:
    """Delete what a run wrote in ``out``; returns what was left alone (``notes.txt``, ``plots/my_figure.png``).

    What a run wrote is what the kind of run its manifest names writes (:data:`RUN_KINDS`), among the entries the
    manifest lists; a manifest of format 1 names no kind: then the entries are those of ``kind`` (the run about to
    replace it). Inside a directory only the run's own files are deleted, by name, and the directory itself only
    once it is empty; a symbolic link, a special file, or a file where the run writes a directory (or the other way
    round) is left alone. Nothing outside ``out`` is ever touched.
    """
    from kakurega.envs.core.safe_load import load_file

    _check_kind(kind)
    manifest = load_file(out / MANIFEST, max_bytes=100_000, error=ConfigError)
    listed = manifest.get("entries") if isinstance(manifest, dict) else None
    if not isinstance(listed, list):
        raise ConfigError(f"{out / MANIFEST} lists no entries; refusing to delete anything (remove the run yourself)")
    recorded = manifest.get("kind")
    if recorded is not None and not (isinstance(recorded, str) and recorded in RUN_KINDS):
        raise ConfigError(f"{out / MANIFEST} names an unknown kind of run ({str(recorded)[:80]!r}); refusing to delete "
                          "anything (remove the run yourself)")
    own = RUN_KINDS[recorded if recorded is not None else kind]
    rules = {name: own[name] for name in own if name in listed}  # (format 1 listed ``tb`` too, which no run writes)
    left: list[str] = []
    _remove_own(out, rules, "", left, top=True)
    (out / MANIFEST).unlink(missing_ok=True)
    return sorted(left)


def _rule(rules: dict, name: str, top: bool):
    """The rule of ``rules`` that ``name`` (or the file whose temporary it is) falls under, or ``None``."""
    def match(candidate: str):
        for pattern, rule in rules.items():
            if candidate == pattern if top else re.fullmatch(pattern, candidate):
                return rule
        return None

    rule = match(name)
    if rule is None and name.startswith(".") and name.endswith(".tmp") and len(name) > 5:
        # ``.<name>.tmp``: the temporary of a file written atomically, or of a checkpoint being written
        rule = match(name[1:-4])
        return rule if rule in (FILE, WHOLE) else None
    return rule


def _remove_own(directory: Path, rules: dict, prefix: str, left: list, top: bool = False) -> None:
    """Delete the entries of ``directory`` that ``rules`` name (recursively); add the others to ``left``."""
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        if top and (entry.name == MANIFEST or entry.name.startswith(LOCK)):
            continue
        rule = FILE if top and entry.name == f".{MANIFEST}.tmp" else _rule(rules, entry.name, top)
        mode = entry.stat(follow_symlinks=False).st_mode
        if rule == FILE and stat.S_ISREG(mode):
            os.unlink(entry.path)
        elif rule == WHOLE and stat.S_ISDIR(mode):
            shutil.rmtree(entry.path)
        elif isinstance(rule, dict) and stat.S_ISDIR(mode):
            _remove_own(Path(entry.path), rule, f"{prefix}{entry.name}/", left)
            with contextlib.suppress(OSError):
                os.rmdir(entry.path)  # only once empty: another file in it is left alone (and named)
        else:
            left.append(prefix + entry.name)


def holds_files(out: Path) -> bool:
    """True when ``out`` exists and holds anything but a lock file."""
    return out.is_dir() and any(p.name != LOCK for p in out.iterdir())


def _owned(name: str) -> bool:
    """True for a top-level name a run reads, writes or deletes (its entries, their temporaries, manifest, lock)."""
    base = name.removeprefix(".").removesuffix(".tmp")
    return name.startswith(LOCK) or name in (MANIFEST, f".{MANIFEST}.tmp") or base in RUN_ENTRIES


def check_entries(out: Path) -> None:
    """Raise :class:`ConfigError` if an entry the run owns, at any depth, is a symbolic link or a special file.

    A run writes, appends to, cuts back and deletes these entries: through a link
    it would change files outside the run, and a FIFO would hang it.
    """
    if not out.is_dir():
        return
    pending = [entry for entry in os.scandir(out) if _owned(entry.name)]
    while pending:
        entry = pending.pop()
        if entry.is_symlink():
            raise ConfigError(
                f"{entry.path} is a symbolic link (to {os.readlink(entry.path)[:200]}); the entries of a run directory "
                "must be real files and directories, so that the run never writes or deletes outside it: "
                "remove the link (or replace it by a copy of what it points to) and try again"
            )
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            pending.extend(os.scandir(entry.path))
        elif not stat.S_ISREG(mode):
            raise ConfigError(
                f"{entry.path} is not a regular file (a FIFO, socket or device); a run directory holds only files "
                "and directories: remove it and try again"
            )
        elif entry.name in APPENDED and entry.stat(follow_symlinks=False).st_nlink > 1:
            raise ConfigError(
                f"{entry.path} is a hard link (the same file has another name, maybe outside the run); the run appends "
                "to it: replace it by a copy and try again"
            )


# --------------------------------------------------------------------- lock
def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


@contextlib.contextmanager
def _directory_mutex(directory: Path):
    """Hold an exclusive ``flock`` on ``directory`` for a moment (a no-op where flock does not exist)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the flock


class RunLock:
    """An exclusive lock on a run directory (``with RunLock(out): ...``)."""

    def __init__(self, out: Path):
        self.path = Path(out) / LOCK
        self.held = False

    def _holder(self) -> tuple[int | None, str]:
        try:
            pid_text, _, host = read_regular(self.path, 200).decode().partition("@")
            return int(pid_text), host.strip()
        except (OSError, ValueError):  # missing, unreadable, a link or a FIFO: nobody holds it
            return None, ""

    def acquire(self) -> None:
        """Take the lock or raise :class:`ConfigError` naming the process that holds it."""
        directory = self.path.parent
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"cannot create the run directory {directory}: {_blocked(directory, error)}; "
                              "choose an output_dir in a place you can write") from None
        try:
            if self._create():
                return
        except OSError as error:
            raise ConfigError(f"cannot write in the run directory {directory}: {why(error)}; "
                              "choose an output_dir in a place you can write") from None
        with _directory_mutex(self.path.parent):  # two processes never both take over one dead lock
            pid, host = self._holder()
            if pid is not None and (host != socket.gethostname() or _alive(pid)):
                raise ConfigError(
                    f"{self.path.parent} is in use by another kakurega run (process {pid} on {host or 'this host'}); "
                    f"wait for it to finish, or remove {self.path} if that process is gone"
                ) from None
            self.path.unlink(missing_ok=True)  # a dead process's lock (or an unreadable one): take it over
            if self._create():
                return
        raise ConfigError(f"could not lock {self.path.parent}: another process keeps taking the lock")

    def _create(self) -> bool:
        """Create the lock, complete with this process's PID, unless it exists (``os.link`` is atomic)."""
        tmp = self.path.with_name(f"{LOCK}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)  # a stale one (or a planted link: unlinking never touches its target)
        write_new(tmp, f"{os.getpid()}@{socket.gethostname()}\n".encode())
        try:
            os.link(tmp, self.path)
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)
        self.held = True
        return True

    def release(self) -> None:
        """Give the lock back (only if this process holds it)."""
        if self.held and self._holder()[0] == os.getpid():
            self.path.unlink(missing_ok=True)
        self.held = False

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()


@contextlib.contextmanager
def held(out: Path):
    """Hold the lock of run directory ``out`` for a whole job of several steps::

        with run_dir.held(out) as lock:
            train(config, lock=lock)   # the training uses the held lock: it neither takes nor gives it back
            ...                        # measuring, copying, plotting: still no other writer

    The lock is given back at the end; a directory this created (the lock creates it) and the job left empty is
    removed.
    """
    out = Path(out)
    created = not out.exists() and not out.is_symlink()
    lock = RunLock(out)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()  # only when empty


def check_held(lock: RunLock, out: Path) -> None:
    """Raise :class:`ConfigError` unless ``lock`` is held on run directory ``out`` (e.g. a config whose
    ``output_dir`` is not the directory the job locked)."""
    if not lock.held:
        raise ConfigError(f"the lock of {lock.path.parent} is not held: the run in {out} cannot use it")
    if lock.path.parent.resolve() != Path(out).resolve():
        raise ConfigError(f"output_dir {out} is not the run directory this job holds ({lock.path.parent}); "
                          "leave output_dir to the job")


def _blocked(directory: Path, error: OSError) -> str:
    """Why ``directory`` cannot be created: a file in its way, or ``error`` in words."""
    for parent in (directory, *directory.parents):
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                return f"{parent} is a file, not a directory"
            break
    return why(error)


# ------------------------------------------------------------ atomic writes
#: the mode files are created with: the umask decides (0644 under 022, group-writable under 002, private under 077)
FILE_MODE = 0o666


def open_new(path: Path, mode: str = "wb", **options):
    """A new file at ``path`` opened for writing (``mode`` and ``options`` as :func:`open`'s; bytes by default):
    created here (``O_EXCL``), so a link or a FIFO planted at the name is never followed or opened (a name already
    taken raises :class:`FileExistsError`)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return open(os.open(path, flags, FILE_MODE), mode, **options)


def open_temporary(path: Path):
    """:func:`open_new` at the temporary name ``path``, after removing what stands there (a stale temporary file,
    or a link planted at the name: removed, never followed)."""
    path.unlink(missing_ok=True)
    return open_new(path)


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (never through a link, never over an existing file) holding ``data``, fsynced."""
    handle = open_new(path)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:  # e.g. a full disk; a failed write names no file: name it
        path.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror, str(path)) from None
    except BaseException:  # Ctrl-C (often in the fsync): no partial file is left either
        path.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never a mix.

    The data goes to a new temporary file, renamed over ``path``: a link at
    either name is replaced, never followed (nor a FIFO opened); a directory at
    ``path`` raises :class:`IsADirectoryError` naming it; a failed write leaves
    no temporary file behind.
    """
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file; remove or rename it", str(path))
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    write_new(tmp, data)
    try:
        os.replace(tmp, path)
    except OSError:  # e.g. a directory at ``path``: the temporary file is not left behind
        tmp.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The first ``max_bytes`` of regular file ``path``; a link or a FIFO raises :class:`OSError` without blocking."""
    descriptor, _ = open_regular(path, follow_links=False)
    try:
        return read_at_most(descriptor, max_bytes)
    finally:
        os.close(descriptor)


def fsync_directory(path: Path) -> None:
    """Make a rename inside ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----------------------------------------------------------------- cut back
def cut_csv(path: Path, step_column: str, step: int) -> int:
    """Drop the rows of CSV ``path`` whose ``step_column`` exceeds ``step``, and rows cut short; returns rows dropped.

    A row with no step (e.g. the behaviour-cloning row before training) is kept.
    The file is read row by row (its size does not bound memory) and replaced
    only when a row was dropped; a file that is not UTF-8 CSV raises
    :class:`ConfigError` naming it.
    """
    if not path.is_file():
        return 0
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    dropped, done = 0, False
    try:
        with _csv_rows(path) as rows:
            header = next(rows, None)
            if not header or step_column not in header:
                return 0
            column = header.index(step_column)
            with open_new(tmp, "w", newline="", encoding="utf-8") as target:
                writer = csv.writer(target, lineterminator="\n")
                writer.writerow(header)
                for row in rows:
                    if _keep_row(row, len(header), column, step):
                        writer.writerow(row)
                    else:
                        dropped += 1
                target.flush()
                os.fsync(target.fileno())
            done = True
    finally:
        if not (done and dropped):
            tmp.unlink(missing_ok=True)
    if not dropped:
        return 0
    os.replace(tmp, path)
    fsync_directory(path.parent)
    return dropped


@contextlib.contextmanager
def _csv_rows(path: Path):
    """The rows of the run's CSV log ``path``, read one by one (its size does not bound memory); a file that is not
    UTF-8 CSV raises :class:`ConfigError` naming it, wherever the reading stops."""
    rows = None
    try:
        with open(path, newline="", encoding="utf-8") as source:
            rows = csv.reader(source)
            yield rows
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not UTF-8 text (it holds the byte 0x{error.object[error.start]:02x}); a run writes its CSV logs "
            "as UTF-8, so something else changed this file: repair or remove it, then resume"
        ) from None
    except csv.Error as error:
        line = f", line {rows.line_num}" if rows is not None else ""
        raise ConfigError(f"{path}: not a readable CSV file ({str(error)[:200]}{line}); "
                          "repair or remove it, then resume") from None


def _keep_row(row: list, width: int, column: int, step: int) -> bool:
    """True for a whole row whose step is empty or at most ``step`` (a row cut short or garbled is dropped)."""
    if len(row) != width:
        return False  # cut short by a crash
    try:
        return row[column] == "" or float(row[column]) <= step
    except ValueError:
        return False  # a garbled row


def last_step(path: Path, step_column: str) -> int:
    """The largest ``step_column`` of CSV ``path``'s whole rows (0 when it has none, or there is no file): where
    a run's schedule of rows (eval.csv's evaluations) stands. Read row by row, as :func:`cut_csv` reads it."""
    if not path.is_file():
        return 0
    last = 0
    with _csv_rows(path) as rows:
        header = next(rows, None)
        if not header or step_column not in header:
            return 0
        column = header.index(step_column)
        for row in rows:
            if len(row) == len(header):
                with contextlib.suppress(ValueError, OverflowError):
                    last = max(last, int(float(row[column])))
    return last


def append_csv_row(path: Path, header: list, row: list) -> None:
    """Append ``row`` to CSV ``path`` (``header`` first when the file is new), never through a link or into a FIFO."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with open(os.open(path, flags, FILE_MODE), "a", newline="", encoding="utf-8") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise ConfigError(f"{path} is not a plain file of the run (a FIFO, device or hard link); remove it")
        writer = csv.writer(handle)
        if info.st_size == 0:
            writer.writerow(header)
        writer.writerow(row)


def cut_events(path: Path, step: int) -> int:
    """Drop the TensorBoard events of ``path`` logged after ``step``, and a record cut short; returns events dropped.

    An event file is a sequence of TFRecords (length, its checksum, the data,
    its checksum); the records kept are copied byte for byte, so their
    checksums stay valid. Events without a step (the file version) are kept.
    """
    from tensorboard.compat.proto.event_pb2 import Event

    data = path.read_bytes()
    kept, dropped, at = [], 0, 0
    while at < len(data):
        if at + 12 > len(data):
            dropped += 1  # a header cut short by a crash
            break
        (length,) = struct.unpack_from("<Q", data, at)
        end = at + 12 + length + 4
        if end > len(data):
            dropped += 1  # a record cut short by a crash
            break
        try:
            event_step = Event.FromString(data[at + 12 : at + 12 + length]).step
        except Exception:  # noqa: BLE001 - a garbled record is dropped, whatever protobuf says
            event_step = step + 1
        if event_step <= step:
            kept.append(data[at:end])
        else:
            dropped += 1
        at = end
    if dropped:
        atomic_write_bytes(path, b"".join(kept))
    return dropped


def cut_back(out: Path, step: int) -> dict:
    """Remove everything the run wrote after ``step``: CSV rows, TensorBoard events, league snapshots, newer checkpoints."""
    dropped = {"progress rows": 0, "events": 0, "eval rows": 0, "snapshots": 0}
    for progress in sorted((out / "logs").glob("part*/progress.csv")):
        dropped["progress rows"] += cut_csv(progress, "time/total_timesteps", step)
    for events in sorted((out / "logs").glob("part*/events.out.tfevents.*")):
        dropped["events"] += cut_events(events, step)
    dropped["eval rows"] = cut_csv(out / "eval.csv", "timesteps", step)
    for snapshot in (out / "league").glob("snapshot_*.safetensors"):
        if _step_of(snapshot.stem) > step:
            snapshot.unlink()
            dropped["snapshots"] += 1
    for stray in (out / "league").glob("*.tmp"):
        stray.unlink()
    return dropped


def snapshot_pool(directory: Path, step: int, size: int | None) -> list[str]:
    """The league's pool at ``step``: the newest ``size`` (None: all) snapshot files of ``directory`` taken at or
    before it, oldest first."""
    taken = sorted((_step_of(p.stem), str(p)) for p in directory.glob("snapshot_*.safetensors"))
    pool = [path for at, path in taken if 0 <= at <= step]
    return pool[-size:] if size else pool


def prune_snapshots(directory: Path, size: int, *steps: int) -> None:
    """Delete the snapshots taken at or before the latest of ``steps`` that are in none of their pools of ``size``:
    ``steps`` are the points a run may go back to (its step, its last checkpoint, a Ctrl-C's rollout start), so a
    resumed run's pool is the one it had there. Later snapshots are left (a resume cuts them back: :func:`cut_back`)."""
    keep = {path for step in steps for path in snapshot_pool(directory, step, size)}
    for path in snapshot_pool(directory, max(steps), None):
        if path not in keep:
            Path(path).unlink()


def _step_of(stem: str) -> int:
    _, _, number = stem.rpartition("_")
    return int(number) if number.isdigit() else -1
