"""Every game's declarations about its outcomes (``Game.return_bounds``, ``max_decisions``, ``is_zero_sum``,
``pays_only_at_end``) hold in random games of every registered configuration, under every reward mode and with a short step limit.

That they are the true extremes (random play reaches them), and the control that the OpenSpiel bridge's old
wide defaults are not, are in each game's rules tests.
"""

from __future__ import annotations

import pytest
from conformance import check_declared_outcomes, random_outcomes

from kakurega.envs.registry import ENV_SPECS, make

GAMES = 12  #: random games per case
LIMIT_OPTIONS = ("max_steps", "max_turns")  #: a game's step-limit option
SHORT_LIMIT = 4


def _cases():
    """(env, options): every registered configuration under every reward mode, then with a short step limit;
    a game's other float options (a reward weight) at their highest too."""
    cases = []
    for name, spec in ENV_SPECS.items():
        options_by_name = {option.name: option for option in spec.definition().options}
        limit = next((option for option in LIMIT_OPTIONS if option in options_by_name), None)
        rewards = options_by_name["reward"].choices if "reward" in options_by_name else (None,)
        for config in spec.configurations:
            for reward in rewards:
                options = dict(config, **({} if reward is None else {"reward": reward}))
                cases.append((name, options))
                if limit is not None:
                    cases.append((name, dict(options, **{limit: SHORT_LIMIT})))
                for option in options_by_name.values():
                    if option.kind is float and option.high is not None:
                        cases.append((name, dict(options, **{option.name: option.high})))
    return cases


CASES = _cases()
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in options.items())}" for name, options in CASES]


@pytest.mark.parametrize("env_name, options", CASES, ids=IDS)
def test_random_games_keep_to_the_declared_returns_and_length(env_name, options):
    game = make(env_name, wrapped=False, **options).game
    check_declared_outcomes(game, random_outcomes(game, seed=0, num_games=GAMES))



def _full_length(options) -> bool:
    """No short step limit: a game long enough to score before its end."""
    return not any(options.get(limit) == SHORT_LIMIT for limit in LIMIT_OPTIONS)


PAYING = [(name, options) for name, options in CASES
          if _full_length(options) and not make(name, wrapped=False, **options).game.pays_only_at_end()]


@pytest.mark.parametrize("env_name, options", PAYING, ids=[f"{n}-{o}" for n, o in PAYING])
def test_the_modes_that_say_they_pay_during_play_do(env_name, options):
    """The modes declared to pay during play (``pays_only_at_end()`` False: points, VP, a match paid per round,
    shaping) do so in random games; the control: the check above refuses the same games claiming to pay only
    at the end."""
    game = make(env_name, wrapped=False, **options).game
    sample = random_outcomes(game, seed=0, num_games=GAMES)
    assert sample.paid_before_end
    game.pays_only_at_end = lambda: True
    with pytest.raises(AssertionError, match="declared to pay only at the end"):
        check_declared_outcomes(game, sample)


def test_some_modes_pay_during_play():
    assert len({name for name, _ in PAYING}) >= 3, PAYING


@pytest.mark.parametrize("env_name", list(ENV_SPECS))
def test_every_default_pays_only_at_the_end(env_name):
    """The default rewards of every env are paid at the end (the OpenSpiel bridge registers them as terminal)."""
    assert make(env_name, wrapped=False).game.pays_only_at_end()
