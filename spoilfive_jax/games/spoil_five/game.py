"""The pure rules of one hand of Spoil Five (RULES.md §3-§6) as jittable array functions.

Everything here is written for ONE hand and batched with ``jax.vmap``.  ``num_players`` (N) and
``rules`` are static Python values; every other value is an array.  Cards in hands, played cards
and legal actions are 64-position bitsets held as two uint32 words (``bits.Bits``), so following
suit, reneging and the trick winner are a handful of bitwise ops with no Python branching and no
table gathers.  Every per-hand value is a scalar or a short per-seat vector, so a vmapped batch is
a set of ``[B]`` / ``[B, N]`` arrays that XLA fuses into a few vectorised loops.

Layout of ``State``: see the field comments (N = num_players); ``state_bytes(N)`` gives the
bytes of one hand.  The rob discard is kept (cards are conserved) but is hidden information:
observations never read it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import ACE_OF_HEARTS, NUM_CARDS
from spoilfive_jax.games.spoil_five.rules import Rules

# Actions (RULES.md §4, §6).  0..51: play that card, or in the rob decision discard it.
NUM_ACTIONS = 55
PASS = 52
JINK = 53
CLAIM = 54

# Phases.
PHASE_ROB, PHASE_PLAY, PHASE_JINK, PHASE_DONE = 0, 1, 2, 3
PHASE_NAMES = ("rob", "play", "jink", "done")

TRUMP_CLASS = 4  # ``led_class`` of a trump lead (0..3: the plain suit led)
NO_CARD = -1
_TRUMP_POWER = 16  # trick power of a trump = 16 + its strength; plain cards of the led suit 0..12

# Constant sets, built once at import (host numpy scalars).
_AH = bits.const([ACE_OF_HEARTS])
_ALL_ACTIONS = bits.const(range(NUM_ACTIONS))
_PASS_SET = bits.const([PASS])
_JINK_CLAIM_SET = bits.const([JINK, CLAIM])
_ALL_CARDS = bits.const(range(NUM_CARDS))
_SUIT_MASK = np.uint32((1 << 13) - 1)


@dataclasses.dataclass(frozen=True)
class State:
    """One hand of Spoil Five; batch it with ``jax.vmap`` (every field gains a leading [B]).

    Bitset fields are ``Bits(lo, hi)`` pairs of uint32 arrays (positions 0..63, see ``bits``).
    """

    current_player: jax.Array  # int32[]: seat to act; -1 once terminated
    terminated: jax.Array  # bool[]
    truncated: jax.Array  # bool[]: always False (a hand ends by itself within 5N+2 decisions)
    rewards: jax.Array  # float32[N]: net chips of the hand, only on the step that ends it
    tricks_won: jax.Array  # int32[N]
    hands: Bits  # uint32[N] x 2: card set held by each seat
    legal_set: Bits  # uint32[] x 2: legal actions of current_player (all 55 once terminated)
    phase: jax.Array  # int32[]: PHASE_ROB / PHASE_PLAY / PHASE_JINK / PHASE_DONE
    dealer: jax.Array  # int32[]
    turnup: jax.Array  # int32[]: card id turned up; its suit is trump
    trump: jax.Array  # int32[]: trump suit 0..3
    robber: jax.Array  # int32[]: seat entitled to rob this hand, -1 if nobody
    robbed: jax.Array  # bool[]: the robber took the turn-up (public)
    discard: jax.Array  # int32[]: the robber's discard, -1 if none (HIDDEN information)
    leader: jax.Array  # int32[]: seat that leads (or led) the current trick
    trick_cards: jax.Array  # int32[N]: card each seat played to the current trick, -1 if none;
    #   until the leader leads again it still shows the last completed trick
    led_class: jax.Array  # int32[]: suit led 0..3, 4 for a trump lead, -1 before the first lead
    best_power: jax.Array  # int32[]: trick power of the winning card so far (``trick_power``)
    best_seat: jax.Array  # int32[]: seat winning the current (or last) trick
    renege_level: jax.Array  # int32[]: a top trump may be withheld only if stronger than this
    played: Bits  # uint32[] x 2: cards played to tricks so far
    cannot_hold: Bits  # uint32[N] x 2: PUBLIC information-state record: cards each seat has
    #   shown it does not hold (a play that would have been illegal had it held any of them:
    #   a void in the suit led, no trump, no trump it could not renege); ``revealed_void``
    trick_num: jax.Array  # int32[]: tricks completed, 0..5
    jinker: jax.Array  # int32[]: seat that declared a jink, -1 if none
    pot: jax.Array  # int32[]: chips in the pot (carried + antes + penalties)
    carried: jax.Array  # int32[]: chips carried in from spoiled hands
    winner: jax.Array  # int32[]: seat that took the pot, -1 (not yet, spoiled, jink failed)
    illegal: jax.Array  # bool[]: the hand ended on an illegal action
    _step_count: jax.Array  # int32[]: decisions taken

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool[55]: legal actions of ``current_player`` (all True once terminated, as pgx)."""
        return bits.to_bool(self.legal_set, NUM_ACTIONS)

    @property
    def observation(self) -> jax.Array:
        """float32[..., D]: ``observe(self, current_player)`` (seat 0's view once terminated).

        Computed on access, not stored (the rollout kernels never pay for it); works on a
        batched state too.  Layout: ``spoilfive_jax.games.spoil_five.observe``.
        """
        from spoilfive_jax.games.spoil_five.observe import current_observation

        return current_observation(self)

    @property
    def num_players(self) -> int:
        return int(self.tricks_won.shape[-1])

    @property
    def carried_out(self) -> jax.Array:
        """int32[]: chips carried to the next hand (the pot of a spoiled or failed hand)."""
        return jnp.where(self.terminated & (self.winner < 0), self.pot, 0)

    def replace(self, **changes: Any) -> State:
        return dataclasses.replace(self, **changes)

    def _repr_svg_(self) -> str | None:
        """Jupyter shows one hand as ``render_svg(self)`` (the table view, every hand face up);
        a batched state has no picture (None: Jupyter falls back to the text repr)."""
        from spoilfive_jax.games.spoil_five.render import render_svg

        if np.ndim(self.current_player) != 0:
            return None
        return render_svg(self)


