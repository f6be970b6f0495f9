"""Conformance: ``spoilfive_jax.testing.api_test`` over every registered game, with several rule
options and table sizes (bigger grids under ``-m slow``); the game-specific parts of the pgx
surface (action counts, observation sizes, static rules); and ``api_test`` itself catching
broken environments.

Differences from pgx, on purpose: ``current_player`` is int32 (pgx: int8) and is -1 once the
hand is over; a ``State`` has more public fields (the rules' bookkeeping) than pgx's minimal set.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.games.forty_five import game as family_game
from spoilfive_jax.testing import api_test

# (game id, players, rule options): every game, both directions of each main option.
FAST = [
    ("spoil_five", 2, {}),
    ("spoil_five", 5, {"follow": "traditional", "renege": "led", "rob": "forced"}),
    ("forty_five", 4, {"joker": True, "jink": "announced"}),
    ("twenty_five", 6, {}),
    ("auction_forty_fives", 3, {}),
]
SLOW = [
    ("spoil_five", 3, {"rob": "off", "jink": False}),
    ("spoil_five", 7, {"renege": "trick", "deal_packets": (3, 2), "ante": 2, "jink_bonus": 3}),
    ("spoil_five", 10, {"ante_after_spoil": "dealer"}),
    ("forty_five", 2, {}),
    ("forty_five", 4, {"follow": "seed", "renege": "deal", "jink": "wins_game"}),
    ("forty_five", 5, {"joker": True, "joker_rank": "above_AH", "rob": "off"}),
    ("twenty_five", 4, {"scoring": "hoyle", "target": 15}),
    ("auction_forty_fives", 4, {"joker": True}),
    ("auction_forty_fives", 6, {"min_bid_at_100": False, "deal_packets": (3, 2)}),
]


def _id(case: tuple[str, int, dict]) -> str:
    game_id, n, opts = case
    return "-".join([game_id, str(n), *(f"{k}={v}" for k, v in opts.items())])


@pytest.mark.parametrize("case", FAST, ids=_id)
def test_api(case):
    game_id, n, opts = case
    # the capability checks on Spoil Five's smallest table here (the family's, which compile
    # Auction's largest programs, some 80 s, on every table of test_api_more_tables, -m slow;
    # each family capability has tests of its own by default); the comparison without jit (op
    # by op, the slow part: 8 s for Spoil Five, 27 s for Auction) on every table of
    # test_api_more_tables, and by default on Oh Hell's (examples/oh_hell)
    api_test(sf.make(game_id, n, **opts), num=64, no_jit=False, capabilities=n == 2)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=_id)
def test_api_more_tables(case):
    game_id, n, opts = case
    api_test(sf.make(game_id, n, **opts), num=200, seed=n)


def test_every_game_is_covered():
    # the package's own games; a plugin's tests run api_test on it (examples/oh_hell/tests)
    own = {g for g in sf.available_games() if sf.make(g).__module__.startswith("spoilfive_jax.")}
    assert {c[0] for c in FAST} == own


# ---------------------------------------------------------------------------- per game surface


@pytest.mark.parametrize("n", [2, 5, 10])
def test_spoil_five_attributes(n):
    env = sf.spoil_five.SpoilFive(n)
    assert env.num_players == n
    assert env.num_actions == sf.spoil_five.NUM_ACTIONS == 55
    assert env.observation_shape == (179 + 116 * n,)
    assert env.id == "spoil_five"
    assert env.max_decisions == 5 * n + 2  # a rob, 5 tricks of N cards, a jink decision


@pytest.mark.parametrize(
    "env",
    [
        sf.forty_five.AuctionFortyFives(3),
        sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(joker=True)),
        sf.forty_five.TwentyFive(6),
    ],
    ids=["auction3", "joker4", "twenty_five6"],
)
def test_family_attributes(env):
    n = env.num_players
    assert env.num_actions == family_game.NUM_ACTIONS == 64
    assert env.observation_shape == (242 + 116 * n,)
    assert env.full_observation_shape == (242 + 116 * n + 106 * n + 106,)
    state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    assert state.rules == env.rules
    # the rules are static metadata: no extra leaf (6 bitset fields hold two words each: hands,
    # legal_set, discards, played, cannot_hold, drawn)
    assert len(jax.tree.leaves(state)) == len(dataclasses.fields(family_game.State)) - 1 + 6


@pytest.mark.parametrize(
    "env",
    [
        sf.spoil_five.SpoilFive(5),
        sf.forty_five.FortyFive(4, sf.forty_five.FortyFiveRules(jink="announced")),
    ],
    ids=["spoil_five5", "forty_five4"],
)
def test_every_hand_pays_someone(env):
    """Random hands: a Spoil Five hand always moves chips (the antes); a family hand always
    scores points for someone, or ends the game (a failed announced jink)."""
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    state = init(jax.random.split(jax.random.PRNGKey(5), 32))
    total = np.zeros(32)
    key = jax.random.PRNGKey(6)
    while not bool(state.terminated.all()):
        key, sub = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = step(state, jax.random.categorical(sub, logits).astype(jnp.int32))
        total += np.abs(np.asarray(state.rewards)).sum(-1)
        total += np.abs(np.asarray(getattr(state, "game_rewards", state.rewards * 0))).sum(-1)
    assert (total > 0).all()
    assert not np.asarray(state.illegal).any()


# ---------------------------------------------------------------------------- api_test catches


class _RewardsEveryStep(sf.spoil_five.SpoilFive):
    def _apply(self, state, action):
        after = super()._apply(state, action)
        return after.replace(rewards=after.rewards + 1.0)


class _KeepsRewards(sf.spoil_five.SpoilFive):
    def _settle(self, state):  # a finished hand keeps paying out when stepped again
        out = super()._settle(state)
        return out.replace(rewards=out.rewards + out.terminated.astype(jnp.float32))


class _SilentIllegal(sf.spoil_five.SpoilFive):
    def _end_illegal(self, state):
        return super()._end_illegal(state).replace(illegal=jnp.bool_(False))


class _TooFewDecisions(sf.spoil_five.SpoilFive):
    @property
    def max_decisions(self):
        return 3


class _BlindObservation(sf.spoil_five.SpoilFive):
    def observe(self, state, player):
        return super().observe(state, 0) * jnp.nan


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (_RewardsEveryStep, "rewards come only on the final step"),
        # (which check sees it first depends on the deals: a hand stepped after it ended)
        (_KeepsRewards, "stepping a terminated hand|a step that does not end the hand"),
        (_SilentIllegal, "must end the hand with state.illegal set"),
        (_TooFewDecisions, "max_decisions"),
        (_BlindObservation, "observe"),
    ],
    ids=["rewards-every-step", "keeps-rewards", "silent-illegal", "too-few-decisions", "nan-obs"],
)
def test_api_test_catches_broken_envs(cls, message):
    with pytest.raises(AssertionError, match=message):
        api_test(cls(2), num=4, no_jit=False)


def test_api_test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="Env"):
        api_test("spoil_five")
    with pytest.raises(ValueError, match="num"):
        api_test(sf.spoil_five.SpoilFive(2), num=0)


def test_testing_is_importable_as_attribute():
    import spoilfive_jax.testing as testing

    assert testing.api_test is api_test


def _broken(cls: type, kind: type, module: object, n: int, **changes: object) -> object:
    """A table of ``cls`` whose ``kind`` capability is ``module``'s with ``changes`` made."""
    from types import SimpleNamespace
    from typing import ClassVar

    from spoilfive_jax.core import capabilities as caps

    impl = SimpleNamespace(**{m: getattr(module, m) for m in caps.members(kind)})
    for name, fn in changes.items():
        setattr(impl, name, fn)

    class Broken(cls):  # type: ignore[misc, valid-type]
        capabilities: ClassVar = {**cls.capabilities, kind: impl}

    return Broken(n)


