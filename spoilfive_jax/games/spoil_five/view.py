"""Any policy on Spoil Five's rollout kernel: the public ``State`` read from the kernel's layout.

The kernel (``fast``) keeps what its rules need: each seat's dealt cards and the cards gone, in
strength positions, one packed status word and the tricks.  A policy written against the public
API (a user's function, an agent, ``sf.pimc``) reads the public ``State``.  ``public_state``
builds that state from the kernel's, exactly as ``env.step`` would have left it, so that
``play`` can play any lineup on the kernel: at each decision the policies read the view, the
kernel applies the action.  The hands, keys and results are those of the public-step path
(``tools.policies.play_batch``), hand by hand.

The public ``State`` shows more than the kernel keeps: the record of every decision, the cards
on the trick, what each seat has shown it cannot hold, the rob's discard, the jinker, and the
current trick's fields as the public step keeps them (after a trick ends they still show it).
``Extras`` carries those beside the kernel's state, updated by the public step's own helpers
(``game``), so they are written once.  XLA drops any of them that neither a policy nor the
outcome reads: a policy that reads only ``legal_action_mask`` pays for no record.

An illegal action ends the hand as ``env.step`` does (``game.end_illegal``): the kernel's hand is
marked done and the outcome charges the offender ``rules.illegal_penalty``.  A view of a
finished hand is not the public step's (its ``rewards`` are zeros, and ``winner`` is read
from the tricks): the loops never use a policy's answer for a finished hand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.spoil_five.fast as fast
import spoilfive_jax.games.spoil_five.game as game
from spoilfive_jax.core import record
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.cards import NUM_CARDS
from spoilfive_jax.core.deal import hands_from_deck
from spoilfive_jax.core.env import PolicyFn, call_policy
from spoilfive_jax.core.kernel import positions_of
from spoilfive_jax.core.transition import is_legal
from spoilfive_jax.games.spoil_five.rules import Rules
from spoilfive_jax.games.spoil_five.state import NUM_ACTIONS, RECORD, STATUS, State

I32 = jnp.int32

# The kernel position of each action id under each trump: [4, 55].
_POSITION = np.concatenate(
    [fast.POSITION, np.tile([[fast.P_PASS, fast.P_JINK, fast.P_CLAIM]], (4, 1))], axis=1
).astype(np.int32)
_ALL_ACTIONS = bits.const(range(NUM_ACTIONS))

Chooser = Callable[[jax.Array, jax.Array, State, jax.Array, jax.Array], jax.Array]
"""``choose(seat_policy int32[N], keys [B], states [B], player int32[B], live bool[B]) ->
int32[B]``: the lineup's actions for a batch of public states whose seat to act and liveness
are given (``tools.policies.choose_batch`` of its policies)."""


class Extras(NamedTuple):
    """What the public ``State`` of one hand shows that the kernel does not keep (``[B]``
    leading axes when batched)."""

    turnup: jax.Array  # int32: the turn-up's card id
    dealt: Bits  # uint32[N] x 2: ``State.dealt`` (card ids: each seat's cards after the rob)
    played: Bits  # uint32[] x 2: ``State.played`` (card ids)
    moves: jax.Array  # int32[5N+2]: the public record (``core.record``)
    trick_cards: jax.Array  # int32[N]: ``State.trick_cards``
    cannot_hold: Bits  # uint32[N] x 2: ``State.cannot_hold``
    discard: jax.Array  # int32: the rob's discard, -1 if none
    jinker: jax.Array  # int32: the seat that declared a jink, -1 if none
    led_class: jax.Array  # int32: the public trick fields (``game.apply_action``)
    best_power: jax.Array  # int32
    best_seat: jax.Array  # int32
    renege_level: jax.Array  # int32
    steps: jax.Array  # int32: decisions taken
    illegal: jax.Array  # bool: the hand ended on an illegal action


_Carry = tuple[fast.Hands, Extras, jax.Array, jax.Array]  # (kernel, extras, actions, legal)

Native = Callable[[fast.Hands, fast.Table, jax.Array], tuple[jax.Array, jax.Array]]
"""``native(h, table, t) -> (actions int32[B], on_kernel bool[B])``: decision ``t``'s actions
of the hands whose seat to act chooses on the kernel itself (``on_kernel``)."""


def first_extras(turnup: jax.Array, dealt: Bits, num_players: int) -> Extras:
    """The ``Extras`` of one hand before its first decision (``game.new_hand``): ``dealt``
    uint32[N] x 2 the seats' cards by id (``dealt_ids``)."""
    n, i32 = num_players, jnp.int32
    none = jnp.full(n, game.NO_CARD, i32)
    zeros = jnp.zeros(n, jnp.uint32)
    return Extras(
        turnup=jnp.asarray(turnup, i32),
        dealt=dealt,
        played=Bits(jnp.uint32(0), jnp.uint32(0)),
        moves=record.empty(5 * n + 2),
        trick_cards=none,
        cannot_hold=Bits(zeros, zeros),
        discard=i32(game.NO_CARD),
        jinker=i32(-1),
        led_class=i32(-1),
        best_power=i32(-1),
        best_seat=i32(-1),
        renege_level=i32(-1),
        steps=i32(0),
        illegal=jnp.bool_(False),
    )