jax.tree_util.register_dataclass(
    State, data_fields=[f.name for f in dataclasses.fields(State)], meta_fields=[]
)


def state_bytes(num_players: int, rules: Rules | None = None) -> int:
    """Bytes of one hand's ``State`` in memory (measured from the real field shapes)."""
    shapes = jax.eval_shape(
        lambda: deal_from_deck(
            jnp.arange(NUM_CARDS, dtype=jnp.int32),
            jnp.int32(0),
            jnp.int32(0),
            num_players,
            rules or Rules(),
        )
    )
    return sum(int(np.prod(x.shape)) * x.dtype.itemsize for x in jax.tree.leaves(shapes))


# --------------------------------------------------------------------------- small helpers


def seat_value(values: jax.Array, seat: jax.Array) -> jax.Array:
    """``values[seat]`` for a per-seat vector, as a chain of selects (no gather, no reduce)."""
    out = values[0]
    for i in range(1, values.shape[0]):
        out = jnp.where(seat == i, values[i], out)
    return out


def seat_bits(sets: Bits, seat: jax.Array) -> Bits:
    return Bits(seat_value(sets.lo, seat), seat_value(sets.hi, seat))


def next_seat(seat: jax.Array, num_players: int) -> jax.Array:
    return jnp.where(seat + 1 == num_players, 0, seat + 1)


def antes(dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules) -> jax.Array:
    """int32[N]: chips each seat antes this hand (RULES.md §6)."""
    seats = jnp.arange(num_players)
    if rules.ante_after_spoil == "all":
        pays = jnp.ones(num_players, jnp.bool_)
    else:
        pays = (carried == 0) | (seats == dealer)
    return jnp.where(pays, rules.ante, 0).astype(jnp.int32)


