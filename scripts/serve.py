"""``kakurega serve``: the local web app (play by clicking the table, watch bots, open game records).

    kakurega serve                               http://127.0.0.1:8765/
    kakurega serve --port 9000 --record-dir runs/records
    kakurega serve --data-dir my_decks --move-seconds 5
    kakurega serve --host 0.0.0.0 --allow-host games.example.org

The server listens on 127.0.0.1 unless ``--host`` says otherwise; see
:mod:`kakurega.scripts.web.app` for the protocol and docs/web.md for the page.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

DEFAULT_PORT = 8765
#: default and bounds of --move-seconds (kept here so that --help works without the web extra)
MOVE_SECONDS = 10.0
MIN_MOVE_SECONDS, MAX_MOVE_SECONDS = 0.1, 600.0
#: default and bounds of --max-records: the game records one server run writes into --record-dir (a record is a
#: few KB: the default bounds the disk a busy or hostile run of games can fill to tens of MB)
MAX_RECORDS, MAX_RECORDS_LIMIT = 10_000, 1_000_000
#: after Ctrl-C, the longest the server waits for open requests to finish
SHUTDOWN_SECONDS = 5
#: connections waiting to be accepted (the listen backlog; asyncio also accepts at most this many at a time, so a
#: burst cannot open many more files than the cap on open connections before the surplus is refused)
ACCEPT_BACKLOG = 128
#: the exit status when the server could not start (uvicorn's: a port in use, for one)
STARTUP_FAILURE = 3
#: a name --allow-host takes (a DNS name, as a Host header carries it: no port)
HOST_NAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?")


def add_move_seconds_argument(parser: argparse.ArgumentParser) -> None:
    """``--move-seconds``, a bot's time per move: the same option in ``kakurega serve`` and ``kakurega play``."""
    parser.add_argument("--move-seconds", type=float, default=MOVE_SECONDS, metavar="S",
                        help=f"the longest a bot thinks about one move, {MIN_MOVE_SECONDS:g} to "
                             f"{MAX_MOVE_SECONDS:g} (default {MOVE_SECONDS:g}); a search then plays its best move so far")


def move_seconds_error(value: float) -> str | None:
    """What is wrong with a ``--move-seconds`` value, in words; None when it is within the bounds (NaN is not)."""
    if MIN_MOVE_SECONDS <= value <= MAX_MOVE_SECONDS:
        return None
    return f"--move-seconds must be from {MIN_MOVE_SECONDS:g} to {MAX_MOVE_SECONDS:g}, got {value:g}"


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="kakurega serve")
    parser.description = (
        "Start the local web app: pick a game, its options and the agents on the other seats (random, heuristic, "
        "pretrained, policy:PATH, ismcts:...), play by clicking the pictured table, watch bots play each other at "
        "a chosen speed, or open a game record to step through it. Needs the web extra: "
        "pip install 'kakurega[web]'."
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default 127.0.0.1: this machine only; 0.0.0.0: everyone who "
                             "can reach this machine may start games and run agents, plain HTTP, no login: see "
                             "docs/web.md)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests that name the server NAME (a name it is reached by: a DNS name, "
                             "a proxy's); repeatable. IP addresses, localhost and, beyond loopback, this machine's "
                             "own names are always answered; any other name is refused (400), so that a web page "
                             "elsewhere cannot reach the app by DNS rebinding")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    parser.add_argument("--record-dir", default=None, metavar="DIR",
                        help="write the record of every finished game into DIR (see `kakurega replay`)")
    parser.add_argument("--max-records", type=int, default=MAX_RECORDS, metavar="N",
                        help=f"with --record-dir: write at most N records in this run of the server, 1 to "
                             f"{MAX_RECORDS_LIMIT:,} (default {MAX_RECORDS:,}); later games end with their events "
                             "saying that no record was written")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="offer the data files (.yaml, .yml, .json) directly inside DIR to the page's file "
                             "options (deck, shape, map, booklet) by name, beside the shipped ones; a request "
                             "never gives a path")
    add_move_seconds_argument(parser)
    from kakurega.scripts.evaluate import add_import_argument

    add_import_argument(parser, "the page")
    parser.add_argument("--quiet", action="store_true", help="no request log")
    return parser


