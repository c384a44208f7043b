"""The run directory: what a run owns, who writes it, and cutting it back to a checkpoint.

Three guarantees, each in one place:

- **Nothing is deleted that a run did not create.** A run writes a manifest
  (:data:`MANIFEST`) before anything else. ``--overwrite`` removes only the
  entries the manifest lists *and* a run can write (:data:`RUN_ENTRIES`), and
  refuses a directory without a manifest, the current directory, any parent
  of it, the home directory and the file system root (:func:`check_replaceable`).
- **One writer at a time.** :class:`RunLock` holds :data:`LOCK` (the owner's
  PID and host); a second writer is refused with the holder's PID, and the
  lock of a process that no longer runs is taken over.
- **Resume as if the run never died.** :func:`cut_back` drops every CSV row,
  league snapshot and checkpoint written after the checkpoint a run resumes
  from, so the resumed run writes them again exactly once.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import socket
import struct
from pathlib import Path

from kakurega.agents.training.config import ConfigError

MANIFEST = ".kakurega-run.json"
LOCK = ".kakurega-lock"
#: every top-level entry a run (train, quickstart or exploit) may write; nothing else is ever deleted
RUN_ENTRIES = (
    "config.yaml", "policy.safetensors", "checkpoints", "league", "logs", "tb", "eval.csv", "evaluation",
    "plots", "summary.json", "tournament", "exploit.json", "exploit.txt",
)


# ---------------------------------------------------------------- ownership
def write_manifest(out: Path) -> None:
    """Mark ``out`` as a kakurega run directory (before the run writes anything else)."""
    text = json.dumps({"format": "kakurega-run", "format_version": 1, "entries": list(RUN_ENTRIES)}, indent=2)
    atomic_write_bytes(out / MANIFEST, text.encode())


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


def remove_run_files(out: Path) -> list[str]:
    """Delete what a run wrote in ``out`` (the manifest's entries a run can write); returns what was left alone."""
    from kakurega.envs.core.safe_load import load_file

    manifest = load_file(out / MANIFEST, max_bytes=100_000, error=ConfigError)
    listed = manifest.get("entries") if isinstance(manifest, dict) else None
    if not isinstance(listed, list):
        raise ConfigError(f"{out / MANIFEST} lists no entries; refusing to delete anything (remove the run yourself)")
    owned = [name for name in RUN_ENTRIES if name in listed]
    for name in owned:
        path = out / name
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
    (out / MANIFEST).unlink(missing_ok=True)
    return sorted(p.name for p in out.iterdir() if p.name != LOCK)


def holds_files(out: Path) -> bool:
    """True when ``out`` exists and holds anything but a lock file."""
    return out.is_dir() and any(p.name != LOCK for p in out.iterdir())


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
            pid_text, _, host = self.path.read_text().partition("@")
            return int(pid_text), host.strip()
        except (OSError, ValueError):
            return None, ""

    def acquire(self) -> None:
        """Take the lock or raise :class:`ConfigError` naming the process that holds it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self._create():
            return
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
        tmp.write_text(f"{os.getpid()}@{socket.gethostname()}\n")
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


# ------------------------------------------------------------ atomic writes
def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old file or the new one, never a mix."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_directory(path.parent)


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
    """
    if not path.is_file():
        return 0
    with open(path, newline="") as handle:
        text = handle.read()
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or step_column not in rows[0]:
        return 0
    column = rows[0].index(step_column)
    kept = [rows[0]]
    for row in rows[1:]:
        if len(row) != len(rows[0]):
            continue  # cut short by a crash
        try:
            if row[column] == "" or float(row[column]) <= step:
                kept.append(row)
        except ValueError:
            pass  # a garbled row
    dropped = len(rows) - len(kept)
    if dropped:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(kept)
        atomic_write_bytes(path, buffer.getvalue().encode())
    return dropped


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


def _step_of(stem: str) -> int:
    _, _, number = stem.rpartition("_")
    return int(number) if number.isdigit() else -1
