"""The one way the project opens a file to read: :func:`open_regular` never blocks and reads only regular files."""

import os

import pytest

from kakurega.envs.core.safe_load import NotRegularFile, open_regular, read_at_most


def _read(path, limit=100, **options):
    descriptor, info = open_regular(path, **options)
    try:
        return read_at_most(descriptor, limit), info.st_size
    finally:
        os.close(descriptor)


def test_a_regular_file_is_read_up_to_the_limit(tmp_path):
    path = tmp_path / "data.txt"
    path.write_bytes(b"0123456789")
    assert _read(path) == (b"0123456789", 10)
    assert _read(path, limit=4) == (b"0123", 10)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="FIFO"):
        _read(fifo)  # a blocking open would wait here for ever for a writer


def test_a_directory_and_a_device_are_refused_in_words(tmp_path):
    with pytest.raises(NotRegularFile, match="a directory"):
        _read(tmp_path)
    if os.path.exists("/dev/zero"):
        with pytest.raises(NotRegularFile, match="character device"):
            _read("/dev/zero")  # read as a file, it never ends


def test_links_are_followed_unless_refused(tmp_path):
    target = tmp_path / "target.txt"
    target.write_bytes(b"x")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert _read(link) == (b"x", 1)
    with pytest.raises(OSError) as refused:
        _read(link, follow_links=False)
    assert not isinstance(refused.value, NotRegularFile)  # the kernel's refusal (ELOOP), not a file kind


def test_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        _read(tmp_path / "absent")


def test_no_descriptor_is_left_open_by_a_refusal(tmp_path):
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(50):
        with pytest.raises(NotRegularFile):
            _read(tmp_path)
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) <= before
