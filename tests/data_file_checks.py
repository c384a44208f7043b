"""Checks for an env option that names a data file (a deck, a shape, a map, a booklet): every bad path is
refused in words, at once, and no error ever quotes a file's content back.

Each game's ``test_data_files.py`` runs them on its own file options.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SECRET = "s3cr3t-TOKEN-42"


def bad_paths(tmp_path) -> dict[str, str]:
    """Paths that are no readable data file: missing, a directory, a FIFO, /dev/null, /dev/stdin."""
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    return {"missing": str(tmp_path / "missing.yaml"), "directory": str(tmp_path), "fifo": str(fifo),
            "/dev/null": "/dev/null", "/dev/stdin": "/dev/stdin"}


def check_a_path_that_is_no_regular_file_is_refused_at_once(env: str, option: str, error: str, tmp_path) -> None:
    """``error`` ("module:Class", the option's loader error) names each bad path and what is wrong with it.

    Runs in a subprocess whose stdin is a pipe nobody writes to: a blocking open or read would hang it.
    """
    paths = bad_paths(tmp_path)
    module, _, name = error.partition(":")
    code = textwrap.dedent(f"""
        import json
        from kakurega.envs.registry import make
        from {module} import {name}
        results = {{}}
        for kind, path in {json.dumps(paths)}.items():
            try:
                make({env!r}, wrapped=False, **{{{option!r}: path}})
                results[kind] = "accepted"
            except {name} as error:
                results[kind] = str(error)
        print(json.dumps(results))
    """)
    with subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as process:
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"{option}: a path blocked the loader (no answer in 60 s)")
    assert process.returncode == 0, err[-2000:]
    results = json.loads(out)
    for kind, path in paths.items():
        message = results[kind]
        assert message.startswith(f"{path}: "), (kind, message)
        expected = "no such file" if kind == "missing" else "not a regular file"
        assert expected in message, (kind, message)


def check_an_error_never_quotes_a_files_content(env: str, option: str, tmp_path) -> None:
    """Files with a secret in a wrong field, of a wrong type, in bad syntax or not a mapping: the error
    names the path and never the secret."""
    from kakurega.envs.registry import make

    cases = {
        "unknown field": f"api_token: '{SECRET}'\n",
        "wrong type": f"animals: '{SECRET}'\ncards: '{SECRET}'\nmonsters: '{SECRET}'\nterrain: '{SECRET}'\n"
                      f"icons: {{A: {{name: a, vp: 1}}}}\ngrid: '.'\nrows: '{SECRET}'\n",
        "syntax error": f"password: [{SECRET}\nnext: 1\n",
        "not a mapping": f"- {SECRET}\n",
    }
    for case, text in cases.items():
        path = tmp_path / f"{case.replace(' ', '_')}.yaml"
        path.write_text(text)
        with pytest.raises(ValueError) as caught:
            make(env, wrapped=False, **{option: str(path)})
        message = str(caught.value)
        assert str(path) in message, (case, message)
        assert SECRET not in message and "s3cr3t" not in message, (case, message)