def suit_set(suit: jax.Array) -> Bits:
    """The 13 cards of ``suit`` (positions 13s..13s+12) as a set, by arithmetic."""
    k = (jnp.asarray(suit, jnp.int32) * 13).astype(jnp.uint32)
    m, zero = jnp.uint32(_SUIT_MASK), jnp.uint32(0)
    lo = jnp.where(k < 32, m << (k & 31), zero)
    hi = jnp.where(k >= 32, m << (k & 31), jnp.where(k > 19, m >> ((32 - k) & 31), zero))
    return Bits(lo, hi)


def trump_set(trump: jax.Array) -> Bits:
    """The trumps when ``trump`` is the trump suit: its 13 cards and A♥."""
    return suit_set(trump) | Bits(*_AH)


def trump_strength(card: jax.Array, trump: jax.Array) -> jax.Array:
    """int32: strength of ``card`` as a trump (RULES.md §2; -1 if not a trump).

    Top trumps 13 (5), 12 (J), 11 (A♥); ace of trumps 10; the rest 0..9 with the red order
    K Q 10 9 8 7 6 4 3 2 and the black order K Q 2 3 4 6 7 8 9 10.  Matches
    ``cards.TRUMP_STRENGTH`` (tested).
    """
    c = jnp.asarray(card, jnp.int32)
    r = c % 13
    in_suit = c // 13 == trump
    red = (trump == 1) | (trump == 2)
    red_low = r - 1 - (r > 4) - (r > 10)  # K9 Q8 T7 ... 4:2 3:1 2:0
    black_low = jnp.where(r >= 11, r - 3, 8 - r + (r > 4))  # K9 Q8, 2:7 ... T:0
    low = jnp.where(red, red_low, black_low)
    s = jnp.where(r == 4, 13, jnp.where(r == 10, 12, jnp.where(r == 0, 10, low)))
    return jnp.where(c == ACE_OF_HEARTS, 11, jnp.where(in_suit, s, -1))


def plain_strength(card: jax.Array) -> jax.Array:
    """int32: strength of ``card`` in its own suit as a plain card (0..12, K = 12).

    Red: K Q J 10 ... 2 A; black: K Q J A 2 3 ... 10.  Matches ``cards.PLAIN_STRENGTH``.
    """
    c = jnp.asarray(card, jnp.int32)
    r = c % 13
    s = c // 13
    red = (s == 1) | (s == 2)
    black = jnp.where(r >= 10, r, jnp.where(r == 0, 9, 9 - r))
    return jnp.where(red, r, black)


