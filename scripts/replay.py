"""``kakurega replay FILE``: watch a recorded game in the terminal, or export it as an animated GIF.

    kakurega replay game.json                      every position, spectator view
    kakurega replay game.json --view player_1      as player_1 saw it (only what player_1 knew then)
    kakurega replay game.json --step               one move per Enter (q quits)
    kakurega replay game.json --gif game.gif --fps 4 --view spectator

Every move is checked while it is replayed (its agent's turn, legal), and so
is the ending: the replayed returns must be the recorded ones. A player's
view shows that player's render, and every move in the words that view may
know: the whole move where it is public, its public part where it is not
(see :func:`kakurega.agents.record.describe_move`).
"""

from __future__ import annotations

import argparse
import sys

from kakurega.envs.core.safe_load import short_repr

#: the most frames a GIF export takes (one per position), so a runaway record cannot fill the disk
MAX_GIF_FRAMES = 5_000
#: the frame rates a GIF can show (its delays are 20 ms to 655 s; the last frame is shown three times as long)
MIN_FPS, MAX_FPS, DEFAULT_FPS = 0.01, 50.0, 2.0
#: a caption line's height in pixels (its font is 8 px smaller), and the most lines a caption band holds (a longer
#: caption ends with an ellipsis); the band is as tall as the game's longest caption, the same on every frame
CAPTION_LINE = 22
MAX_CAPTION_LINES = 8


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(prog="kakurega replay")
    parser.description = (
        "Replay a game record (written by `kakurega play --record`, `kakurega evaluate --record-dir` or "
        "`kakurega serve --record-dir`; format in docs/web.md): print every position in the terminal, step "
        "through it, or export an animated GIF. Every move is checked, and so are the final returns."
    )
    parser.add_argument("record", metavar="FILE", help="a game record (JSON)")
    parser.add_argument("--view", default="spectator",
                        help="whose view: spectator (public information only; default), an agent name such as "
                             "player_1, or a seat number")
    parser.add_argument("--step", action="store_true", help="wait for Enter after each move (q quits)")
    parser.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF of the chosen view")
    parser.add_argument("--fps", type=float, default=None,
                        help=f"GIF frames per second, {MIN_FPS:g} to {MAX_FPS:g} (default 2; with --gif only)")
    parser.add_argument("--quiet", action="store_true", help="no progress output while a GIF is drawn")
    from kakurega.scripts.evaluate import add_import_argument

    add_import_argument(parser, "FILE's env")
    return parser


def run(args) -> int:
    from kakurega.agents.record import load_record
    from kakurega.scripts.evaluate import import_agent_modules

    import_agent_modules(getattr(args, "imports", None))
    try:
        _check_arguments(args)
        record = load_record(args.record)
        if args.gif:
            return _export_gif(record, args)
        return _show_in_terminal(record, args)
    except ValueError as error:  # a bad record, view, --fps or --gif destination
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (replay FILE | head): the command line's quiet exit
        raise
    except OSError as error:  # e.g. the disk filled while the GIF was written (nothing half-written is left)
        print(f"error: {error.filename or args.gif}: cannot write ({error.strerror or error})", file=sys.stderr)
        return 2


def _check_arguments(args) -> None:
    """Refuse options that would be ignored: a GIF's frame rate without a GIF, stepping through a file being
    written, a GIF under another kind's name."""
    if args.gif is None:
        if args.fps is not None:
            raise ValueError("--fps sets the GIF's frames per second: give --gif OUT.gif too")
        return
    if args.step:
        raise ValueError("--step waits for Enter in the terminal replay; --gif writes a file: give one of them")
    if not args.gif.lower().endswith(".gif"):
        raise ValueError(f"--gif {short_repr(args.gif)}: the file is written as an animated GIF; give a name "
                         "ending in .gif")
    if args.fps is None:
        args.fps = DEFAULT_FPS


def _header(record, source: str) -> str:
    seats = ", ".join(f"{agent}: {spec}" for agent, spec in record.agents.items())
    options = ", ".join(f"{k}={v!r}" for k, v in record.options.items()) or "default options"
    return f"{source}: {record.env} ({options}), seed {record.seed}, {len(record.moves)} moves. Seats: {seats}"


def _result(replayer) -> str:
    from kakurega.agents.outcome import classify_outcome, rules_winners

    raw, record = replayer.raw, replayer.record
    returns = [record.returns[agent] for agent in raw.possible_agents]
    winners = rules_winners(raw.game, raw.game_state)
    lines = [f"Game over ({record.end}) after {len(record.moves)} moves; the replayed returns match the record:"]
    for seat, agent in enumerate(raw.possible_agents):
        lines.append(f"  {agent} ({record.agents[agent]}): {returns[seat]:+g} "
                     f"({classify_outcome(returns, seat, winners)})")
    return "\n".join(lines)


