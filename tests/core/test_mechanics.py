"""The card mechanics every game shares (``core.ranking``, ``core.tricks``, ``core.deal``), checked
directly: the games' own tests check them again through every rule option."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import bits, cards, deal, ranking, tricks
from spoilfive_jax.core.bits import Bits, members
from spoilfive_jax.core.cards import parse_cards


def _set(text: str) -> Bits:
    return bits.const(parse_cards(text))


def test_ranking_matches_the_tables():
    every = jnp.arange(cards.NUM_CARDS)
    for trump in range(4):
        got = np.asarray(jax.jit(ranking.trump_strength)(every, trump))
        np.testing.assert_array_equal(got, cards.TRUMP_STRENGTH[trump])
        trumps = ranking.trump_set(jnp.int32(trump))
        assert members(trumps.lo, trumps.hi) == sorted(np.flatnonzero(got >= 0).tolist())
        suit = ranking.suit_set(jnp.int32(trump))
        assert members(suit.lo, suit.hi) == list(range(13 * trump, 13 * trump + 13))
    plain = np.asarray(ranking.plain_strength(every))
    mask = cards.PLAIN_STRENGTH >= 0
    np.testing.assert_array_equal(plain[mask], cards.PLAIN_STRENGTH[mask])


def test_seats():
    assert [int(tricks.next_seat(jnp.int32(s), 4)) for s in range(4)] == [1, 2, 3, 0]
    values = jnp.array([7, 8, 9])
    assert [int(tricks.seat_value(values, jnp.int32(s))) for s in range(3)] == [7, 8, 9]


def _plays(hand: str, trump: int, led: int, level: int, follow: str = "seed") -> list[str]:
    withhold = tricks.top_trumps(jnp.int32(trump), jnp.int32(level), 13, 12, 11)
    out = tricks.follow_plays(
        _set(hand), ranking.trump_set(jnp.int32(trump)), jnp.int32(led), withhold, False, follow
    )
    return sorted(cards.card_str(c) for c in members(out.lo, out.hi))


def test_follow_plays():
    # diamonds trump; clubs led: "seed" follows suit or trumps, "traditional" only suit
    assert _plays("2C 3D 4S", trump=1, led=0, level=-1) == ["2C", "3D"]
    assert _plays("2C 3D 4S", trump=1, led=0, level=-1, follow="traditional") == ["2C", "3D"]
    assert _plays("3D 4S", trump=1, led=0, level=-1, follow="traditional") == ["3D", "4S"]
    assert _plays("3D 4S", trump=1, led=0, level=-1) == ["3D"]
    # trump led: the 5 of trumps may be withheld from a lower lead, not from a higher one
    assert _plays("5D 4S", trump=1, led=tricks.TRUMP_CLASS, level=0) == ["4S", "5D"]
    assert _plays("5D 3D 4S", trump=1, led=tricks.TRUMP_CLASS, level=0) == ["3D", "5D"]
    assert _plays("AH 4S", trump=1, led=tricks.TRUMP_CLASS, level=12) == ["AH"]


def test_deal():
    class Packets:
        deal_packets = (3, 2)

    rows = deal.deal_positions(2, Packets())
    np.testing.assert_array_equal(rows, [[0, 1, 2, 6, 7], [3, 4, 5, 8, 9]])
    hands = deal.hands_from_deck(jnp.arange(52, dtype=jnp.int32), jnp.int32(1), 2, Packets())
    # the dealer is seat 1: seat 0 is the eldest hand and gets the first packet
    assert members(hands.lo[0], hands.hi[0]) == [0, 1, 2, 6, 7]
    for size in (52, 53):
        u24 = jax.random.bits(jax.random.PRNGKey(size), (size,), jnp.uint32) >> 8
        drawn = np.asarray(deal.draw_deck(u24, size))
        assert sorted(drawn.tolist()) == list(range(size))


def test_shuffled_deck_is_draw_deck_of_the_keys_draws_and_uniform():
    """``env.init``'s deal: ``shuffled_deck`` draws the cards ``draw_deck`` draws from
    ``deck_draws`` (any key implementation), a prefix of a permutation, and each deck position
    is uniform over the cards, for split keys, keys of consecutive seeds and counter keys of
    consecutive hands."""
    from spoilfive_jax.core import keys as keys_mod
    from spoilfive_jax.core.keys import COUNTER

    keys = [
        jax.random.PRNGKey(7),
        jax.random.key(7),
        jax.random.split(jax.random.PRNGKey(1))[1],
        jax.random.key(7, impl=COUNTER),
    ]
    for key in keys:
        for count, size in ((26, 52), (33, 53), (52, 52)):
            got = np.asarray(deal.shuffled_deck(key, count, size))
            want = np.asarray(deal.draw_deck(deal.deck_draws(key, count), size))
            np.testing.assert_array_equal(got, want)
            assert len(set(got.tolist())) == count and got.min() >= 0 and got.max() < size
    # different keys deal different decks; a draw's index moves the stream
    a, b = (deal.deck_draws(k, 8) for k in jax.random.split(jax.random.PRNGKey(0)))
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(deal.key_draws(keys[0], 3, 5), deal.key_draws(keys[0], 0, 8)[3:])
    # a typed key and its raw data deal one deck; a batch of keys is refused, not merged
    np.testing.assert_array_equal(
        deal.shuffled_deck(jax.random.PRNGKey(11), 26), deal.shuffled_deck(jax.random.key(11), 26)
    )
    with pytest.raises(ValueError, match="one key expected"):
        deal.shuffled_deck(jax.random.split(jax.random.PRNGKey(0), 3), 5)

    # every word of a counter key counts, not their sum: (s, id, t) is not hand id + 1's
    # decision t - 1, nor a hand's key the next hand's deal key (UNSET = DEAL + 1)
    def counter(*words: int) -> jax.Array:
        return jax.random.wrap_key_data(jnp.array(words, jnp.uint32), impl=COUNTER)

    pairs = [
        (counter(5, 10, 20), counter(5, 11, 19)),
        (
            keys_mod.hand_keys(jnp.uint32(3), jnp.arange(1, dtype=jnp.uint32))[0],
            keys_mod.deal_keys(jnp.uint32(3), jnp.arange(1, 2, dtype=jnp.uint32))[0],
        ),
    ]
    for one, other in pairs:
        assert not np.array_equal(deal.shuffled_deck(one, 26), deal.shuffled_deck(other, 26))
    # the resampler's stream, pinned (``key_draws``: moved, not changed)
    assert deal.key_draws(jax.random.PRNGKey(0), 0, 4).tolist() == [0, 11431808, 277834, 9952369]
    assert deal.key_draws(jax.random.PRNGKey(7), 5, 3).tolist() == [3769907, 692925, 4320558]
    # uniform positions: chi-square of each of three positions over 40,000 decks (df 51; the
    # 0.9999 quantile is about 97), split keys and keys of consecutive seeds
    n = 40_000
    split = jax.random.split(jax.random.PRNGKey(2026), n)
    seeds = jax.vmap(jax.random.PRNGKey)(jnp.arange(n))
    hands = keys_mod.deal_keys(jnp.uint32(5), jnp.arange(n, dtype=jnp.uint32))
    for batch in (split, seeds, hands):
        decks = np.asarray(jax.jit(jax.vmap(lambda k: deal.shuffled_deck(k, 26)))(batch))
        for pos in (0, 12, 25):
            counts = np.bincount(decks[:, pos], minlength=52)
            chi2 = ((counts - n / 52) ** 2 / (n / 52)).sum()
            assert chi2 < 97, (pos, chi2)


def test_rob_seat():
    def seat(hands: list[str], turnup: str, dealer: int = 0) -> int:
        sets = [_set(h) for h in hands]
        both = Bits(jnp.array([s.lo for s in sets]), jnp.array([s.hi for s in sets]))
        return int(deal.rob_seat(both, jnp.int32(cards.card_id(turnup)), jnp.int32(dealer)))

    assert seat(["2C 3C", "AD 4C"], "7D") == 1  # the ace of trumps robs
    assert seat(["2C 3C", "4C 5C"], "7D") == -1  # nobody holds it
    assert seat(["2C 3C", "AD 4C"], "AC", dealer=0) == 0  # an ace turned up: the dealer
    assert seat(["AH 3C", "4C 5C"], "7H") == 0  # hearts trump: the A♥ is the ace of trumps
    # the rule every layout calls once it has found the ace's holder its own way
    rule = jax.jit(deal.entitled_to_rob)
    turnups = jnp.array([cards.card_id(t) for t in ("7D", "AD", "AS", "KH", "AH")], jnp.int32)
    got = rule(turnups, jnp.int32(3), jnp.array([1, 1, -1, -1, 2], jnp.int32))
    np.testing.assert_array_equal(got, [1, 3, 3, -1, 3])  # an ace turned up: the dealer
    hands = [_set(h) for h in ("2C", "AD 4C", "AD", "5C")]  # (the lowest seat if two)
    both = Bits(jnp.array([h.lo for h in hands]), jnp.array([h.hi for h in hands]))
    aces = jnp.array([cards.card_id(c) for c in ("AD", "5C", "AS")], jnp.int32)
    np.testing.assert_array_equal(jax.vmap(lambda a: deal.ace_holder(both, a))(aces), [1, 3, -1])


def test_nth_small_matches_nth_on_small_sets():
    """``bits.nth_small`` (the random player's pick from <= 6 legal actions) gives ``nth``'s
    member for every index of random sets of 0..6 members spread over both words."""
    rng = np.random.default_rng(3)
    sets = [rng.choice(64, size=rng.integers(0, 7), replace=False) for _ in range(400)]
    words = [sum(1 << int(p) for p in s) for s in sets]
    lo = jnp.asarray([w & 0xFFFFFFFF for w in words], jnp.uint32)
    hi = jnp.asarray([w >> 32 for w in words], jnp.uint32)
    for n in range(6):
        k = jnp.full(len(sets), n, jnp.int32)
        small = np.asarray(bits.nth_small(Bits(lo, hi), k, 5))
        full = np.asarray(bits.nth(Bits(lo, hi), k))
        valid = np.array([n < len(s) for s in sets])
        np.testing.assert_array_equal(small[valid], full[valid])
        expect = [sorted(s)[n] for s in sets if n < len(s)]
        np.testing.assert_array_equal(small[valid], expect)
    empty = np.array([len(s) == 0 for s in sets])
    zero = bits.nth_small(Bits(lo, hi), jnp.zeros(len(sets), jnp.int32), 5)
    assert empty.any() and (np.asarray(zero)[empty] == 63).all()


def test_positions_of_maps_every_card_through_the_position_table():
    """``kernel.positions_of`` (the rollout kernels' layout of a card set: one table look-up a
    suit) puts each card of random sets of 0..52 cards, under each trump, at the position the
    game's table gives it: Spoil Five's and (with the joker's tables) the family's."""
    from spoilfive_jax.core import kernel
    from spoilfive_jax.games.forty_five import strength
    from spoilfive_jax.games.forty_five.rules import FortyFiveRules
    from spoilfive_jax.games.spoil_five import fast

    rng = np.random.default_rng(5)
    sets = [rng.choice(52, size=rng.integers(0, 53), replace=False) for _ in range(300)]
    trump = rng.integers(0, 4, len(sets))
    mask = np.zeros((len(sets), 52), bool)
    for i, s in enumerate(sets):
        mask[i, s] = True
    cards_set = bits.from_bool(jnp.asarray(mask))
    for position in (fast.POSITION, strength.tables(FortyFiveRules(joker=True))[0]):
        got = kernel.positions_of(cards_set, jnp.asarray(trump), kernel.suit_tables(position))
        for i, s in enumerate(sets):
            expect = sorted(int(position[trump[i], c]) for c in s)
            assert members(np.asarray(got.lo[i]), np.asarray(got.hi[i])) == expect


def test_the_follow_rule_is_one_on_card_ids_and_on_strength_positions():
    """``tricks.legal_follow`` is the one statement of following suit and reneging: on card ids
    (``follow_plays``, every public step) and on the kernels' strength positions
    (``kernel.follow_positions``) it allows the same cards of random hands, under each trump,
    lead (a plain suit, a trump, none), renege level and ``follow`` reading."""
    from spoilfive_jax.core import kernel
    from spoilfive_jax.games.spoil_five import fast

    rng = np.random.default_rng(11)
    b = 512
    hands = np.stack([rng.choice(52, size=5, replace=False) for _ in range(b)])
    mask = np.zeros((b, 52), bool)
    mask[np.arange(b)[:, None], hands] = True
    hand = bits.from_bool(jnp.asarray(mask))
    trump = jnp.asarray(rng.integers(0, 4, b), jnp.int32)
    led_class = jnp.asarray(rng.integers(-1, 5, b), jnp.int32)  # -1: a lead; 4: trumps led
    level = jnp.asarray(rng.integers(-1, 14, b), jnp.int32)
    led_class = jnp.where(led_class == trump, tricks.TRUMP_CLASS, led_class)  # (trumps led)
    # the slot of the suit led (a plain card's strength position >> 4), 2 for trumps, -1: none
    slot_of = jnp.asarray(fast.POSITION[:, 13 * np.arange(4) + 5] >> 4)  # [trump, suit]
    led_slot = jnp.where(
        led_class == tricks.TRUMP_CLASS,
        kernel.TRUMP_SLOT,
        jnp.where(led_class < 0, -1, slot_of[trump, jnp.clip(led_class, 0, 3)]),
    )
    positions = kernel.suit_tables(fast.POSITION)
    for follow in ("seed", "traditional"):

        def on_ids(h, t, c, lv, follow=follow):
            withhold = tricks.top_trumps(t, lv, 13, 12, 11)
            trumps = ranking.trump_set(t)
            return tricks.follow_plays(h, trumps, c, withhold, c < 0, follow)

        by_id = jax.vmap(on_ids)(hand, trump, led_class, level)
        want = kernel.positions_of(by_id, trump, positions)
        hand_at = kernel.positions_of(hand, trump, positions)
        got = kernel.follow_positions(hand_at, led_slot, level, 0x3FFF, 0x3800, follow)
        np.testing.assert_array_equal(np.asarray(got.lo), np.asarray(want.lo), follow)
        np.testing.assert_array_equal(np.asarray(got.hi), np.asarray(want.hi), follow)
        assert (np.asarray(bits.count(by_id)) < 5).any()  # (some hands were constrained)


def test_a_play_to_a_trick_takes_it_and_sets_the_renege_level():
    """``tricks.trick_after_play``: a lead takes the trick, a higher power takes it over, a lower
    one does not; the renege level by each reading; an unknown reading is a ValueError."""
    i = jnp.int32
    for renege, lead, under in (("deal", 9, 12), ("trick", 3, 12), ("led", 3, 7)):
        # a trump of strength 3 led (level 9 before it)
        out = tricks.trick_after_play(i(2), True, i(20), i(3), i(5), i(0), i(9), renege)
        assert tuple(map(int, out)) == (20, 2, lead), renege
        # a plain card of power 25 over the best 20 takes the trick; no trump: the level stays
        out = tricks.trick_after_play(i(3), False, i(25), i(-1), i(20), i(2), i(7), renege)
        assert tuple(map(int, out)) == (25, 3, 7), renege
        # a trump of strength 12 but power 4 (under the best 20) does not take it
        out = tricks.trick_after_play(i(4), False, i(4), i(12), i(20), i(2), i(7), renege)
        assert tuple(map(int, out)) == (20, 2, under), renege
    with pytest.raises(ValueError, match="renege must be"):
        tricks.trick_after_play(i(0), True, i(1), i(-1), i(-1), i(-1), i(-1), "never")


def test_the_strength_layout_places_each_suit_in_one_slot_under_every_trump():
    """``core.kernel``'s slots, which both games' kernels and tables build on: the plain suits
    take slots 0, 1 and 3 in suit order, the trumps slot 2, and a public led class maps to the
    slot of its cards."""
    from spoilfive_jax.core import kernel
    from spoilfive_jax.core.cards import PLAIN_STRENGTH, TRUMP_STRENGTH

    for trump in range(4):
        plain = [s for s in range(4) if s != trump]
        slots = [int(kernel.plain_slot(jnp.int32(s), jnp.int32(trump))) for s in plain]
        assert slots == list(kernel.PLAIN_SLOTS)
        seen = set()
        for card in range(52):
            ts, ps = int(TRUMP_STRENGTH[trump, card]), int(PLAIN_STRENGTH[card])
            p = kernel.strength_position(card, trump, ts, ps)
            slot = kernel.TRUMP_SLOT if ts >= 0 else slots[plain.index(card // 13)]
            assert divmod(p, kernel.SLOT_WIDTH) == (slot, ts if ts >= 0 else ps)
            seen.add(p)
        assert len(seen) == 52  # one position a card

        def led(led_class: int, trump: int = trump) -> int:
            return int(kernel.slot_of_class(jnp.int32(led_class), jnp.int32(trump)))

        assert [led(s) for s in plain] == slots
        assert (led(4), led(-1)) == (kernel.TRUMP_SLOT, -1)


def test_the_layouts_tables_are_built_once_for_every_user():
    """``core.kernel.position_tables``: the position of each card and the card at each
    position are inverse tables; Spoil Five's kernel, the family's (without a joker) and the
    PPO network read the same layout (``standard_tables``); each game adds its own actions
    (PASS, JINK, ...) at free positions."""
    from spoilfive_jax.core import kernel
    from spoilfive_jax.games.forty_five import strength
    from spoilfive_jax.games.spoil_five import fast

    position, card = kernel.standard_tables()
    assert position.shape == (4, 52) and card.shape == (4, 64)
    for t in range(4):
        np.testing.assert_array_equal(card[t, position[t]], np.arange(52))
        assert (card[t] >= 0).sum() == 52
    np.testing.assert_array_equal(fast.POSITION, position)
    family, actions = strength.tables(sf.forty_five.FortyFiveRules())
    np.testing.assert_array_equal(family[:, :52], position)
    assert (family[:, 52] == 63).all()  # no joker in play: never a card
    real = (card >= 0) & (card < 52)
    np.testing.assert_array_equal(np.where(real, fast.CARD, -1), card)
    np.testing.assert_array_equal(np.where(real, actions, -1), card)