def trick_power(card: jax.Array, trump: jax.Array, led_class: jax.Array) -> jax.Array:
    """int32: how strongly ``card`` competes for a trick led with ``led_class``.

    16 + trump strength for a trump, plain strength (0..12) for a card of the suit led, -1 for
    a card of a third suit (it can never win).
    """
    ts = trump_strength(card, trump)
    plain = jnp.where(jnp.asarray(card) // 13 == led_class, plain_strength(card), -1)
    return jnp.where(ts >= 0, _TRUMP_POWER + ts, plain)


# --------------------------------------------------------------------------- legality


def legal_plays(
    hand: Bits,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: Rules,
) -> Bits:
    """The cards of ``hand`` that may be played (RULES.md §5)."""
    trumps = trump_set(trump)
    held_trumps = hand & trumps
    # Plain suit led: follow suit or trump ("seed": obliged if holding either).
    suit_led = suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    follow = hand & (suit_led | trumps)
    must = bits.nonempty(follow if rules.follow == "seed" else hand & suit_led)
    plain_legal = bits.where(must, follow, hand)
    # Trump led: a top trump (5 = 13, J = 12, A♥ = 11) stronger than the renege level may be
    # withheld; holding any other trump forces a trump.
    eligible = renege_eligible(trump, renege_level)
    forced = bits.nonempty(held_trumps.without(eligible))
    trump_legal = bits.where(forced, held_trumps, hand)
    followed = bits.where(led_class == TRUMP_CLASS, trump_legal, plain_legal)
    return bits.where(leading, hand, followed)


def renege_eligible(trump: jax.Array, renege_level: jax.Array) -> Bits:
    """The top trumps (5 = 13, J = 12, A♥ = 11) stronger than ``renege_level``: those a player
    may withhold from a trump lead."""
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    return (
        bits.where(renege_level < 13, bits.bit(trump * 13 + 4), zero)
        | bits.where(renege_level < 12, bits.bit(trump * 13 + 10), zero)
        | bits.where(renege_level < 11, Bits(*_AH), zero)
    )


def revealed_void(
    card: jax.Array,
    trump: jax.Array,
    led_class: jax.Array,
    renege_level: jax.Array,
    leading: jax.Array,
    rules: Rules,
) -> Bits:
    """The cards a player has shown it does NOT hold by playing ``card`` (RULES.md §5).

    ``legal_plays`` allows ``card`` from a hand H exactly when H holds none of the returned set
    (and holds ``card``), so the set is what a consistent deal must keep out of the player's
    hand from then on.  Plain suit led: a card of a third suit shows the player void in the
    suit led and, under ``follow="seed"``, without trumps.  Trump led: a plain card shows no
    trump but the top trumps it may renege (``renege_eligible`` at the renege level before the
    play).  A lead, a card of the suit led and any trump show nothing.
    """
    trumps = trump_set(trump)
    suit_led = suit_set(jnp.clip(led_class, 0, 3)).without(Bits(*_AH))
    c = bits.bit(card)
    is_trump = bits.nonempty(c & trumps)
    in_suit = bits.nonempty(c & suit_led)
    zero = Bits(jnp.uint32(0), jnp.uint32(0))
    plain_void = (suit_led | trumps) if rules.follow == "seed" else suit_led
    plain = bits.where(~in_suit & ~is_trump, plain_void, zero)
    trump_void = bits.where(is_trump, zero, trumps.without(renege_eligible(trump, renege_level)))
    shown = bits.where(led_class == TRUMP_CLASS, trump_void, plain)
    return bits.where(leading, zero, shown)


def legal_set(state: State, rules: Rules) -> Bits:
    """The legal action set of ``state.current_player``."""
    hand = seat_bits(state.hands, state.current_player)
    rob = hand | Bits(*_PASS_SET) if rules.rob == "optional" else hand
    leading = state.current_player == state.leader
    play = legal_plays(hand, state.trump, state.led_class, state.renege_level, leading, rules)
    out = bits.where(state.phase == PHASE_ROB, rob, play)
    out = bits.where(state.phase == PHASE_JINK, Bits(*_JINK_CLAIM_SET), out)
    return bits.where(state.phase == PHASE_DONE, Bits(*_ALL_ACTIONS), out)


# --------------------------------------------------------------------------- a new hand


def new_hand(
    hands: Bits,
    turnup: jax.Array,
    dealer: jax.Array,
    carried: jax.Array,
    num_players: int,
    rules: Rules,
) -> State:
    """The state before the first decision, from the seats' card sets ``hands`` (uint32[N] x 2)."""
    n = num_players
    i32 = jnp.int32
    dealer = jnp.asarray(dealer, i32)
    carried = jnp.asarray(carried, i32)
    turnup = jnp.asarray(turnup, i32)
    trump = turnup // 13
    if rules.rob == "off":
        robber = i32(-1)
    else:
        holds_ace = bits.has(hands, trump * 13)  # the ace of trumps (A♥ if hearts)
        holder = jnp.where(holds_ace.any(), jnp.argmax(holds_ace).astype(i32), -1)
        robber = jnp.where(turnup % 13 == 0, dealer, holder)  # an ace turned up: the dealer
    eldest = next_seat(dealer, n)
    state = State(
        current_player=jnp.where(robber >= 0, robber, eldest).astype(i32),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        tricks_won=jnp.zeros(n, i32),
        hands=Bits(hands.lo.astype(jnp.uint32), hands.hi.astype(jnp.uint32)),
        legal_set=Bits(jnp.uint32(0), jnp.uint32(0)),
        phase=jnp.where(robber >= 0, PHASE_ROB, PHASE_PLAY).astype(i32),
        dealer=dealer,
        turnup=turnup,
        trump=trump,
        robber=robber.astype(i32),
        robbed=jnp.bool_(False),
        discard=i32(NO_CARD),
        leader=eldest,
        trick_cards=jnp.full(n, NO_CARD, i32),
        led_class=i32(-1),
        best_power=i32(-1),
        best_seat=i32(-1),
        renege_level=i32(-1),
        played=Bits(jnp.uint32(0), jnp.uint32(0)),
        cannot_hold=Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32)),
        trick_num=i32(0),
        jinker=i32(-1),
        pot=carried + antes(dealer, carried, n, rules).sum(),
        carried=carried,
        winner=i32(-1),
        illegal=jnp.bool_(False),
        _step_count=i32(0),
    )
    return state.replace(legal_set=legal_set(state, rules))


