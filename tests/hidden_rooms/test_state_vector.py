"""The hidden_rooms_v0 state vector tells apart states whose pile order differs (no observation shows it)."""

import pytest

from kakurega.envs import make
from tests.conformance import check_unseen_order_in_state


@pytest.mark.parametrize("options", [{}, {"episode": "round"}])
def test_the_pile_order_is_in_the_state_vector(options):
    check_unseen_order_in_state(make("hidden_rooms_v0", wrapped=False, **options), "pile")
