"""The rules' tables shared by the games of one deck and board are kept for a few decks only.

``_DECODED`` and ``_CHAIN_CONTRIBUTIONS`` (``envs/animal_chain/rules.py``)
are module-level: a process that made games of many decks (a deck sweep, a
notebook) kept about 0.4 MiB for every deck it ever met. They now keep the
first ``DECK_TABLES_SIZE``; a game of another deck builds its own tables,
the same as it would have found there.
"""

from __future__ import annotations

import itertools

import pytest

import kakurega.envs.animal_chain.rules as rules
from kakurega.envs.animal_chain.data import load_deck


def decks(count: int) -> list[dict]:
    """``count`` different decks: 12 of the default deck's 15 animal pairs, both orders, four copies each."""
    animals = [{"name": name, "label": label} for name, label in zip(load_deck().animals, load_deck().labels)]
    pairs = list(itertools.combinations([a["name"] for a in animals], 2))
    out = []
    for chosen in itertools.islice(itertools.combinations(pairs, 12), count):
        cards = [{"left": left, "right": right, "copies": 4} for a, b in chosen for left, right in ((a, b), (b, a))]
        out.append({"name": f"deck {len(out)}", "animals": animals, "cards": cards})
    return out


@pytest.fixture
def empty_tables(monkeypatch):
    monkeypatch.setattr(rules, "_DECODED", {})
    monkeypatch.setattr(rules, "_CHAIN_CONTRIBUTIONS", {})


def test_the_tables_keep_a_few_decks_and_later_decks_get_the_same_tables(empty_tables):
    games = [rules.AnimalChainGame(deck=deck, connection_rule="chain") for deck in decks(rules.DECK_TABLES_SIZE + 12)]
    kept = set(map(id, rules._DECODED.values()))
    beyond = [g for g in games if id(g.decoded) not in kept]
    assert beyond, "every deck's tables were kept: the decks do not reach past the cap"
    assert len(rules._DECODED) == rules.DECK_TABLES_SIZE
    assert len(rules._CHAIN_CONTRIBUTIONS) == rules.DECK_TABLES_SIZE
    last = beyond[-1]
    rules._DECODED.clear()
    rules._CHAIN_CONTRIBUTIONS.clear()
    again = rules.AnimalChainGame(deck=last.deck, connection_rule="chain")  # built into empty tables
    assert last.decoded == again.decoded and last.chain_contributions == again.chain_contributions