def dealt_ids(
    deal_cards: list[jax.Array], dealer: jax.Array, num_players: int, rules: Rules
) -> Bits:
    """uint32[B, N] x 2: each seat's dealt cards by id, from a batch's deck tops (the kernel's
    ``deal_cards``), as ``game.deal_from_deck`` deals them."""
    deck = jnp.stack(deal_cards, axis=-1)
    return jax.vmap(lambda d, dl: hands_from_deck(d, dl, num_players, rules))(deck, dealer)


def action_position(action: jax.Array, trump: jax.Array) -> jax.Array:
    """int32: the kernel position of action id ``action`` (0..54; clipped) under ``trump``."""
    return jnp.asarray(_POSITION)[trump, jnp.clip(action, 0, NUM_ACTIONS - 1)]


def _winner(h: fast.Hands, table: fast.Table, num_players: int, rules: Rules) -> jax.Array:
    """int32: the seat that took the pot of one finished hand, -1 if none (``fast.outcome``
    of a batch of one)."""
    batch_h, batch_table = jax.tree.map(lambda v: jnp.asarray(v)[None], (h, table))
    return fast.outcome(batch_h, batch_table, num_players, rules).winner[0]


def public_state(
    h: fast.Hands, table: fast.Table, x: Extras, num_players: int, rules: Rules
) -> State:
    """The public ``State`` of one hand (scalars: vmap it) held in the kernel's layout."""
    n, st, trump = num_players, h.status, table.trump
    phase = fast.get(st, fast._F_PHASE)
    done = phase == fast.DONE
    robbed = fast.get(st, fast._F_ROBBED)
    paid = game.antes(table.dealer, table.carried, n, rules).sum()
    penalty = jnp.where(x.illegal, rules.illegal_penalty, 0)
    winner = jnp.where(done & ~x.illegal, _winner(h, table, n, rules), -1)
    view = State(
        status=STATUS.pack(
            0,
            phase=phase,
            terminated=done,
            current_player=jnp.where(done, -1, fast.get(st, fast._F_CUR)),
            leader=fast.get(st, fast._F_LEADER),
            led_class=x.led_class,
            best_power=x.best_power,
            best_seat=x.best_seat,
            renege_level=x.renege_level,
            winner=winner,
        ),
        record=RECORD.pack(
            0,
            trick_num=fast.get(st, fast._F_TRICK),
            jinker=x.jinker,
            robbed=robbed,
            illegal=x.illegal,
            _step_count=x.steps,
        ),
        truncated=jnp.bool_(False),
        rewards=jnp.zeros(n, jnp.float32),
        tricks=h.tricks,
        dealt=x.dealt,
        legal_set=Bits(jnp.uint32(_ALL_ACTIONS.lo), jnp.uint32(_ALL_ACTIONS.hi)),
        dealer=table.dealer,
        turnup=x.turnup,
        trump=trump,
        robber=table.robber,
        discard=x.discard,
        trick_cards=x.trick_cards,
        played=x.played,
        cannot_hold=x.cannot_hold,
        pot=table.carried + paid + penalty,
        carried=table.carried,
        moves=x.moves,
    )
    # The legal set from the view's own fields, as the public step settles it (card ids: no
    # conversion of the kernel's set; a finished hand's is every action).
    return game.with_legal(view, rules)


