"""The kakurenbo_v0 state vector tells apart states whose pile order differs (no observation shows it)."""

import pytest

from kakurega.envs import make
from tests.conformance import check_unseen_order_in_state


@pytest.mark.parametrize("options", [{"variant": v, "num_players": n} for v in ("kakurenbo", "kurayami") for n in (3, 5)])
def test_the_pile_order_is_in_the_state_vector(options):
    check_unseen_order_in_state(make("kakurenbo_v0", wrapped=False, **options), "pile")
