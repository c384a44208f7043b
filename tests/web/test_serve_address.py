"""``kakurega serve`` shows its address once it listens: the real port for ``--port 0``, none when the bind fails."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import urllib.request

import pytest

pytest.importorskip("uvicorn")

WAIT_SECONDS = 60
#: the exit status when the server could not start (uvicorn's; scripts/serve.py)
STARTUP_FAILURE = 3
SERVE = [sys.executable, "-m", "kakurega.scripts.cli", "serve", "--quiet"]


def first_line(process: subprocess.Popen, seconds: float) -> str:
    """The first line ``process`` prints ("" if none within ``seconds``)."""
    lines = []
    reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    return lines[0] if lines else ""


def test_any_free_port_is_shown_as_the_port_it_got():
    process = subprocess.Popen([*SERVE, "--port", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = first_line(process, WAIT_SECONDS)
        found = re.fullmatch(r"kakurega serve: open http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)\n", line)
        assert found, (line, process.poll())
        port = int(found.group(1))
        assert port != 0
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/envs", timeout=WAIT_SECONDS) as reply:
            assert reply.status == 200 and b'"envs"' in reply.read()
    finally:
        process.terminate()
        process.communicate(timeout=WAIT_SECONDS)


def test_a_port_in_use_shows_no_address_and_fails_in_one_line():
    with socket.socket() as taken:  # someone else's server on that port
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([*SERVE, "--port", str(port)], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=WAIT_SECONDS)
    assert done.returncode == STARTUP_FAILURE, done
    assert "http://" not in done.stdout and "open" not in done.stdout, done.stdout
    errors = done.stderr.strip().splitlines()
    assert len(errors) == 1 and "address already in use" in errors[0] and str(port) in errors[0], done.stderr


def test_a_failed_start_exits_with_status_3_whatever_uvicorn_raises():
    """uvicorn before 0.50 (the web extra allows 0.29) ends a failed bind with ``sys.exit(1)`` inside its startup
    instead of returning: the command still exits with 3 and announces no address. (In a process of its own:
    uvicorn's logging setup would outlive the test.)"""
    code = ("import sys, uvicorn\n"
            "async def old_uvicorn_startup(self, sockets=None):\n"
            "    raise SystemExit(1)\n"
            "uvicorn.Server.startup = old_uvicorn_startup\n"
            "from kakurega.scripts.serve import build_parser, run\n"
            "sys.exit(run(build_parser().parse_args(['--port', '0', '--quiet'])))\n")
    done = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=WAIT_SECONDS)
    assert done.returncode == STARTUP_FAILURE, done
    assert "http://" not in done.stdout, done.stdout
