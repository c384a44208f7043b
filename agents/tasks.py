"""Work split into items, run in this process or as Ray tasks on a cluster.

Tournaments (``kakurega evaluate``), the expert-iteration data step
(``pretrain.*``) and ``kakurega exploit`` cut their games into work items
whose results are a pure function of the item: every task rebuilds its env
and agents from their names (agent spec strings, policy files read from their
path on the node that runs it) and seeds them from the item. The results
are collected in the items' order, so a run on Ray gives what the same run
gives in one process.

Ray is reached at ``address``:

- ``None``: a Ray started here for the run (``cpus`` CPUs, default all) and
  shut down after it;
- ``"auto"``: the Ray cluster this machine already belongs to (``ray start``);
- ``"HOST:PORT"``: a cluster's head (its GCS port, 6379 by default);
- ``"ray://HOST:PORT"``: a head through Ray Client (port 10001 by default).

Only what :class:`RayTasks` started is shut down: a Ray already initialised
in this process (a test's cluster, an enclosing run) is used and left running.
Every node must have the same kakurega installed; nothing is pickled from a
file, and no policy object travels: a task receives names, seeds and options.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator

BACKENDS = ("local", "ray")
_HOST_PORT = re.compile(r"^(ray://)?[A-Za-z0-9._\-\[\]:]*[A-Za-z0-9\]]:\d{1,5}$")


def check_address(address: str | None) -> str | None:
    """``address`` if it is one of the accepted forms (module docstring), else a ``ValueError`` in words."""
    if address is None or address == "auto":
        return address
    text = str(address).strip()
    if _HOST_PORT.match(text) and 0 < int(text.rsplit(":", 1)[1]) < 65536:
        return text
    raise ValueError(f"Ray address {address!r}: expected auto, HOST:PORT (e.g. 10.0.0.5:6379) or ray://HOST:PORT "
                     "(e.g. ray://10.0.0.5:10001)")


def warn(message: str) -> None:
    """``message`` on standard error, as a warning."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """A ``ValueError`` at once when nothing answers at ``address`` (Ray would retry for minutes)."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ValueError(f"nothing answers at {address} ({error}); is the Ray head running there "
                         "(ray start --head) and the port open?") from None


#: tries at a Ray Client connection whose server for this client died as it started: Ray's proxier forks that
#: server from its multithreaded gRPC process, and a few per cent of the forked servers crash at once (Ray issue
#: ray-project/ray#63202); the next try forks a new one. Any other failure is not tried again.
RAY_CLIENT_TRIES = 3
#: the words Ray Client's failure carries when the server for this client died as it started
RAY_CLIENT_SERVER_FAILED = "Starting Ray client server failed"
#: the words of the other start-up race seen: the server's set-up met a process exiting (psutil's ZombieProcess)
RAY_CLIENT_SERVER_ZOMBIE = "psutil.ZombieProcess"


def init_ray(address: str | None, say: Callable[[str], None] | None = None, **options) -> None:
    """``ray.init(address=address, **options)``; a Ray Client address (``ray://``) whose server for this client
    died as it started is tried again, up to :data:`RAY_CLIENT_TRIES` tries in all (each retry said through
    ``say``). The last failure, and any other, is raised as Ray raised it."""
    import random

    import ray

    for attempt in range(1, RAY_CLIENT_TRIES + 1):
        state = random.getstate()  # ray.init draws from Python's global generator: leave a seeded run's as it was
        try:
            ray.init(address=address, **options)
            return
        except ConnectionError as error:
            client = str(address or "").startswith("ray://")
            race = RAY_CLIENT_SERVER_FAILED in str(error) or (
                "Initialization failure from server" in str(error) and RAY_CLIENT_SERVER_ZOMBIE in str(error))
            if not client or not race or attempt == RAY_CLIENT_TRIES:
                raise
            if say is not None:
                say(f"Ray Client at {address}: the cluster's server for this connection died as it started "
                     f"(a known Ray race, ray-project/ray#63202); trying again ({attempt + 1} of {RAY_CLIENT_TRIES})")
            ray.shutdown()  # whatever the failed try left in this process
        finally:
            random.setstate(state)


class LocalTasks:
    """Runs every item in this process, in order."""

    backend = "local"

    def __init__(self):
        self.nodes: list[str] = []

    def __enter__(self) -> LocalTasks:
        return self

    def __exit__(self, *exc) -> None:
        return None

    @property
    def cpus(self) -> int:
        return 1

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        """``fn(item)`` for every item, in order."""
        for item in items:
            yield fn(item)