def deal_positions(num_players: int, rules: Rules) -> np.ndarray:
    """int[N, 5]: the deck positions dealt to the seat ``row + 1`` places left of the dealer.

    Row 0 is the eldest hand.  A packet of ``deal_packets[0]`` goes round first, then the rest.
    """
    p1, p2 = rules.deal_packets
    n = num_players
    rows = [
        [j * p1 + i for i in range(p1)] + [p1 * n + j * p2 + i for i in range(p2)] for j in range(n)
    ]
    return np.array(rows, np.int32)


def deal_from_deck(
    deck: jax.Array, dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules
) -> State:
    """Deal from ``deck`` (int32[>= 5N+1], deck[0] first); deck[5N] is the turn-up."""
    n = num_players
    by_offset = bits.from_positions(deck[deal_positions(n, rules)])  # [N], eldest first
    shift = jnp.asarray(dealer, jnp.int32) + 1
    hands = Bits(jnp.roll(by_offset.lo, shift), jnp.roll(by_offset.hi, shift))
    return new_hand(hands, deck[5 * n], dealer, carried, n, rules)


def draw_deck(u24: jax.Array) -> jax.Array:
    """A uniformly random deck prefix int32[K] from uniform 24-bit integers ``u24`` uint32[K].

    Card k is drawn uniformly from the cards not yet drawn, i.e. the top K cards of a uniform
    shuffle (K <= 52).
    """

    def draw(avail: Bits, x: tuple[jax.Array, jax.Array]) -> tuple[Bits, jax.Array]:
        u, remaining = x
        k = ((u * remaining.astype(jnp.uint32)) >> 24).astype(jnp.int32)
        card = bits.nth(avail, k)
        return avail.without(bits.bit(card)), card

    k = u24.shape[0]
    remaining = jnp.arange(NUM_CARDS, NUM_CARDS - k, -1, dtype=jnp.int32)
    full = Bits(jnp.uint32(_ALL_CARDS.lo), jnp.uint32(_ALL_CARDS.hi))
    _, deck = jax.lax.scan(draw, full, (u24, remaining))
    return deck


def deal_random(
    key: jax.Array, dealer: jax.Array, carried: jax.Array, num_players: int, rules: Rules
) -> State:
    """A uniformly random deal (``init``)."""
    k = 5 * num_players + 1
    u24 = jax.random.bits(key, (k,), jnp.uint32) >> 8
    return deal_from_deck(draw_deck(u24), dealer, carried, num_players, rules)


# --------------------------------------------------------------------------- a decision