def to_fast(states: State, num_players: int) -> tuple[fast.Table, fast.Hands]:
    """The kernel's layout of a batch of public states (leading axis B), from which the kernel
    continues each hand: each seat's cards as dealt after the rob, the cards played, the
    status word and the tricks (the inverse of ``public_state`` but for ``Extras``)."""
    n = num_players

    def positions(cards: Bits) -> tuple[jax.Array, jax.Array]:
        out = positions_of(cards, states.trump, fast.card_tables())
        return out.lo, out.hi

    dealt = [positions(Bits(states.dealt.lo[:, s], states.dealt.hi[:, s])) for s in range(n)]
    removed = positions(states.played)
    played_trumps = removed[1] & jnp.uint32(0xFFFF)  # the trump slot: positions 32..47
    table = fast.Table(
        trump=states.trump,
        turnup_pos=jnp.asarray(fast.POSITION)[states.trump, states.turnup],
        dealer=states.dealer,
        robber=states.robber,
        carried=states.carried,
        dealt_lo=[d[0] for d in dealt],
        dealt_hi=[d[1] for d in dealt],
    )
    status = jax.vmap(_status_word)(states)
    tricks = (states.tricks_won << (3 * jnp.arange(n, dtype=I32))).sum(-1).astype(I32)
    return table, fast.Hands(removed[0], removed[1], status, tricks, played_trumps)


def _status_word(state: State) -> jax.Array:
    """``fast.status_word`` with the trick fields cleared outside a trick in progress (a rob or
    jink decision), so the kernel can continue the hand from it."""
    w = fast.status_word(state)
    in_trick = (state.phase == game.PHASE_PLAY) & (state.current_player != state.leader)
    w = fast.put(w, fast._F_LED, jnp.where(in_trick, fast.get(w, fast._F_LED), -1))
    w = fast.put(w, fast._F_BEST, jnp.where(in_trick, fast.get(w, fast._F_BEST), -1))
    done = state.phase == game.PHASE_DONE
    return fast.put(w, fast._F_PHASE, jnp.where(done, fast.DONE, fast.get(w, fast._F_PHASE)))


def extras_of(state: State) -> Extras:
    """The ``Extras`` of one public state (what the kernel's layout does not keep)."""
    return Extras(
        turnup=state.turnup,
        dealt=state.dealt,
        played=state.played,
        moves=state.moves,
        trick_cards=state.trick_cards,
        cannot_hold=state.cannot_hold,
        discard=state.discard,
        jinker=state.jinker,
        led_class=state.led_class,
        best_power=state.best_power,
        best_seat=state.best_seat,
        renege_level=state.renege_level,
        steps=state._step_count,
        illegal=state.illegal,
    )


def next_extras(
    view: State, x: Extras, action: jax.Array, ok: jax.Array, bad: jax.Array, rules: Rules
) -> Extras:
    """The ``Extras`` of one hand after ``view.current_player`` takes ``action``: ``ok`` a legal
    action of a live hand, ``bad`` an illegal one (recorded; the hand ends)."""
    a = jnp.asarray(action, I32)
    card = bits.bit(jnp.clip(a, 0, NUM_CARDS - 1))
    in_rob = view.phase == game.PHASE_ROB
    in_play = view.phase == game.PHASE_PLAY
    in_jink = view.phase == game.PHASE_JINK
    robs = in_rob & (a < NUM_CARDS)
    trick = game.play_to_trick(view, a, rules)
    dealt, trick_cards, cannot_hold = game.cards_after(
        view, a, card, robs, in_play, trick.leading, rules
    )
    live = ok | bad
    t = jnp.where(live, x.steps, -1)
    moves = record.written(x.moves, t, view.current_player, a, robs)
    play = ok & in_play

    def on(cond: jax.Array, new: jax.Array, old: jax.Array) -> jax.Array:
        return jnp.where(cond, new, old)

    return Extras(
        turnup=x.turnup,
        dealt=bits.where(ok, dealt, x.dealt),
        played=bits.where(play, x.played | card, x.played),
        moves=moves,
        trick_cards=on(ok, trick_cards, x.trick_cards),
        cannot_hold=bits.where(ok, cannot_hold, x.cannot_hold),
        discard=on(ok & robs, a, x.discard),
        jinker=on(ok & in_jink & (a == game.JINK), view.current_player, x.jinker),
        led_class=on(play, trick.led_class, x.led_class),
        best_power=on(play, trick.best_power, x.best_power),
        best_seat=on(play, trick.best_seat, x.best_seat),
        renege_level=on(play, trick.renege_level, x.renege_level),
        steps=x.steps + live.astype(I32),
        illegal=x.illegal | bad,
    )


