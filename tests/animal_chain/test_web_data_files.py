"""Animal Chain in the web app: a deck that loads but cannot fill the board chosen is offered (it fits another
board), and starting a game with it is refused in words that name the files as the page knows them; the listing
says which decks fit which boards (``file_fits``), so the page marks a deck too small for the board chosen."""

from __future__ import annotations

import json
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

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

ENV = "animal_chain_v1"


def small_data(tmp_path):
    """A data directory with the 13-card deck and the 4-card board of the exact-solver tests."""
    data = tmp_path / "data"
    data.mkdir()
    small = resources.files("kakurega.envs").joinpath("data", "small")
    (data / "tiny_deck.yaml").write_text(small.joinpath("animal_chain_deck_12_1.yaml").read_text(encoding="utf-8"))
    (data / "tiny_board.yaml").write_text(small.joinpath("animal_chain_shape_1_2_1.yaml").read_text(encoding="utf-8"))
    return data


def test_a_deck_too_small_for_the_board_is_refused_naming_the_files_as_offered(tmp_path, monkeypatch):
    """The refusal names the deck by the name the page offered it under (the env's words named the server's path
    to it, a directory the page never sees), its cards and the cards the board needs. The same deck on the board
    it fits starts a game (the control: the deck is rightly offered)."""
    monkeypatch.setattr(data_files, "CHECK_SECONDS", 60.0)  # a busy test machine tries every file all the same
    data = small_data(tmp_path)
    with TestClient(create_app(record_dir=tmp_path / "records", host="127.0.0.1", data_dir=data),
                    base_url="http://127.0.0.1") as client:
        choices = client.get("/api/envs").json()["file_choices"][ENV]
        assert "tiny_deck.yaml" in choices["deck"] and "tiny_board.yaml" in choices["shape"]
        with client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"}) as ws:
            ws.send_text(json.dumps({"type": "new", "env": ENV, "options": {"deck": "tiny_deck.yaml"}, "seat": 0,
                                     "agents": ["random"]}))
            refused = ws.receive_json()
            ws.send_text(json.dumps({"type": "new", "env": ENV, "seat": 0, "agents": ["random"],
                                     "options": {"deck": "tiny_deck.yaml", "shape": "tiny_board.yaml"}}))
            started = ws.receive_json()
    assert refused["type"] == "error", refused
    assert refused["message"].startswith("tiny_deck.yaml: cards = 13 cards in all: too few to fill the board of "
                                         "animal_chain_shape.yaml (37 cards)"), refused
    assert "expected at least 46" in refused["message"] and str(data) not in refused["message"], refused
    assert started["type"] == "state" and started["env"] == ENV, started.get("message")


def test_the_listing_says_which_decks_fit_each_board_as_the_env_does(tmp_path, monkeypatch):
    """``file_fits``: each deck's cards and each board's needs, shipped files, the data directory's and the defaults
    (``""``), in both versions; the verdict they give for every deck and board is the env's own
    (``check_deck_fits``). The 13-card deck fits the 4-card board (13 cards needed: the bound itself) and not the
    packaged board; a copy of the packaged deck fits both (the control: not every deck is marked)."""
    from kakurega.envs.animal_chain.data import AnimalChainDataError, check_deck_fits, load_deck, load_shape

    monkeypatch.setattr(data_files, "CHECK_SECONDS", 60.0)  # a busy test machine tries every file all the same
    data = small_data(tmp_path)
    (data / "my_deck.yaml").write_text(resources.files("kakurega.envs").joinpath("data", "animal_chain_deck.yaml")
                                       .read_text(encoding="utf-8"))
    with TestClient(create_app(record_dir=tmp_path / "records", host="127.0.0.1", data_dir=data),
                    base_url="http://127.0.0.1") as client:
        listing = client.get("/api/envs").json()
    fits = listing["file_fits"]
    assert fits["animal_chain_v0"] == fits[ENV], fits
    [fit] = fits[ENV]
    assert (fit["option"], fit["other"], fit["words"]) == ("deck", "shape", "too few cards for this board")
    assert fit["size"] == {"": 60, "animal_chain_deck.yaml": 60, "my_deck.yaml": 60, "tiny_deck.yaml": 13}, fit
    assert fit["needs"] == {"": 46, "animal_chain_shape.yaml": 46, "tiny_board.yaml": 13}, fit
    shipped = resources.files("kakurega.envs").joinpath("data")
    paths = {"": None, **{name: str(shipped.joinpath(name)) for name in ("animal_chain_deck.yaml",
                                                                          "animal_chain_shape.yaml")},
             **{name: str(data / name) for name in ("my_deck.yaml", "tiny_deck.yaml", "tiny_board.yaml")}}
    verdicts = {}
    for deck in fit["size"]:
        for board in fit["needs"]:
            try:
                check_deck_fits(load_deck(paths[deck]), load_shape(paths[board]))
                env_says = True
            except AnimalChainDataError:
                env_says = False
            verdicts[deck, board] = env_says
            assert (fit["size"][deck] >= fit["needs"][board]) == env_says, (deck, board)
    assert not verdicts["tiny_deck.yaml", ""] and verdicts["tiny_deck.yaml", "tiny_board.yaml"]
    assert all(verdicts["my_deck.yaml", board] for board in fit["needs"])
    # the listing only marks: every deck that loads is still offered for every board
    assert listing["file_choices"][ENV]["deck"] == ["animal_chain_deck.yaml", "my_deck.yaml", "tiny_deck.yaml"]


def test_a_record_naming_a_deck_too_small_for_its_board_is_refused_naming_the_file_as_offered(tmp_path):
    """A replay opened from a record whose options name an offered file by its name is refused as a new game is:
    the env's words named the server's path to the file (the record named it by its name)."""
    from kakurega.agents import record

    data = small_data(tmp_path)
    uploaded = {"format": record.FORMAT, "version": record.VERSION, "env": ENV, "env_version": 1,
                "options": {"deck": "tiny_deck.yaml"}, "seed": 1, "agents": {"player_0": "random", "player_1": "random"},
                "moves": [], "end": "terminated", "returns": {"player_0": 0.0, "player_1": 0.0}}
    with TestClient(create_app(record_dir=tmp_path / "records", host="127.0.0.1", data_dir=data),
                    base_url="http://127.0.0.1") as client:
        with client.websocket_connect("/ws", headers={"origin": "http://127.0.0.1", "host": "127.0.0.1"}) as ws:
            ws.send_text(json.dumps({"type": "open_record", "record": json.dumps(uploaded), "view": "spectator"}))
            refused = ws.receive_json()
    assert refused["type"] == "error", refused
    assert refused["message"].startswith("the uploaded record: options: animal_chain_v1 refuses them: tiny_deck.yaml: "
                                         "cards = 13 cards in all: too few to fill the board of "
                                         "animal_chain_shape.yaml (37 cards)"), refused
    assert str(data) not in refused["message"], refused
