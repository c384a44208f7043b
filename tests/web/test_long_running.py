"""What a server that runs for a long time holds and does: a finished game lets its bots go, and the data-file
listing reads only data files (tests/web/test_app.py: an ``abandon`` queued behind a request that opens another
game)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette")

from kakurega.scripts.web.data_files import DataFiles  # noqa: E402
from kakurega.scripts.web.session import GameSession  # noqa: E402


def test_a_finished_game_lets_its_bots_go():
    """A search bot holds the rules and heuristics of every seat with their caches (tens of MB in a Summer game):
    a finished game, which a server keeps until its place is needed, held them too."""
    session = GameSession("kakurenbo_v0", {"num_players": 3}, ["random", None, "random"], seed=4)
    rng = np.random.default_rng(0)
    assert set(session.agents) == {"player_0", "player_2"}  # the control: bots while it is played
    while not session.over:
        if session.raw.agent_selection == session.person:
            session.act(int(rng.choice(session.raw.legal_actions())))
        else:
            session.advance()
        assert session.over or session.agents
    assert session.agents == {}
    assert session.record.end == "terminated"  # the record was finished as before


def test_the_data_file_listing_reads_only_data_files(tmp_path):
    for index in range(30):
        (tmp_path / f"note_{index}.txt").write_text("not a data file")
    (tmp_path / "deck.yaml").write_text("cards: []\n")
    (tmp_path / "map.json").write_text("{}")
    resolved = []
    files = DataFiles(str(tmp_path))
    original = type(tmp_path).resolve

    def counting(path, *args, **kwargs):
        resolved.append(path.name)
        return original(path, *args, **kwargs)

    import pathlib

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pathlib.Path, "resolve", counting)
        names = files.names()
    assert {"deck.yaml", "map.json"} <= set(names) and not any(name.endswith(".txt") for name in names)
    assert "deck.yaml" in resolved  # the control: the data files are resolved (a link must not lead out)
    assert not any(name.endswith(".txt") for name in resolved), resolved  # the other files are not even resolved