def _legal(views: State, actions: jax.Array) -> jax.Array:
    """bool[B]: each action is in its view's legal set."""
    return jax.vmap(lambda s, a: is_legal(s, a, NUM_ACTIONS))(views.legal_set, actions)


def _advance(
    h: fast.Hands,
    table: fast.Table,
    x: Extras,
    views: State,
    actions: jax.Array,
    ok: jax.Array,
    num_players: int,
    rules: Rules,
) -> tuple[fast.Hands, Extras]:
    """One decision of a batch: ``actions`` int32[B] applied on the kernel where ``ok`` (a legal
    action of a live hand), a live hand's illegal action ending it (``game.end_illegal``'s
    outcome, in ``_outcome``), and the ``Extras`` moved on from the hands' ``views``."""
    bad = (fast.get(h.status, fast._F_PHASE) != fast.DONE) & ~ok
    status = jnp.where(bad, fast.put(h.status, fast._F_PHASE, fast.DONE), h.status)
    pos = action_position(actions, table.trump)
    h = fast.apply(h._replace(status=status), table, pos, num_players, rules)
    after = jax.vmap(lambda v, x1, a, o, b: next_extras(v, x1, a, o, b, rules))
    return h, after(views, x, actions, ok, bad)


def play(
    deal_cards: list[jax.Array],
    positions: list[jax.Array] | None,
    dealer: jax.Array,
    carried: jax.Array,
    hand_keys: jax.Array,
    choose: Chooser,
    seat_policy: jax.Array,
    num_players: int,
    rules: Rules,
    native: Native | None = None,
) -> dict[str, jax.Array]:
    """Play a batch of deals (the deck tops, ``fast.deal_cards``) to the end with any lineup:
    decision ``t`` of hand ``b`` hands its policy the key ``fold_in(hand_keys[b], t)``.
    Returns the batched outcome record (``fast.Outcome``'s fields but ``done``, and
    ``illegal``), hand by hand that of ``tools.policies.play_batch`` on the public step.
    ``native``: the actions of the seats that choose on the kernel itself (the built-in
    policies), which ``choose`` is not asked for."""
    n = num_players
    table, h = fast.deal_cards(deal_cards, dealer, carried, n, rules, positions)
    dealt = dealt_ids(deal_cards, dealer, n, rules)
    x = jax.vmap(lambda c, d: first_extras(c, d, n))(deal_cards[5 * n], dealt)
    views = jax.vmap(lambda h1, t1, x1: public_state(h1, t1, x1, n, rules))

    def choice(h: fast.Hands, x: Extras, t: jax.Array) -> tuple[jax.Array, jax.Array]:
        """(the actions int32[B] at decision ``t``, whether each is a legal action of a live
        hand).  Liveness, the seat to act and legality come from the kernel's words, so the
        view's fields are built only where a policy reads them."""
        live = fast.get(h.status, fast._F_PHASE) != fast.DONE
        keys = jax.vmap(lambda k: jax.random.fold_in(k, t))(hand_keys)
        view, cur = views(h, table, x), fast.get(h.status, fast._F_CUR)
        if native is None:
            a = choose(seat_policy, keys, view, cur, live)
        else:
            mine, on_kernel = native(h, table, t)
            a = jnp.where(on_kernel, mine, choose(seat_policy, keys, view, cur, live & ~on_kernel))
        # (the view's legal set: the policy's operand when it reads it, then computed once)
        return a, live & _legal(view, a)

    def body(carry: _Carry, t: jax.Array) -> tuple[_Carry, None]:
        # The choice is made at the end of the previous decision and carried, as in
        # ``rollouts.play_fast``: XLA then reads it instead of re-deriving it in every update.
        h, x, a, ok = carry
        h, x = _advance(h, table, x, views(h, table, x), a, ok, n, rules)
        return (h, x, *choice(h, x, t + 1)), None

    steps = jnp.arange(5 * n + 2, dtype=I32)
    (h, x, _, _), _ = jax.lax.scan(body, (h, x, *choice(h, x, jnp.int32(0))), steps)
    return _outcome(h, table, x, n, rules)


