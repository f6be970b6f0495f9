"""Observations: layout and dtypes, a hand-traced deal block by block, no leakage of hidden
cards (other hands, the stock, the rob discard) into ``observe``, and the perfect-information
``observe_full``."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import Table, batched_step

import spoilfive_jax as sf
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.games.spoil_five import observe as ob

ENV3 = sf.spoil_five.SpoilFive(3)
_observe = jax.jit(sf.spoil_five.observe.observe)
_observe_all = jax.jit(
    jax.vmap(sf.spoil_five.observe.observe, in_axes=(None, 0))
)  # one state, every seat
_observe_full = jax.jit(sf.spoil_five.observe.observe_full)


def block(obs, name: str, n: int, full: bool = False) -> np.ndarray:
    off, size = ob.layout(n, full)[name]
    return np.asarray(obs)[off : off + size]


def cards_of(plane: np.ndarray) -> set[str]:
    return {sf.card_str(int(c)) for c in np.flatnonzero(plane)}


def seat_planes(obs, name: str, n: int) -> list[set[str]]:
    return [cards_of(row) for row in block(obs, name, n).reshape(n, 52)]


def rel(obs, name: str, n: int) -> int | None:
    """The relative seat one-hot in ``name`` (None if all zeros)."""
    v = block(obs, name, n)
    assert v.sum() in (0, 1)
    return int(np.argmax(v)) if v.sum() else None


# ---------------------------------------------------------------------------- layout


@pytest.mark.parametrize("n", range(2, 11))
def test_layout_is_contiguous_and_sized(n):
    for full, shape in ((False, ob.observation_shape(n)), (True, ob.full_observation_shape(n))):
        at = 0
        for off, size in ob.layout(n, full).values():
            assert off == at
            at += size
        assert (at,) == shape
    assert ob.observation_shape(n) == (179 + 116 * n,)
    assert ob.full_observation_shape(n) == (283 + 169 * n,)


def test_fixed_offsets_are_the_documented_constants():
    lay = ob.layout(5)
    for name in ("HAND", "PLAYED", "TURNUP", "TRUMP", "ROBBED", "PHASE", "LED", "TRICK_NUM"):
        assert lay[name][0] == getattr(ob, name)
    assert (ob.POT, ob.CARRIED, ob.JINKING, ob.FIXED_SIZE) == (176, 177, 178, 179)


@pytest.mark.parametrize("n", [2, 10])
def test_dtype_shape_and_values(n):
    env = sf.spoil_five.SpoilFive(n)

    def views(key):
        state = env.init(key)
        return (
            env.observe(state, 1),
            env.observe(state, state.current_player),
            sf.spoil_five.observe.observe_full(state),
        )

    shapes = (env.observation_shape, env.observation_shape, ob.full_observation_shape(n))
    for obs, shape in zip(jax.jit(views)(jax.random.PRNGKey(n)), shapes, strict=True):
        assert obs.dtype == jnp.float32 and obs.shape == shape
        chips = np.zeros(obs.shape, bool)
        chips[[ob.POT, ob.CARRIED]] = True
        assert set(np.unique(np.asarray(obs)[~chips]).tolist()) <= {0.0, 1.0}


# ---------------------------------------------------------------------------- a traced deal

HANDS3 = ["KH 2H 5H 6H 8S", "9C 2C 3C 4S 8H", "KC 3D 5S 6S 7H"]  # diamonds trump (7D up)


def test_traced_deal_block_by_block():
    t = Table(ENV3, HANDS3, "7D")  # dealer 0: seat 1 (eldest) leads; nobody holds AD
    o1 = _observe(t.state, 1)
    assert cards_of(block(o1, "HAND", 3)) == {"9C", "2C", "3C", "4S", "8H"}
    assert cards_of(block(o1, "TURNUP", 3)) == {"7D"}
    assert block(o1, "TRUMP", 3).tolist() == [0, 1, 0, 0]
    assert block(o1, "PHASE", 3).tolist() == [0, 1, 0, 0]  # play
    assert rel(o1, "DEALER", 3) == 2  # seat 0 is two to the left of seat 1
    assert rel(o1, "TO_ACT", 3) == 0 and rel(o1, "LEADER", 3) == 0
    assert block(o1, "TRICK_NUM", 3).tolist() == [1, 0, 0, 0, 0, 0]
    assert block(o1, "POT", 3)[0] == pytest.approx(1.0)  # 3 antes / 3 seats
    assert not block(o1, "LED", 3).any() and rel(o1, "WINNING", 3) is None
    # The same moment seen by seat 0: dealer is itself, seat 1 (to act) is on its left.
    o0 = _observe(t.state, 0)
    assert cards_of(block(o0, "HAND", 3)) == {"KH", "2H", "5H", "6H", "8S"}
    assert rel(o0, "DEALER", 3) == 0 and rel(o0, "TO_ACT", 3) == 1
    np.testing.assert_array_equal(
        block(o0, "TURNUP", 3), block(o1, "TURNUP", 3)
    )  # public blocks agree

    t.play("9C")  # seat 1 leads a club
    o2 = _observe(t.state, 2)
    assert seat_planes(o2, "TRICK", 3) == [set(), set(), {"9C"}]  # seat 1 = seat 2's left x2
    assert block(o2, "LED", 3).tolist() == [1, 0, 0, 0, 0]
    assert rel(o2, "WINNING", 3) == 2 and rel(o2, "TO_ACT", 3) == 0
    assert cards_of(block(o2, "PLAYED", 3)) == {"9C"}
    # Seat 2 holds KC: following is forced (club or trump); KC wins for now.
    t.play("KC")
    t.play("8S")  # seat 0 holds no club and no trump: anything goes; the trick is over
    o2 = _observe(t.state, 2)
    assert t.player == 2  # KC won: seat 2 leads
    assert seat_planes(o2, "TRICK", 3) == [set(), set(), set()]  # a lead: current trick empty
    assert seat_planes(o2, "LAST_TRICK", 3) == [{"KC"}, {"8S"}, {"9C"}]
    assert not block(o2, "LED", 3).any()
    assert block(o2, "TRICKS_WON", 3).reshape(3, 5)[:, 0].tolist() == [1, 0, 0]
    assert block(o2, "TRICK_NUM", 3).tolist() == [0, 1, 0, 0, 0, 0]
    t.play("7H")  # the next lead: the last trick is no longer shown
    o0 = _observe(t.state, 0)
    assert seat_planes(o0, "TRICK", 3) == [set(), set(), {"7H"}]
    assert seat_planes(o0, "LAST_TRICK", 3) == [set(), set(), set()]
    assert cards_of(block(o0, "PLAYED", 3)) == {"9C", "KC", "8S", "7H"}


def test_rob_is_public_but_the_discard_is_not():
    # Hearts trump (6H up); seat 2 holds AH, the ace of trumps, and robs discarding 2C.
    hands = ["KD 2D 5C 6C 8S", "9C 3C 4C 4S 8D", "AH 2C 5S 6S 7S"]
    t = Table(ENV3, hands, "6H")
    assert t.phase == "rob" and t.player == 2
    o1 = _observe(t.state, 1)
    assert block(o1, "PHASE", 3).tolist() == [1, 0, 0, 0]
    assert rel(o1, "TO_ACT", 3) == 1 and rel(o1, "ROBBER", 3) is None
    t.act("2C")
    for seat in range(3):
        o = _observe(t.state, seat)
        assert block(o, "ROBBED", 3)[0] == 1
        assert rel(o, "ROBBER", 3) == (2 - seat) % 3
        assert cards_of(block(o, "TURNUP", 3)) == {"6H"}
        # a different discard changes nobody's observation, not even the robber's
        other = t.state.replace(discard=jnp.int32(sf.card_id("5S")))
        np.testing.assert_array_equal(np.asarray(o), np.asarray(_observe(other, seat)))
    assert cards_of(block(_observe(t.state, 2), "HAND", 3)) == {"AH", "6H", "5S", "6S", "7S"}
    full = _observe_full(t.state)
    assert cards_of(block(full, "DISCARD", 3, full=True)) == {"2C"}
    assert int(np.argmax(block(full, "ENTITLED", 3, full=True))) == 2


def test_a_declined_rob_stays_hidden():
    hands = ["KD 2D 5C 6C 8S", "9C 3C 4C 4S 8D", "AH 2C 5S 6S 7S"]
    t = Table(ENV3, hands, "6H")
    t.act("PASS")
    for seat in (0, 1):
        o = _observe(t.state, seat)
        assert block(o, "ROBBED", 3)[0] == 0 and rel(o, "ROBBER", 3) is None
        nobody = t.state.replace(robber=jnp.int32(-1))
        np.testing.assert_array_equal(np.asarray(o), np.asarray(_observe(nobody, seat)))


def test_jink_and_end_of_hand_blocks():
    # Seat 1 takes the first three tricks with top trumps, jinks, and loses trick 4.
    hands = ["2C 3C 4C 6C 7C", "5D JD AH 2S 3S", "KC QC JC KS TS"]
    t = Table(ENV3, hands, "8D")
    t.play("5D KC 2C  JD QC 3C  AH JC 4C")  # seat 1, then 2, then 0
    assert t.phase == "jink" and t.player == 1
    o0 = _observe(t.state, 0)
    assert block(o0, "PHASE", 3).tolist() == [0, 0, 1, 0]
    assert block(o0, "TRICKS_WON", 3).reshape(3, 5)[1].tolist() == [1, 1, 1, 0, 0]
    assert seat_planes(o0, "LAST_TRICK", 3) == [{"4C"}, {"AH"}, {"JC"}]
    t.act("JINK")
    o0 = _observe(t.state, 0)
    assert block(o0, "JINKING", 3)[0] == 1 and rel(o0, "JINKER", 3) == 1
    t.play("2S KS 6C")  # KS beats 2S: the jink fails, the hand is over
    assert t.state.terminated
    o2 = _observe(t.state, 2)
    assert block(o2, "PHASE", 3).tolist() == [0, 0, 0, 1]
    assert rel(o2, "TO_ACT", 3) is None and rel(o2, "WINNER", 3) is None
    assert seat_planes(o2, "LAST_TRICK", 3) == [{"KS"}, {"6C"}, {"2S"}]


# ---------------------------------------------------------------------------- no leakage


@functools.cache
def random_states(n: int, games: int = 64, seed: int = 0) -> sf.spoil_five.State:
    """A batch (host numpy leaves) of states met along ``games`` random games: every live state
    and a few terminated ones.  64 games: the batch shape ``test_equivalence`` compiles."""
    env = sf.spoil_five.SpoilFive(n)
    init = jax.jit(jax.vmap(env.init))
    step = batched_step(env)
    state = init(jax.random.split(jax.random.PRNGKey(seed), games))
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(5 * n + 2):
        host = jax.device_get(state)
        keep = ~host.terminated | (rng.random(games) < 0.05)
        parts.append(jax.tree.map(lambda x, keep=keep: x[keep], host))
        mask = np.asarray(host.legal_action_mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int32)
        state = step(state, actions)
    return jax.tree.map(lambda *xs: np.concatenate(xs), *parts)


def pick(batch: sf.spoil_five.State, i) -> sf.spoil_five.State:
    return jax.tree.map(lambda x: x[i], batch)


def card_set(lo, hi) -> set[int]:
    word = int(lo) | int(hi) << 32
    return {c for c in range(52) if word >> c & 1}


def reshuffle_hidden(
    batch: sf.spoil_five.State, i: int, player: int, rng: np.random.Generator
) -> tuple:
    """State ``i`` with the same public record and the same hand for ``player``, every card the
    player cannot see (other hands, the stock, the rob discard) dealt again at random (hand
    sizes kept): returns its (hands.lo, hands.hi, discard)."""
    lo, hi = batch.hands.lo[i], batch.hands.hi[i]
    hands = [card_set(lo[s], hi[s]) for s in range(lo.shape[0])]
    played = card_set(batch.played.lo[i], batch.played.hi[i])
    turnup = int(batch.turnup[i])
    pool = sorted(set(range(52)) - hands[player] - played - {turnup})
    rng.shuffle(pool)
    new = []
    for s, h in enumerate(hands):
        keep = set(h) if s == player else {turnup} & h  # a robbed turn-up stays where seen
        take = len(h) - len(keep)
        new.append(keep | set(pool[:take]))
        pool = pool[take:]
    discard = int(pool.pop()) if batch.robbed[i] else -1
    words = [sum(1 << c for c in h) for h in new]
    new_lo = np.array([w & 0xFFFFFFFF for w in words], np.uint32)
    new_hi = np.array([w >> 32 for w in words], np.uint32)
    return new_lo, new_hi, discard


_observe_batch = jax.jit(jax.vmap(sf.spoil_five.observe.observe))
_observe_full_batch = jax.jit(jax.vmap(sf.spoil_five.observe.observe_full))


@pytest.mark.parametrize("n", [3, pytest.param(6, marks=pytest.mark.slow)])
def test_hidden_cards_never_change_the_observation(n):
    rng = np.random.default_rng(n)
    states = random_states(n)
    # every third state, and the first robbed and the first finished one wherever they fall
    # (so the sample holds both kinds whatever the deals)
    robbed, done = np.asarray(states.robbed), np.asarray(states.terminated)
    assert robbed.any() and done.any()
    sample = np.arange(0, states.turnup.shape[0], 3)
    states = pick(states, np.union1d(sample, [np.argmax(robbed), np.argmax(done)]))
    count = states.turnup.shape[0]
    idx = np.repeat(np.arange(count), n)
    players = np.tile(np.arange(n, dtype=np.int32), count)
    orig = pick(states, idx)
    shuffled = [reshuffle_hidden(states, i, p, rng) for i, p in zip(idx, players, strict=True)]
    lo, hi, discard = (np.stack(x) for x in zip(*shuffled, strict=True))
    other = orig.replace(hands=Bits(lo, hi), discard=discard.astype(np.int32))
    a = np.asarray(_observe_batch(orig, players))
    b = np.asarray(_observe_batch(other, players))
    np.testing.assert_array_equal(a, b)
    # observe_full sees the difference, in its hidden blocks only (and seat 0's hand)
    fa, fb = np.asarray(_observe_full_batch(orig)), np.asarray(_observe_full_batch(other))
    assert (fa != fb).any(axis=1).mean() > 0.5
    pub = slice(ob.PLAYED, ob.observation_shape(n)[0])
    np.testing.assert_array_equal(fa[:, pub], fb[:, pub])


def test_observers_differ_and_share_the_public_record():
    state = pick(random_states(6), 40)
    obs = np.asarray(_observe_all(state, jnp.arange(6)))
    for p in range(1, 6):
        assert not np.array_equal(obs[0], obs[p])
    # PLAYED..JINKING are seat-free: the same for every observer
    np.testing.assert_array_equal(obs[:, ob.PLAYED : ob.FIXED_SIZE], obs[[0] * 6, ob.PLAYED : 179])


# ---------------------------------------------------------------------------- perfect information


@pytest.mark.parametrize("n", [3, pytest.param(6, marks=pytest.mark.slow)])
def test_full_observation_accounts_for_every_card(n):
    states = random_states(n)
    fulls = np.asarray(_observe_full_batch(states))
    own = np.asarray(_observe_batch(states, np.zeros(states.turnup.shape[0], np.int32)))
    for i in range(0, fulls.shape[0], 5):
        full = fulls[i]
        hands = block(full, "HANDS", n, full=True).reshape(n, 52)
        lo, hi = states.hands.lo[i], states.hands.hi[i]
        for s in range(n):
            assert set(np.flatnonzero(hands[s]).tolist()) == card_set(lo[s], hi[s])
        face_up = np.zeros(52)
        if not states.robbed[i]:
            face_up[int(states.turnup[i])] = 1
        total = (
            hands.sum(0)
            + block(full, "PLAYED", n, full=True)
            + block(full, "DISCARD", n, full=True)
            + block(full, "STOCK", n, full=True)
            + face_up
        )
        np.testing.assert_array_equal(total, np.ones(52))  # each card exactly once
        assert block(full, "STOCK", n, full=True).sum() == 52 - 5 * n - 1
        # the first block is seat 0's own observation
        np.testing.assert_array_equal(full[: ob.observation_shape(n)[0]], own[i])


# ---------------------------------------------------------------------------- information state


def test_information_record_is_public_and_resampling_leaks_nothing():
    """``cannot_hold`` (the per-seat information-state record) is public: a world re-dealt
    consistently with a seat's knowledge (``resample_hidden``) keeps it, keeps the seat's
    observation bit for bit, and the record never contains a card its seat holds."""
    n = 4
    env = sf.spoil_five.SpoilFive(n)
    states = random_states(n)
    live = np.flatnonzero(~states.terminated)
    live = live[np.linspace(0, live.shape[0] - 1, 32).astype(int)]
    batch = pick(states, live)
    players = np.asarray(batch.current_player)
    worlds = jax.jit(
        jax.vmap(functools.partial(env.capability(sf.capabilities.Analysis).resample_hidden, env))
    )(jax.random.split(jax.random.PRNGKey(0), live.shape[0]), batch, players)
    worlds = jax.device_get(worlds)
    np.testing.assert_array_equal(worlds.cannot_hold.lo, batch.cannot_hold.lo)
    np.testing.assert_array_equal(worlds.cannot_hold.hi, batch.cannot_hold.hi)
    np.testing.assert_array_equal(
        np.asarray(_observe_batch(batch, players)), np.asarray(_observe_batch(worlds, players))
    )
    for s in (batch, worlds):  # nobody holds a card it has shown it does not hold
        assert not (np.asarray(s.hands.lo) & np.asarray(s.cannot_hold.lo)).any()
        assert not (np.asarray(s.hands.hi) & np.asarray(s.cannot_hold.hi)).any()
    assert (np.asarray(batch.cannot_hold.lo) | np.asarray(batch.cannot_hold.hi)).any()
    assert (np.asarray(worlds.hands.lo) != np.asarray(batch.hands.lo)).any()