def hand_rewards(state: State, winner: jax.Array, jink_won: jax.Array, rules: Rules) -> jax.Array:
    """float32[N]: net chips of the hand once it is over (RULES.md §6)."""
    n = state.tricks_won.shape[0]
    bonus = jnp.where(jink_won, rules.bonus, 0)
    received = jnp.where(jnp.arange(n) == winner, state.pot + bonus * (n - 1), -bonus)
    return (received - antes(state.dealer, state.carried, n, rules)).astype(jnp.float32)


def apply_action(state: State, action: jax.Array, rules: Rules) -> State:
    """The state after a LEGAL ``action`` by ``current_player`` in a live hand.

    No legality or terminal check (``step`` adds them).  Every phase's outcome is computed and
    the right one selected, so it vmaps over hands in mixed phases.  ``legal_set`` is refreshed.
    """
    n = state.tricks_won.shape[0]
    seats = jnp.arange(n)
    cur = state.current_player
    a = jnp.asarray(action, jnp.int32)
    hand = seat_bits(state.hands, cur)
    card = bits.bit(jnp.clip(a, 0, NUM_CARDS - 1))
    is_card = a < NUM_CARDS
    in_rob = state.phase == PHASE_ROB
    in_play = state.phase == PHASE_PLAY
    in_jink = state.phase == PHASE_JINK

    # --- Play a card to the trick.
    leading = cur == state.leader
    ts = trump_strength(a, state.trump)
    is_trump = ts >= 0
    led_class = jnp.where(leading, jnp.where(is_trump, TRUMP_CLASS, a // 13), state.led_class)
    power = trick_power(a, state.trump, led_class)
    take = leading | (power > state.best_power)
    best_power = jnp.where(take, power, state.best_power)
    best_seat = jnp.where(take, cur, state.best_seat)
    trump_played = jnp.where(is_trump, ts, -1)
    if rules.renege == "deal":  # every trump played this deal counts
        level = jnp.maximum(state.renege_level, trump_played)
    elif rules.renege == "trick":  # trumps of this trick only
        level = jnp.where(leading, trump_played, jnp.maximum(state.renege_level, trump_played))
    else:  # "led": only the led card counts
        level = jnp.where(leading, trump_played, state.renege_level)
    nxt = next_seat(cur, n)
    trick_over = in_play & (nxt == state.leader)
    trick_num = state.trick_num + trick_over.astype(jnp.int32)
    winner_tricks = seat_value(state.tricks_won, best_seat) + 1
    jinking = state.jinker >= 0
    jink_failed = trick_over & jinking & (best_seat != state.jinker)
    jink_won = trick_over & jinking & (best_seat == state.jinker) & (trick_num == 5)
    three = trick_over & ~jinking & (winner_tricks == 3)
    ask_jink = three & (trick_num == 3) if rules.jink else jnp.bool_(False)
    takes_pot = (three & ~ask_jink) | jink_won
    spoiled = trick_over & ~jinking & ~three & (trick_num == 5)
    play_over = jink_failed | takes_pot | spoiled

    # --- Jink decision: JINK plays on (the jinker leads trick 4), CLAIM takes the pot.
    declares = a == JINK
    claims = in_jink & ~declares

    over = (in_play & play_over) | claims
    phase = jnp.where(in_play & ask_jink, PHASE_JINK, PHASE_PLAY)
    phase = jnp.where(over, PHASE_DONE, phase).astype(jnp.int32)
    winner = jnp.where(in_play & takes_pot, best_seat, jnp.where(claims, cur, -1))
    eldest = next_seat(state.dealer, n)
    next_player = jnp.where(trick_over, best_seat, nxt)
    next_player = jnp.where(in_rob, eldest, jnp.where(in_play, next_player, cur))

    # --- The mover's new hand: discard and take the turn-up when robbing; lose the card played.
    robs = in_rob & is_card
    new_hand_ = bits.where(robs, hand.without(card) | bits.bit(state.turnup), hand)
    new_hand_ = bits.where(in_play, hand.without(card), new_hand_)
    is_me = seats == cur
    hands = Bits(
        jnp.where(is_me, new_hand_.lo, state.hands.lo),
        jnp.where(is_me, new_hand_.hi, state.hands.hi),
    )
    trick_cards = jnp.where(in_play & leading, NO_CARD, state.trick_cards)
    trick_cards = jnp.where(in_play & is_me, a, trick_cards)
    shown = revealed_void(a, state.trump, state.led_class, state.renege_level, leading, rules)
    shown_me = is_me & in_play
    cannot_hold = Bits(
        state.cannot_hold.lo | jnp.where(shown_me, shown.lo, jnp.uint32(0)),
        state.cannot_hold.hi | jnp.where(shown_me, shown.hi, jnp.uint32(0)),
    )

    def pick(play_value: jax.Array, other: jax.Array) -> jax.Array:
        return jnp.where(in_play, play_value, other)

    new = state.replace(
        current_player=jnp.where(over, -1, next_player).astype(jnp.int32),
        terminated=over,
        rewards=jnp.where(over, hand_rewards(state, winner, in_play & jink_won, rules), 0.0),
        tricks_won=state.tricks_won + (trick_over & (seats == best_seat)).astype(jnp.int32),
        hands=hands,
        phase=phase,
        robbed=state.robbed | robs,
        discard=jnp.where(robs, a, state.discard),
        leader=jnp.where(trick_over, best_seat, state.leader),
        trick_cards=trick_cards,
        led_class=pick(led_class, state.led_class),
        best_power=pick(best_power, state.best_power),
        best_seat=pick(best_seat, state.best_seat),
        renege_level=pick(level, state.renege_level),
        played=bits.where(in_play, state.played | card, state.played),
        cannot_hold=cannot_hold,
        trick_num=trick_num,
        jinker=jnp.where(in_jink & declares, cur, state.jinker),
        winner=winner.astype(jnp.int32),
        _step_count=state._step_count + 1,
    )
    return new.replace(legal_set=legal_set(new, rules))


def end_illegal(state: State, rules: Rules) -> State:
    """The hand ends at once: ``current_player`` pays ``illegal_penalty`` into the pot, which
    is carried like a spoiled pot; every other seat loses only its ante."""
    n = state.tricks_won.shape[0]
    offender = jnp.arange(n) == state.current_player
    paid = antes(state.dealer, state.carried, n, rules)
    fine = jnp.where(offender, rules.illegal_penalty, 0)
    return state.replace(
        current_player=jnp.int32(-1),
        terminated=jnp.bool_(True),
        rewards=(-paid - fine).astype(jnp.float32),
        phase=jnp.int32(PHASE_DONE),
        pot=state.pot + rules.illegal_penalty,
        winner=jnp.int32(-1),
        illegal=jnp.bool_(True),
        legal_set=Bits(jnp.uint32(_ALL_ACTIONS.lo), jnp.uint32(_ALL_ACTIONS.hi)),
        _step_count=state._step_count + 1,
    )


def is_legal(state: State, action: jax.Array) -> jax.Array:
    """bool: ``action`` is in ``state.legal_set`` (False outside 0..54)."""
    a = jnp.asarray(action, jnp.int32)
    inside = (a >= 0) & (a < NUM_ACTIONS)
    return inside & bits.has(state.legal_set, jnp.clip(a, 0, NUM_ACTIONS - 1))


def step(state: State, action: jax.Array, rules: Rules) -> State:
    """Public step semantics: a terminated state comes back unchanged with zero rewards; an
    illegal action ends the hand (``end_illegal``); a legal one is applied."""
    live = ~state.terminated
    legal = is_legal(state, action)
    played = apply_action(state, action, rules)
    fouled = end_illegal(state, rules)
    done = state.replace(rewards=jnp.zeros_like(state.rewards))

    def choose(p: jax.Array, f: jax.Array, d: jax.Array) -> jax.Array:
        return jnp.where(live, jnp.where(legal, p, f), d)

    return jax.tree.map(choose, played, fouled, done)
