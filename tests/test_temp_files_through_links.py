"""Writers that go through a temporary file create it themselves: a link planted at the temporary name is removed,
never followed (once it was, and the file it pointed to, outside the output folder, was overwritten), and a FIFO
there is never opened (once the writer waited on it for ever)."""

import os

import numpy as np
import pytest
from PIL import Image

from kakurega.agents.tactics.suite import load_suite, shipped_suites
from kakurega.agents.training.pretrain import save_demonstrations
from kakurega.scripts.gif import GifWriter


def _plant(tmp_path, temporary):
    """A file outside the output folder, a link to it at ``temporary`` (inside it); the outside file's bytes."""
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"precious")
    temporary.symlink_to(outside)
    return outside


def _writers(out):
    def suite():
        load_suite(shipped_suites()[0]).save(out / "suite.json")

    def gif():
        with GifWriter(out / "game.gif", 100) as writer:
            writer.add(Image.new("RGB", (8, 8)))

    def demonstrations():
        save_demonstrations(out / "demo.npz", {"actions": np.zeros(3, np.int64), "games": 1}, {"k": 1})

    return {"suite": (suite, out / ".suite.json.tmp"), "gif": (gif, out / "game.gif.partial"),
            "demonstrations": (demonstrations, out / "demo.npz.tmp.npz")}


@pytest.mark.parametrize("writer", ["suite", "gif", "demonstrations"])
def test_a_link_planted_at_the_temporary_name_is_not_followed(tmp_path, writer):
    out = tmp_path / "out"
    out.mkdir()
    write, temporary = _writers(out)[writer]
    outside = _plant(tmp_path, temporary)
    write()
    assert outside.read_bytes() == b"precious"
    assert not temporary.exists() and not temporary.is_symlink()
    written = [p for p in out.iterdir()]
    assert len(written) == 1 and written[0].is_file() and not written[0].is_symlink() and written[0].stat().st_size


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("writer", ["suite", "gif", "demonstrations"])
def test_a_fifo_at_the_temporary_name_is_not_opened(tmp_path, writer):
    out = tmp_path / "out"
    out.mkdir()
    write, temporary = _writers(out)[writer]
    os.mkfifo(temporary)
    write()  # opening the FIFO for writing would wait here for ever for a reader
    assert [p.is_file() for p in out.iterdir()] == [True]
