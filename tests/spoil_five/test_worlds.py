"""Resampled worlds agree with every public event: the issue's example position, checked
against an exact enumeration of the deals that replay to its public record."""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
import spoilfive_jax.core.bits as bits
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.cards import parse_cards

ENV = sf.spoil_five.SpoilFive(3)
HANDS = ("K♦ 10♣ 6♥ 4♥ 5♣", "4♣ 10♥ J♠ 2♥ 10♦", "9♠ 9♥ 10♠ K♠ 6♠")
TURNUP, DEALER, CARRIED = "Q♦", 2, 2
PLAYS = ["6♥", "2♥", "9♥", "6♠", "K♦", "10♦", "5♣", "4♣", "10♠", "J♠"]
SEAT = 2  # to play: K♠ or 9♠


def _card(text: str) -> int:
    return parse_cards(text)[0]


def _position() -> sf.spoil_five.State:
    hands = np.array([parse_cards(h) for h in HANDS])
    state = ENV.init_from_deal(hands, _card(TURNUP), dealer=DEALER, carried=CARRIED)
    for c in PLAYS:
        state = ENV.checked_step(state, _card(c))
    return state


def _candidate_deals() -> np.ndarray:
    """int32[W, 3, 5]: every deal that keeps seat 2's hand and the cards the others played,
    their other cards any of the unseen ones (consistent or not)."""
    mine = set(parse_cards(HANDS[SEAT]))
    played = {c: _card(c) for c in PLAYS}
    order = [0, 1, 2, 2, 0, 1, 0, 1, 2, 1]  # who played each card of PLAYS
    shown = [[_card(c) for c, s in zip(PLAYS, order, strict=True) if s == seat] for seat in (0, 1)]
    unseen = sorted(set(range(52)) - mine - set(played.values()) - {_card(TURNUP)})
    deals = []
    for pair in itertools.combinations(unseen, 5 - len(shown[0])):
        for one in unseen:
            if one in pair:
                continue
            deals.append([shown[0] + list(pair), shown[1] + [one], sorted(mine)])
    return np.array(deals, np.int32)


@jax.jit
def _replay_and_value(hands: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(whether the deal replays to the example's public record, the exact values of K♠ for
    seat 2 under uniformly random play afterwards: chips, win, spoil).  The steps are scanned,
    so the step compiles a few times, not once a card."""
    start = ENV.init_from_deal(hands, _card(TURNUP), dealer=DEALER, carried=CARRIED)
    real_start, real = _real()
    ok = start.phase == real_start.phase  # no rob decision, as in the record
    ok &= start.current_player == real_start.current_player

    def replay(carry: tuple, a: jax.Array) -> tuple:
        state, ok = carry
        ok &= bits.has(state.legal_set, a)
        state = ENV.step(state, a)
        return (state, ok & ~state.terminated), None

    plays = jnp.asarray([_card(c) for c in PLAYS], jnp.int32)
    (state, ok), _ = jax.lax.scan(replay, (start, ok), plays)
    ok &= state.current_player == real.current_player
    state = ENV.step(state, jnp.int32(_card("K♠")))
    legal = state.legal_action_mask[:52]
    choices = jnp.argsort(~legal)[:2]  # seat 0's legal cards (one or two)
    count = legal.sum()

    def value(choice: jax.Array) -> jax.Array:
        def forced(carry: tuple, _: None) -> tuple:  # the last trick: forced
            s, total = carry
            s = ENV.step(s, jnp.argmax(s.legal_action_mask))
            return (s, total + s.rewards), None

        first = ENV.step(state, choice)
        (s, total), _ = jax.lax.scan(forced, (first, first.rewards), None, length=4)
        return jnp.stack(
            [
                total[SEAT],
                (s.winner == SEAT).astype(jnp.float32),
                (s.winner < 0).astype(jnp.float32),
            ]
        )

    values = jax.vmap(value)(choices)  # [2, 3]
    values = jnp.where((jnp.arange(2) < count)[:, None], values, 0.0)
    return ok, (values[0] + values[1]) / count


@functools.cache
def _real() -> tuple[sf.spoil_five.State, sf.spoil_five.State]:
    """(the example's first state, its position)."""
    hands = np.array([parse_cards(h) for h in HANDS])
    start = ENV.init_from_deal(hands, _card(TURNUP), dealer=DEALER, carried=CARRIED)
    return start, _position()


@pytest.fixture(scope="module")
def exact() -> dict[str, float]:
    deals = _candidate_deals()
    _real()  # (on the host, before tracing)
    ok, values = jax.vmap(_replay_and_value)(jnp.asarray(deals))
    ok, values = np.asarray(ok), np.asarray(values)
    assert 1000 < ok.sum() < len(deals)  # the record rules some deals out
    mean = values[ok].mean(0)
    return {"expected_chips": mean[0], "win_prob": mean[1], "spoil_prob": mean[2]}


def test_no_world_gives_another_seat_the_ace_nobody_robbed_with() -> None:
    state = _position()
    analysis = ENV.capability(caps.Analysis)
    worlds = analysis.resample_hidden_many(ENV, jax.random.PRNGKey(0), state, jnp.int32(SEAT), 4000)
    ace = _card("A♦")
    held = np.asarray(jax.vmap(lambda w: bits.has(w.hands, ace))(worlds))
    assert not held.any()


def test_the_example_analysed_matches_its_exact_values(exact: dict[str, float]) -> None:
    result = sf.analyze(1, ENV, _position(), 32_000, policy="random")
    k = _card("K♠")
    for field, value in exact.items():
        got, se = float(result.values[field][k]), float(result.ses[field][k])
        assert abs(got - value) <= 4 * se + 1e-6, (field, got, value, se)