def _call(fn: Callable, item):
    """The body of every Ray task: the node it ran on, and ``fn(item)``."""
    import ray

    return ray.get_runtime_context().get_node_id(), fn(item)


def usable_cpus() -> int:
    """The CPUs this process may run on: its CPU affinity where the system tells it (a container's or ``taskset``'s
    share of the machine), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity on this system
        return os.cpu_count() or 1


class RayTasks:
    """Runs every item as one Ray task (1 CPU each, spread over the nodes); results come back in the items' order.

    Use as a context manager: it connects on entry and, if it started Ray,
    shuts it down on exit, whatever happened. ``nodes`` lists the node id of
    every task run so far.
    """

    backend = "ray"

    def __init__(self, address: str | None = None, cpus: int | None = None):
        self.address = check_address(address)
        if cpus is not None and (not isinstance(cpus, int) or cpus < 1):
            raise ValueError(f"cpus: expected a positive number of CPUs for a local Ray, got {cpus!r}")
        if cpus is not None and self.address is not None:
            raise ValueError(f"cpus={cpus} sizes a Ray started here; the cluster at {self.address} has its own CPUs")
        machine = usable_cpus()
        if cpus is not None and cpus > machine:  # Ray runs a worker process (about 100 MB) for each CPU it may use
            raise ValueError(f"cpus={cpus}: a Ray started here may use at most the {machine} CPUs of this machine "
                             "(it starts a worker process for each CPU it is given)")
        self.requested_cpus = cpus
        self.nodes: list[str] = []
        self._started = False

    def __enter__(self) -> RayTasks:
        try:
            import ray
        except ImportError as error:
            raise ValueError(f"the ray backend needs Ray ({error}); install it with: pip install 'kakurega[rllib]'") from None
        if not ray.is_initialized():
            if self.address not in (None, "auto"):
                _check_reachable(self.address)
            # "local": a new Ray of our own, never one found running on this machine (Ray would join it)
            options = {} if self.address else {"num_cpus": self.requested_cpus}
            try:
                init_ray(self.address or "local", warn, include_dashboard=False, log_to_driver=False, **options)
            except (ConnectionError, RuntimeError) as error:
                raise ValueError(f"cannot reach the Ray cluster at {self.address}: {error}") from None
            self._started = True
        return self

    def __exit__(self, *exc) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    @property
    def cpus(self) -> int:
        """The CPUs of the cluster (at least 1)."""
        import ray

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        """``fn(item)`` for every item as Ray tasks, yielded in the items' order.

        An exception raised in a task is raised here as itself (its Ray
        wrapper dropped). Tasks left running when the caller stops reading
        are not cancelled (cancelling tasks that are just finishing can crash
        Ray 2.60's driver); they end on their own, or with the driver.
        """
        import ray
        from ray.exceptions import RayTaskError

        # SPREAD: games are CPU-bound, so every node takes its share at once (Ray's default fills the
        # driver's node first while the others start their workers)
        remote = ray.remote(num_cpus=1, max_retries=0, scheduling_strategy="SPREAD")(_call)
        for ref in [remote.remote(fn, item) for item in items]:
            try:
                node, result = ray.get(ref)
            except RayTaskError as error:
                cause = getattr(error, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise
            self.nodes.append(node)
            yield result


def task_runner(backend: str = "local", address: str | None = None, cpus: int | None = None):
    """A :class:`LocalTasks` or :class:`RayTasks` (use it with ``with``); a ``ValueError`` naming a bad backend."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "local":
        if address is not None or cpus is not None:
            raise ValueError("--address and --cpus go with --backend ray; the local backend plays in this process")
        return LocalTasks()
    return RayTasks(address, cpus)


def chunks(items: list, parts: int) -> list[list]:
    """``items`` cut into at most ``parts`` consecutive runs of nearly equal length (none empty).

    >>> chunks([1, 2, 3, 4, 5], 2)
    [[1, 2, 3], [4, 5]]
    """
    parts = max(1, min(parts, len(items)))
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for k in range(parts):
        end = start + size + (k < extra)
        out.append(items[start:end])
        start = end
    return out


__all__ = ["BACKENDS", "LocalTasks", "RayTasks", "check_address", "chunks", "task_runner"]