def test_the_conformance_test_catches_a_wrong_deck_deal() -> None:
    """A ``DeckDeals`` that reads past its ``deal_length``, or whose ``reward_bounds`` a hand
    leaves, fails the conformance check by name."""
    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.games.spoil_five import deck_deals
    from spoilfive_jax.tools.conformance import _deck_deals

    env = sf.spoil_five.SpoilFive(3)
    played = [jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 4))]
    _deck_deals(env, played, 0)
    short = _broken(
        sf.spoil_five.SpoilFive,
        caps.DeckDeals,
        deck_deals,
        3,
        deal_length=lambda env: 5 * env.num_players,  # the turn-up left out
    )
    with pytest.raises(AssertionError, match="past deal_length"):
        _deck_deals(short, played, 0)
    finished = played[0].replace(rewards=jnp.full((4, 3), 99.0, jnp.float32))
    with pytest.raises(AssertionError, match="outside reward_bounds"):
        _deck_deals(env, [*played, finished], 0)


def test_the_conformance_test_catches_wrong_teams() -> None:
    """Seats declared partners must share every hand's reward, and teams are numbered from 0."""
    from types import SimpleNamespace
    from typing import ClassVar

    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.tools.conformance import _teams

    def declaring(team_of: object) -> sf.spoil_five.SpoilFive:
        class Partnered(sf.spoil_five.SpoilFive):
            capabilities: ClassVar = {
                **sf.spoil_five.SpoilFive.capabilities,
                caps.Teams: SimpleNamespace(team_of=team_of),
            }

        return Partnered(4)

    _teams(sf.spoil_five.SpoilFive(4), 0)
    _teams(sf.make("forty_five", 4), 0)  # 0, 2 against 1, 3: their points are shared
    with pytest.raises(AssertionError, match="partners' rewards differ"):
        _teams(declaring(lambda env: np.array([0, 1, 0, 1], np.int32)), 0)
    with pytest.raises(AssertionError, match="numbered from 0"):
        _teams(declaring(lambda env: np.array([1, 2, 3, 4], np.int32)), 0)


