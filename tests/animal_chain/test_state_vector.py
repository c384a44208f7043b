"""The animal_chain_v1 state vector tells apart states whose deck order differs (no observation shows it)."""

import pytest

from kakurega.envs import make
from tests.conformance import check_unseen_order_in_state


@pytest.mark.parametrize("options", [{}, {"connection_rule": "any"}])
def test_the_deck_order_is_in_the_state_vector(options):
    check_unseen_order_in_state(make("animal_chain_v1", wrapped=False, **options), "deck")