def _show_in_terminal(record, args) -> int:
    from kakurega.agents.record import Replayer, describe_move, describe_opening, parse_view
    from kakurega.envs.core.text_layout import terminal_width, wrap

    replayer = Replayer(record)
    raw = replayer.raw
    view = parse_view(raw, args.view)
    width = terminal_width()  # a terminal's columns (blocks stacked, prose wrapped); None when printed to a file

    def say(text: str) -> None:  # lines of prose, each wrapped at the width
        print("\n".join(part for line in text.split("\n") for part in wrap(line, width)))

    say(_header(record, args.record))
    say(f"view: {view or 'spectator (public information only)'}; the rules: kakurega rules {record.env}")
    total = len(record.moves)
    say(f"\n--- the deal ({raw.agent_selection} to move)")
    for line in describe_opening(raw, view):
        say(f"- {line}")
    print(raw.render_text(view, width=width))
    while replayer.next_move() is not None:
        if args.step and not _wait():
            print("stopped.")
            return 0
        agent, action = replayer.next_move()
        before = raw.game.clone(raw.game_state)
        replayer.step()
        words = describe_move(raw, agent, action, view, before)
        say(f"\n--- move {replayer.position}/{total}: {words}")
        print(raw.render_text(view, width=width))
    replayer.check_end()
    say("\n" + _result(replayer))
    return 0


def _wait() -> bool:
    """Wait for Enter; False when the person quits (q, or input closed)."""
    try:
        answer = input("[Enter: next move, q: quit] ")
    except EOFError:
        return False
    return answer.strip().lower() not in ("q", "quit", "exit")


def _font():
    from PIL import ImageFont

    return ImageFont.load_default(size=CAPTION_LINE - 8)


def caption_lines(text: str, width: int, font=None) -> list[str]:
    """``text`` wrapped at spaces into lines that fit ``width`` pixels (a word wider than that is cut)."""
    font = font or _font()
    room = width - 12  # 6 px of margin on each side
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if font.getlength(trial) <= room:
            line = trial
            continue
        if line:
            lines.append(line)
        while font.getlength(word) > room and len(word) > 1:
            cut = len(word) - 1
            while cut > 1 and font.getlength(word[:cut]) > room:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    return lines + [line] if line else lines or [""]


def _caption(frame, text: str, band: int = 1):
    """``frame`` (an H x W x 3 array) with a caption band of ``band`` lines below it holding ``text`` wrapped to
    the frame's width (cut with an ellipsis beyond ``band`` lines), as a Pillow image."""
    from PIL import Image, ImageDraw

    image = Image.fromarray(frame)
    font = _font()
    lines = caption_lines(text, image.width, font)
    if len(lines) > band:
        lines = lines[:band]
        while lines[-1] and font.getlength(lines[-1] + " ...") > image.width - 12:
            lines[-1] = lines[-1][:-1]
        lines[-1] += " ..."
    out = Image.new("RGB", (image.width, image.height + band * CAPTION_LINE), (255, 255, 255))
    out.paste(image, (0, 0))
    draw = ImageDraw.Draw(out)
    for k, line in enumerate(lines):
        draw.text((6, image.height + 3 + k * CAPTION_LINE), line, fill=(20, 20, 20), font=font)
    return out


def _captions(record, view) -> list[str]:
    """Every frame's caption, from a replay without pictures (the band's height needs the longest first)."""
    from kakurega.agents.record import Replayer, describe_move, describe_opening

    replayer = Replayer(record)
    raw, total = replayer.raw, len(record.moves)
    captions = ["; ".join([f"{record.env}: the deal", *describe_opening(raw, view)])]
    while replayer.next_move() is not None:
        agent, action = replayer.next_move()
        before = raw.game.clone(raw.game_state)
        replayer.step()
        captions.append(f"move {replayer.position}/{total}: {describe_move(raw, agent, action, view, before)}")
    replayer.check_end()
    return captions


def _export_gif(record, args) -> int:
    from kakurega.agents.record import Replayer, parse_view
    from kakurega.scripts.destination import writable_file
    from kakurega.scripts.evaluate import progress_counter
    from kakurega.scripts.gif import GifWriter

    if not MIN_FPS <= args.fps <= MAX_FPS:  # NaN fails too
        raise ValueError(f"--fps must be a number from {MIN_FPS:g} to {MAX_FPS:g} (GIF frames last 20 ms to "
                         f"100 s), got {args.fps:g}")
    probe = Replayer(record)
    view = parse_view(probe.raw, args.view)
    if len(record.moves) + 1 > MAX_GIF_FRAMES:
        raise ValueError(f"{args.record}: {len(record.moves)} moves; a GIF takes at most {MAX_GIF_FRAMES - 1}")
    writable_file(args.gif, "--gif")  # before the first frame is drawn
    captions = _captions(record, view)
    replayer = Replayer(record, render_mode="rgb_array", render_view=view)
    raw = replayer.raw
    duration = int(round(1000 / args.fps))
    frames = len(record.moves) + 1
    # on a terminal, how far the drawing is (a large map takes a while per frame)
    progress = progress_counter(f"frames of {args.gif}", getattr(args, "quiet", False)) or (lambda done, total: None)
    # frames go to the file as they are drawn (memory stays bounded whatever the length); the last frame
    # stays three times as long, so the final position can be read before the loop restarts
    with GifWriter(args.gif, duration, 3 * duration) as gif:
        progress(0, frames)
        frame = raw.render()
        font = _font()
        band = min(MAX_CAPTION_LINES, max(len(caption_lines(text, frame.shape[1], font)) for text in captions))
        gif.add(_caption(frame, captions[0], band))
        while replayer.next_move() is not None:
            progress(gif.frames, frames)
            replayer.step()
            gif.add(_caption(raw.render(), captions[replayer.position], band))
        progress(gif.frames, frames)
        replayer.check_end()
    print(f"wrote {args.gif}: {gif.frames} frames at {args.fps:g} fps, view {view or 'spectator'}")
    print(_result(replayer))
    return 0


def main(argv=None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    from kakurega.scripts.cli import run_module

    sys.exit(run_module(main))
