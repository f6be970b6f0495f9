"""Invariants by property test (hypothesis): random decks, dealers, carried pots and legal (or,
once, illegal) actions, driven through the compiled step.

- the 52 cards are conserved: hands + played + the card aside (the rob discard, or the turn-up
  when nobody robbed) + the undealt stock hold every card exactly once;
- in a live hand exactly one player acts: 0 <= current_player < N with a non-empty legal mask
  that fits the phase; once over, current_player == -1;
- a hand ends within 5N+2 decisions (a rob, 5 tricks of N plays, a jink decision);
- rewards are zero on every step but the last, and the chips balance: sum(rewards) ==
  carried - carried_out (the players' net loss is the pot's growth).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from conftest import hands_of, jit_step
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spoilfive_jax as sf
from spoilfive_jax.core.bits import members
from spoilfive_jax.games.spoil_five.game import PHASE_JINK, PHASE_PLAY, PHASE_ROB

R = sf.spoil_five.Rules
# Tables compiled once each (checked_step's compile is shared with test_engine for the first
# three).
ENVS = [
    sf.spoil_five.SpoilFive(2),
    sf.spoil_five.SpoilFive(3),
    sf.spoil_five.SpoilFive(10),
    sf.spoil_five.SpoilFive(4, R.traditional()),
    sf.spoil_five.SpoilFive(6, R(deal_packets=(3, 2), renege="trick", ante=2, jink_bonus=3)),
]
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def check_invariants(
    env: sf.spoil_five.SpoilFive, state: sf.spoil_five.State, deck: np.ndarray
) -> list[int]:
    """Check one hand's invariants; returns the legal actions (empty once terminated)."""
    n = env.num_players
    legal = env.legal_actions(state)
    mask = np.asarray(state.legal_action_mask)
    s = jax.device_get(state)  # host copy: plain numpy from here on
    hands = hands_of(s)
    played = set(members(s.played.lo, s.played.hi))
    aside = int(s.discard) if s.robbed else int(s.turnup)
    stock = deck[5 * n + 1 :].tolist()
    every = [c for h in hands for c in h] + sorted(played) + [aside] + stock
    assert sorted(every) == list(range(52))  # each card exactly once
    assert int(s.turnup) == deck[5 * n]
    if s.robbed:  # the robber took the turn-up (and may have played it since)
        assert int(s.turnup) in hands[int(s.robber)] | played
    # every completed trick has one winner
    assert int(s.tricks_won.sum()) == int(s.trick_num) == len(played) // n
    p = int(s.current_player)
    if s.terminated:
        assert p == -1 and not legal and mask.all()
        return legal
    assert 0 <= p < n and mask.any() and legal == np.flatnonzero(mask).tolist()
    assert (s.rewards == 0).all()
    if s.phase == PHASE_ROB:
        assert p == int(s.robber) and set(legal) - {sf.spoil_five.PASS} == hands[p]
    elif s.phase == PHASE_PLAY:
        assert set(legal) <= hands[p]
    else:
        assert s.phase == PHASE_JINK and legal == [sf.spoil_five.JINK, sf.spoil_five.CLAIM]
        assert int(s.tricks_won[p]) == 3 and int(s.trick_num) == 3
    return legal


deals = st.tuples(
    st.sampled_from(ENVS),
    st.permutations(range(52)),
    st.integers(0, 9),  # dealer (mod N)
    st.integers(0, 12),  # carried
)


@SETTINGS
@given(deal=deals, data=st.data())
def test_invariants_over_random_legal_play(deal, data):
    env, deck, dealer, carried = deal
    n = env.num_players
    deck = np.array(deck)
    s = env.init_from_deck(deck, dealer=dealer % n, carried=carried)
    pot0 = int(s.pot)
    decisions = 0
    while legal := check_invariants(env, s, deck):
        assert int(s.pot) == pot0  # the pot only changes hands at the end
        s = env.checked_step(s, data.draw(st.sampled_from(legal)))
        decisions += 1
        assert decisions <= 5 * n + 2
    s = jax.device_get(s)
    rewards = s.rewards
    assert rewards.sum() == int(s.carried) - int(s.carried_out) == carried - int(s.carried_out)
    if int(s.winner) >= 0:
        assert int(s.carried_out) == 0 and int(s.tricks_won[int(s.winner)]) >= 3
        assert rewards[int(s.winner)] > 0
    else:
        assert int(s.carried_out) == int(s.pot) == pot0  # spoiled or a failed jink
        assert (rewards <= 0).all()


ENV_ILLEGAL = sf.spoil_five.SpoilFive(3)


@SETTINGS
@given(
    deck=st.permutations(range(52)),
    dealer=st.integers(0, 2),
    carried=st.integers(0, 6),
    when=st.integers(0, 16),
    data=st.data(),
)
def test_an_illegal_action_anywhere_ends_the_hand_and_balances(deck, dealer, carried, when, data):
    env = ENV_ILLEGAL
    step = jit_step(env)
    deck = np.array(deck)
    s = env.init_from_deck(deck, dealer=dealer, carried=carried)
    for _ in range(when):
        legal = env.legal_actions(s)
        if not legal:
            return
        s = step(s, jnp.int32(data.draw(st.sampled_from(legal))))
    legal = env.legal_actions(s)
    if not legal:
        return
    illegal = sorted(set(range(-3, 60)) - set(legal))
    offender, pot = int(s.current_player), int(s.pot)
    out = step(s, jnp.int32(data.draw(st.sampled_from(illegal))))
    assert bool(out.terminated) and bool(out.illegal) and int(out.current_player) == -1
    assert int(out.pot) == pot + env.rules.illegal_penalty == int(out.carried_out)
    rewards = np.asarray(out.rewards)
    assert rewards.sum() == carried - int(out.carried_out)
    assert rewards[offender] == -env.rules.ante - env.rules.illegal_penalty
    assert (np.delete(rewards, offender) == -env.rules.ante).all()
    check_invariants(env, out, deck)
