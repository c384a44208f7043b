"""The page offers each file option only the data files it loads (docs/web.md, "Data files: by name, never by
path"): a map for ``map``, a deck for ``deck``, never a file the option's loader refuses; each answer is kept while
the file stays the same, and no file, however malformed, takes ``/api/envs`` down."""

from __future__ import annotations

import os
import time
import warnings
from importlib import resources

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces a move from httpx to httpx2; httpx still drives it
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from kakurega.scripts.web import data_files  # noqa: E402
from kakurega.scripts.web.app import create_app  # noqa: E402
from kakurega.scripts.web.data_files import DataFiles  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

SHIPPED = ("animal_chain_deck.yaml", "animal_chain_shape.yaml", "hidden_rooms_monsters.yaml", "summer_map.yaml")
#: the file options of the games
OPTIONS = {("animal_chain_v1", "deck"), ("animal_chain_v1", "shape"), ("summer_hide_and_seek_v1", "map"),
           ("hidden_rooms_v0", "booklet")}


def shipped_text(name: str) -> str:
    return resources.files("kakurega.envs").joinpath("data", name).read_text(encoding="utf-8")


def data_dir(tmp_path):
    """A data directory of one valid file of each kind, and files no loader takes."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "my_map.yaml").write_text(shipped_text("summer_map.yaml"))
    (data / "my_deck.yaml").write_text(shipped_text("animal_chain_deck.yaml"))
    (data / "my_board.json").write_text('{"rows": [3, 4, 3]}')
    (data / "my_booklet.yml").write_text(shipped_text("hidden_rooms_monsters.yaml"))
    (data / "broken_map.yaml").write_text(shipped_text("summer_map.yaml").replace("grid:", "grix:"))
    (data / "not_yaml.yaml").write_text("grid: [unclosed\n  - : :\n")
    (data / "binary.json").write_bytes(b"\xff\xfe\x00\x01" * 100)
    (data / "empty.yaml").write_text("")
    (data / "a_list.json").write_text("[1, 2, 3]")
    (data / "too_large.yaml").write_text("name: x\n" + "# padding\n" * 120_000)  # over the 1 MB every loader reads
    (data / "deep.json").write_text("[" * 5000 + "]" * 5000)
    return data


@pytest.fixture
def served(tmp_path, monkeypatch):
    monkeypatch.setattr(data_files, "CHECK_SECONDS", 60.0)  # a busy test machine tries every file all the same
    with TestClient(create_app(record_dir=tmp_path / "records", host="127.0.0.1", data_dir=data_dir(tmp_path)),
                    base_url="http://127.0.0.1") as client:
        yield client


def test_each_file_option_is_offered_the_files_it_loads(served):
    listing = served.get("/api/envs").json()
    choices = listing["file_choices"]
    assert choices["summer_hide_and_seek_v1"]["map"] == ["my_map.yaml", "summer_map.yaml"]
    assert choices["animal_chain_v1"]["deck"] == ["animal_chain_deck.yaml", "my_deck.yaml"]
    assert choices["animal_chain_v1"]["shape"] == ["animal_chain_shape.yaml", "my_board.json"]
    assert choices["hidden_rooms_v0"]["booklet"] == ["hidden_rooms_monsters.yaml", "my_booklet.yml"]
    # every version of a game with file options, and no other game
    assert set(choices) == {name for name in (env["name"] for env in listing["envs"])
                            if not name.startswith("kakurenbo")}
    assert choices["summer_hide_and_seek_v0"] == choices["summer_hide_and_seek_v2"] == {"map": ["my_map.yaml",
                                                                                                 "summer_map.yaml"]}
    # the names a request may give are still every offered file (the key older pages read)
    assert set(SHIPPED) | {"my_map.yaml", "broken_map.yaml", "not_yaml.yaml", "too_large.yaml"} <= set(
        listing["data_files"])


def test_a_file_left_out_of_an_option_is_still_refused_by_the_env_in_words(served):
    """The lists only narrow what the page offers: a request naming a deck as the map is resolved as before (by
    name) and refused by the game, naming the file and the field."""
    with served.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"}) as ws:
        ws.send_json({"type": "new", "env": "summer_hide_and_seek_v1", "options": {"map": "my_deck.yaml"}, "seat": 0})
        reply = ws.receive_json()
    assert reply["type"] == "error" and "my_deck.yaml" in reply["message"], reply


def test_a_loader_that_fails_unexpectedly_leaves_the_file_out_not_the_page(served, monkeypatch):
    def broken_loader(path):
        raise RuntimeError("a bug in a loader")

    original = data_files.file_loaders

    def with_a_broken_map_loader(env_name):
        loaders = original(env_name)
        return {name: broken_loader if name == "map" else loader for name, loader in loaders.items()}

    monkeypatch.setattr(data_files, "file_loaders", with_a_broken_map_loader)
    reply = served.get("/api/envs")
    assert reply.status_code == 200
    choices = reply.json()["file_choices"]
    assert choices["summer_hide_and_seek_v1"]["map"] == []
    assert choices["animal_chain_v1"]["deck"] == ["animal_chain_deck.yaml", "my_deck.yaml"]  # the others as before


def test_every_file_option_declares_its_loader():
    """An option without a loader would be offered every file, as the page once did for all of them."""
    from kakurega.envs.registry import ENV_SPECS

    declared = {(name, option): loader
                for name in ENV_SPECS for option, loader in data_files.file_loaders(name).items()}
    assert OPTIONS <= set(declared)
    assert all(callable(loader) for loader in declared.values()), declared


def test_a_file_fit_is_declared_between_two_file_options_of_its_env():
    """A pair naming no file option of the env (a typo) would mark nothing: the declaration is refused in words."""
    from dataclasses import replace

    from kakurega.envs.core.options import FileFit
    from kakurega.envs.registry import ENV_SPECS

    declared = {name: spec.file_fits() for name, spec in ENV_SPECS.items() if spec.file_fits()}
    assert declared, "no env declares a pair: nothing below is checked"
    name, (fit, *_) = next(iter(declared.items()))
    definition = ENV_SPECS[name].definition()
    assert replace(definition, file_fits=(fit,)) == definition  # the real declaration passes
    for typo, why in ((replace(fit, other=fit.other + "s"), f"names the option '{fit.other}s': expected a file "
                       "option with a loader"), (replace(fit, other=fit.option), "with itself")):
        with pytest.raises(ValueError, match=why):
            replace(definition, file_fits=(typo,))
    assert isinstance(fit, FileFit) and fit.words


def test_a_changed_file_is_tried_again(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    path = data / "map.yaml"
    valid = shipped_text("summer_map.yaml")
    broken = valid.replace("grid:", "grix:")  # the same size: only the times tell the change
    files = DataFiles(data)

    def maps() -> list[str]:
        return files.choices(["summer_hide_and_seek_v1"])["summer_hide_and_seek_v1"]["map"]

    path.write_text("name: half a map\n")
    assert maps() == ["summer_map.yaml"]
    path.write_text(valid)
    assert maps() == ["map.yaml", "summer_map.yaml"]
    before = os.stat(path)
    path.write_text(broken)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))  # a coarse clock may not move
    assert os.stat(path).st_size == before.st_size
    assert maps() == ["summer_map.yaml"]


def test_an_unchanged_file_is_tried_once_and_the_answers_kept_are_bounded(tmp_path, monkeypatch):
    calls = []

    def counting_loader(path):
        calls.append(os.path.basename(path))
        if "bad" in path:
            raise ValueError("not for this option")

    for name in ("a.yaml", "b.yaml", "bad.yaml"):
        (tmp_path / name).write_text(f"name: {name}\n")
    files = DataFiles(tmp_path)
    for _ in range(3):
        assert [files.loads(counting_loader, tmp_path / name) for name in ("a.yaml", "b.yaml", "bad.yaml")] == [
            True, True, False]
    assert calls == ["a.yaml", "b.yaml", "bad.yaml"]  # tried once each, failures included
    (tmp_path / "a.yaml").write_text("name: a longer a\n")
    assert files.loads(counting_loader, tmp_path / "a.yaml") and calls[-1] == "a.yaml" and len(calls) == 4
    assert files.loads(counting_loader, tmp_path / "missing.yaml") is False  # gone since the listing: left out

    monkeypatch.setattr(data_files, "MAX_CHECKS", 2)
    for name in ("c.yaml", "d.yaml", "e.yaml"):
        (tmp_path / name).write_text("name: x\n")
        files.loads(counting_loader, tmp_path / name)
        assert len(files._checked) <= 2
    assert [key[1] for key in files._checked] == [str(tmp_path / "d.yaml"), str(tmp_path / "e.yaml")]


def test_a_listing_tries_files_for_a_bounded_time_and_lists_the_files_left_apart(tmp_path, monkeypatch):
    """A file near the 1 MB limit takes seconds to parse: a page load tries files for ``CHECK_SECONDS`` at most and
    lists the files left as not checked yet, apart from the files the option loads (they were once offered to
    every option: on a large new data directory, decks were offered as maps); the next page load goes on."""
    calls = []

    def slow_map_loader(path):
        calls.append(os.path.basename(path))
        time.sleep(0.2)
        if "deck" in os.path.basename(path):
            raise ValueError("not a map")

    decks, maps = [f"deck_{index}.yaml" for index in range(3)], [f"map_{index}.yaml" for index in range(3)]
    for name in decks + maps:
        (tmp_path / name).write_text("name: x\n")
    monkeypatch.setattr(data_files, "CHECK_SECONDS", 0.3)
    monkeypatch.setattr(data_files, "file_loaders", lambda env_name: {"map": slow_map_loader})
    offered = {name: tmp_path / name for name in decks + maps}  # (the shipped files aside)
    assert DataFiles(tmp_path).choices(["summer"], offered)["summer"]["map"] == []  # all untried: none offered
    calls.clear()
    files = DataFiles(tmp_path)
    listings = []
    for _ in range(10):
        choices, unchecked, _ = files.listing(["summer"], offered)
        listings.append((choices["summer"]["map"], unchecked.get("summer", {}).get("map", [])))
        if not listings[-1][1]:
            break
    offered, untried = listings[0]
    assert len(untried) >= 4 and set(offered) | set(untried) <= set(decks + maps), listings  # at most 2 tried
    assert all(set(offered) <= set(maps) for offered, _ in listings), listings  # never a deck as a map
    assert all(set(offered) | set(untried) >= set(maps) for offered, untried in listings), listings  # every map
    assert listings[-1] == (maps, []) and "summer" not in unchecked, listings  # all tried in the end: none apart
    assert len(calls) == len(set(calls)) and set(decks + maps) <= set(calls)  # once each


def test_the_page_listing_gives_the_files_not_checked_yet_apart(tmp_path, monkeypatch):
    """``/api/envs``: ``unchecked_files`` names, by env and option, the files the listing had no time to try
    (``CHECK_SECONDS`` spent); ``file_choices`` holds only files the option's loader loaded."""
    monkeypatch.setattr(data_files, "CHECK_SECONDS", 0.0)  # no time at all: nothing is tried
    with TestClient(create_app(record_dir=tmp_path / "records", host="127.0.0.1", data_dir=data_dir(tmp_path)),
                    base_url="http://127.0.0.1") as client:
        listing = client.get("/api/envs").json()
        every_file = listing["data_files"]
        assert listing["file_choices"]["summer_hide_and_seek_v1"] == {"map": []}
        assert listing["unchecked_files"]["summer_hide_and_seek_v1"] == {"map": every_file}
        assert set(listing["unchecked_files"]) == set(listing["file_choices"])
        monkeypatch.setattr(data_files, "CHECK_SECONDS", 60.0)  # the next page load tries them all
        listing = client.get("/api/envs").json()
        assert listing["unchecked_files"] == {}
        assert listing["file_choices"]["summer_hide_and_seek_v1"] == {"map": ["my_map.yaml", "summer_map.yaml"]}