def run(args) -> int:
    try:
        import uvicorn

        from kakurega.scripts.web.app import MAX_MESSAGE_BYTES, SEND_SECONDS, create_app, is_loopback
        from kakurega.scripts.web.connections import announcing_server, bounded_protocol, bounded_ws_protocol
    except ImportError as error:
        print(f"error: kakurega serve needs the web extra ({error}); install it with: pip install 'kakurega[web]'",
              file=sys.stderr)
        return 2
    if not 0 <= args.port < 65536:
        print(f"error: --port must be in 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if problem := move_seconds_error(args.move_seconds):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not 1 <= args.max_records <= MAX_RECORDS_LIMIT:
        print(f"error: --max-records must be from 1 to {MAX_RECORDS_LIMIT:,}, got {args.max_records}", file=sys.stderr)
        return 2
    from kakurega.scripts.destination import DestinationError, writable_dir

    try:  # checked now, not when the first game ends
        if args.record_dir is not None:
            writable_dir(args.record_dir, "--record-dir")
        if args.data_dir is not None and not os.path.isdir(args.data_dir):
            raise DestinationError(f"--data-dir {args.data_dir}: not a directory")
    except DestinationError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:  # what the bind would refuse deep inside uvicorn (a label over 63 characters, an empty name)
        if not args.host or len(args.host) > 253:
            raise UnicodeError("a host name is 1 to 253 characters")
        args.host.encode("idna")
    except UnicodeError as error:
        from kakurega.envs.core.safe_load import short_repr

        print(f"error: --host {short_repr(args.host, 60)}: not a host name or address ({error}); e.g. 127.0.0.1 "
              "or 0.0.0.0", file=sys.stderr)
        return 2
    for name in args.allow_host:
        if not HOST_NAME.fullmatch(name):
            from kakurega.envs.core.safe_load import short_repr

            print(f"error: --allow-host {short_repr(name, 60)}: not a host name (letters, digits, '-', '_' and "
                  "dots, without a port); e.g. --allow-host games.example.org", file=sys.stderr)
            return 2
    if not is_loopback(args.host):
        print(f"warning: listening on {args.host}: anyone who can reach this address can use the app "
              "(and run any agent spec, policy files included; plain HTTP, no login); a game's seats stay "
              "behind their links", file=sys.stderr)
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(args.imports)  # the user's agent kinds (a SystemExit in words when one does not import)
    app = create_app(record_dir=args.record_dir, host=args.host, data_dir=args.data_dir,
                     move_seconds=args.move_seconds, allow_hosts=args.allow_host, max_records=args.max_records)
    shown = f"[{args.host}]" if ":" in args.host else args.host

    def announce(port: int) -> None:  # once bound: the real port (--port 0), and no address when the bind fails
        print(f"kakurega serve: open http://{shown}:{port}/ (Ctrl-C stops)", flush=True)

    # bounded_protocol: uvicorn's h11 protocol with a deadline for request heads and a cap on open connections
    # (uvicorn alone holds a half-sent request for ever), and a websocket one that drops a page that stopped reading;
    # the limits are read now (docs/web.md)
    protocol = bounded_protocol()
    config = uvicorn.Config(app, host=args.host, port=args.port, ws_max_size=MAX_MESSAGE_BYTES + 1024, http=protocol,
                            ws=bounded_ws_protocol(SEND_SECONDS),
                            backlog=ACCEPT_BACKLOG, log_level="warning" if args.quiet else "info",
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    server = announcing_server(config, announce)
    try:  # what uvicorn.run does, with the address printed once the socket is bound
        server.run()
    except KeyboardInterrupt:
        pass
    except SystemExit:  # uvicorn before 0.50 exits with status 1 on a failed bind, after its one-line error
        if server.started:
            raise
    if not server.started:  # uvicorn.run's exit status when it could not start (a bind failure exits with it too)
        return STARTUP_FAILURE
    return 0


def main(argv=None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