@pytest.mark.slow  # (the checker checked: 12 s on a cold cache)
def test_the_conformance_test_catches_wrong_inference() -> None:
    """``Inference``: worlds of one position weigh the same number of plays, none before the
    first and some later, every recorded play is possible in a resampled world, and the
    shipped model is a distribution over the legal actions."""
    from types import SimpleNamespace

    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.games.forty_five import likelihood
    from spoilfive_jax.testing import _Tester
    from spoilfive_jax.tools.conformance import _inference

    env = sf.make("forty_five", 4)  # (its default table: the shipped agent is its model)
    history = _Tester(env, 2, 0).play()[0][::3]
    _inference(env, history, 0)

    def shifted(env, worlds, player, model):  # each later world charged one more even chance
        real = likelihood.play_log_likelihood(env, worlds, player, model)
        return real + jnp.arange(real.shape[0]) * jnp.log(0.5)

    def impossible(env, worlds, player, model):  # (one world: what an inexact resampler does)
        real = likelihood.play_log_likelihood(env, worlds, player, model)
        return real.at[0].add(likelihood.IMPOSSIBLE)

    everything = SimpleNamespace(action_probs=lambda s, seat: jnp.full((64,), 1 / 64))
    for changes, message in (
        ({"play_log_likelihood": lambda env, w, p, m: jnp.zeros(4)}, "no play was ever weighed"),
        ({"play_log_likelihood": shifted}, "weigh different numbers of plays"),
        ({"play_log_likelihood": impossible}, "a recorded play is impossible"),
        ({"trained_model": lambda env: everything}, "trained_model"),
    ):
        broken = _broken(sf.forty_five.FortyFive, caps.Inference, likelihood, 4, **changes)
        with pytest.raises(AssertionError, match=message):
            _inference(broken, history, 0)


def test_the_conformance_test_catches_a_playout_that_depends_on_its_width() -> None:
    """``Analysis.playout``: an action's values may not depend on the other actions tried
    beside it (``analyze`` tries them in chunks of varying width)."""
    from spoilfive_jax.core import capabilities as caps
    from spoilfive_jax.games.spoil_five import infer
    from spoilfive_jax.testing import _Tester
    from spoilfive_jax.tools.conformance import _analysis

    env = sf.spoil_five.SpoilFive(3)
    history = _Tester(env, 2, 0).play()[0][:1]  # (a dealt hand: more than one legal action)
    _analysis(env, history, 0)

    def widened(env, keys, states, actions, player, policy):
        values = infer.playout(env, keys, states, actions, player, policy)
        return {f: v + actions.shape[1] for f, v in values.items()}

    broken = _broken(sf.spoil_five.SpoilFive, caps.Analysis, infer, 3, playout=widened)
    with pytest.raises(AssertionError, match="depends on the other actions tried"):
        _analysis(broken, history, 0)
