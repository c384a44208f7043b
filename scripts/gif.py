"""An animated GIF written one frame at a time, so memory stays bounded whatever the number of frames.

Pillow's ``save(save_all=True)`` keeps every frame until the file is written
(about 4 MB a frame for a KAKURENBO table: gigabytes for a long game).
:class:`GifWriter` encodes each frame as it comes, with its own palette, and
holds only the frame before it (whose duration is known once the next one
arrives: the last frame is shown longer)::

    with GifWriter("game.gif", duration_ms=500, last_duration_ms=1500) as gif:
        for image in images:      # Pillow images of one size
            gif.add(image)

The file is written aside and renamed when complete: an error or Ctrl-C
leaves no half-written GIF behind.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

#: a GIF frame delay is a 16-bit count of centiseconds
MAX_DURATION_MS = 655_350


class GifWriter:
    """Frames in, an animated GIF out, holding at most two frames at any time."""

    def __init__(self, path: str | os.PathLike, duration_ms: int, last_duration_ms: int | None = None, loop: int = 0):
        for name, value in (("duration_ms", duration_ms), ("last_duration_ms", last_duration_ms or duration_ms)):
            if not 10 <= value <= MAX_DURATION_MS:
                raise ValueError(f"GifWriter: {name} must be from 10 to {MAX_DURATION_MS} ms, got {value}")
        self.path = Path(path)
        self.duration_ms = int(duration_ms)
        self.last_duration_ms = int(last_duration_ms or duration_ms)
        self.loop = loop
        self.frames = 0
        self._size: tuple[int, int] | None = None
        self._pending = None  # the last frame added, written once the next one comes (or at close)
        from kakurega.agents.training.run_dir import open_temporary

        self._partial = self.path.with_name(self.path.name + ".partial")
        self._file = open_temporary(self._partial)  # a link or a FIFO planted at the name: removed, never followed

    def add(self, image) -> None:
        """Append one frame (a Pillow image; every frame the size of the first)."""
        if self._size is None:
            self._size = image.size
            self._write_header()
        elif image.size != self._size:
            raise ValueError(f"GifWriter: frame {self.frames} is {image.size[0]}x{image.size[1]}, the first "
                             f"{self._size[0]}x{self._size[1]}; every frame must have the size of the first")
        if self._pending is not None:
            self._write_frame(self._pending, self.duration_ms)
        self._pending = _paletted(image)
        self.frames += 1

    def close(self) -> Path:
        """Write the last frame and the trailer, and put the file in place; returns its path."""
        if self._pending is None:
            self.abort()
            raise ValueError("GifWriter: no frame was added")
        self._write_frame(self._pending, self.last_duration_ms)
        self._pending = None
        self._file.write(b";")
        self._file.close()
        os.replace(self._partial, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the file being written."""
        self._pending = None
        self._file.close()
        self._partial.unlink(missing_ok=True)

    def __enter__(self) -> GifWriter:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def _write_header(self) -> None:
        width, height = self._size
        # GIF89a, the logical screen (no global palette: every frame brings its own), the loop extension
        self._file.write(b"GIF89a" + struct.pack("<HHBBB", width, height, 0, 0, 0))
        self._file.write(b"!\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", self.loop) + b"\x00")

    def _write_frame(self, image, duration_ms: int) -> None:
        from PIL import GifImagePlugin

        # the frame's delay (graphics control extension), its descriptor with its own palette, its LZW data
        for chunk in GifImagePlugin.getdata(image, duration=duration_ms, include_color_table=True):
            self._file.write(chunk)


def _paletted(image):
    """``image`` in 256 colours or fewer (exact when it has no more), as GIF frames are."""
    from PIL import Image

    if image.mode == "P":
        return image
    return image.convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