def play_on(
    states: State, keys: jax.Array, policy: PolicyFn, num_players: int, rules: Rules
) -> tuple[jax.Array, jax.Array]:
    """Play a batch of public states (live or over) to their ends on the kernel with ``policy``
    at every seat, decision ``t`` from here handing it ``fold_in(keys[b], t)``: (the rewards of
    the last step of each hand float32[B, N], the pot's winner int32[B]), hand by hand those of
    ``core.resample.play_out`` through the public step (an analysis's playouts)."""
    n = num_players
    table, h = to_fast(states, n)
    x = jax.vmap(extras_of)(states)
    views = jax.vmap(lambda h1, t1, x1: public_state(h1, t1, x1, n, rules))
    one = functools.partial(call_policy, policy)  # checked when traced

    def live(carry: tuple[fast.Hands, Extras, jax.Array]) -> jax.Array:
        return (fast.get(carry[0].status, fast._F_PHASE) != fast.DONE).any()

    def body(carry: tuple[fast.Hands, Extras, jax.Array]) -> tuple[fast.Hands, Extras, jax.Array]:
        h, x, t = carry
        view = views(h, table, x)
        ks = jax.vmap(lambda k: jax.random.fold_in(k, t))(keys)
        a = jax.vmap(one)(ks, view, jnp.maximum(view.current_player, 0)).astype(I32)
        h, x = _advance(h, table, x, view, a, ~view.terminated & _legal(view, a), n, rules)
        return h, x, t + 1

    h, x, _ = jax.lax.while_loop(live, body, (h, x, jnp.int32(0)))
    out = _outcome(h, table, x, n, rules)
    over = states.terminated
    return (
        jnp.where(over[:, None], states.rewards, out["rewards"]),
        jnp.where(over, states.winner, out["winner"]),
    )


def _outcome(
    h: fast.Hands, table: fast.Table, x: Extras, num_players: int, rules: Rules
) -> dict[str, jax.Array]:
    """The outcome record of a batch of finished hands, an illegal action's as ``game.end_illegal``
    leaves it."""
    n = num_players
    out = fast.outcome(h, table, n, rules)
    paid = game.antes(table.dealer, table.carried, n, rules)
    offender = jnp.arange(n) == fast.get(h.status, fast._F_CUR)[:, None]
    fined = (-paid - jnp.where(offender, rules.illegal_penalty, 0)).astype(jnp.float32)
    foul = x.illegal
    pot = table.carried + paid.sum(-1) + rules.illegal_penalty
    return {
        "rewards": jnp.where(foul[:, None], fined, out.rewards),
        "tricks_won": out.tricks_won,
        "winner": jnp.where(foul, -1, out.winner),
        "decisions": x.steps,
        "jinked": out.jinked,
        "jink_won": out.jink_won & ~foul,
        "robbed": out.robbed,
        "robber": out.robber,
        "carried_out": jnp.where(foul, pot, out.carried_out),
        "illegal": foul,
    }


__all__ = [
    "Chooser",
    "Extras",
    "action_position",
    "dealt_ids",
    "extras_of",
    "first_extras",
    "next_extras",
    "play",
    "play_on",
    "public_state",
    "to_fast",
]
