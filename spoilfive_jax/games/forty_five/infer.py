"""What a Forty-Five family player knows, consistent resampling of what it does not, playouts.

The same reading as Spoil Five's (``games.spoil_five.infer``) with the family's extras:

- the player knows its own hand, its own discards (rob, joker exchange, Auction exchange) and
  the public record: the turn-up (a robbed one is in the robber's hand until played), the joker
  turned up (the dealer took it), the cards played, the per-seat ``cannot_hold`` record, hand
  sizes, how many cards each seat laid away (``discards`` counts), bids and trump;
- the unseen cards go to the other hands (each holding none of its ``cannot_hold`` cards), the
  other seats' discards, and the stock (in Auction the cards still to be drawn, in a uniformly
  random order);
- the rob decision is public from the rob phase on (its seat acts, robbing or declining): the
  seat that had it was dealt the ace of trumps (in its hand, or its rob discard when it robbed,
  until played), and a hand with no rob decision dealt that ace to nobody.

Auction exchanges add no constraint: the cards a seat discarded and drew are unseen and every
choice was legal whatever they were; plays after the exchange constrain the current hand only.
In a resampled Auction world the stock positions already drawn hold -1 (those cards are in
hands now, and nothing reads those positions again).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.forty_five.endgame as endgame
import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.view as view
from spoilfive_jax.core import record, search
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.keys import as_counter
from spoilfive_jax.core.resample import (
    HiddenDeal,
    HiddenSpec,
    deal_hidden,
    deal_hidden_many,
    play_out,
    rob_spec,
    unrobbed_robber,
)
from spoilfive_jax.core.transition import transition_legal
from spoilfive_jax.core.tricks import seat_bits
from spoilfive_jax.games.forty_five.fast_play import KINDS
from spoilfive_jax.games.forty_five.fast_playout import playout_kernel
from spoilfive_jax.games.forty_five.game import JOKER, NUM_CARD_IDS, State
from spoilfive_jax.games.forty_five.policies import SUPPORTED, builtin_policy
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

MAX_LEGAL = 6  # five cards and PASS/DONE; PASS, four bids and HOLD
FIELDS = ("expected_points", "make_prob")


def analysis_fields(env: Any) -> tuple[str, ...]:
    """``FIELDS``: the seat's team's points, and (Auction) the chance the bid is made."""
    return FIELDS


def analysis_labels(env: Any) -> dict[str, str]:
    """Table headings of ``FIELDS``."""
    return {"expected_points": "points", "make_prob": "make %"}


def max_legal_actions(env: Any) -> int:
    """``MAX_LEGAL``."""
    return MAX_LEGAL


def _deck(rules: FortyFiveRules) -> Bits:
    return bits.const(range(53 if rules.joker else 52))


def hidden_spec(state: State, player: jax.Array, rules: FortyFiveRules) -> tuple[HiddenSpec, Bits]:
    """(constraints on what ``player`` cannot see, the cards it knows each seat holds)."""
    n = state.tricks_won.shape[0]
    seats = jnp.arange(n)
    p = jnp.asarray(player, jnp.int32)
    mine = seat_bits(state.hands, p)
    deck = _deck(rules)
    seen = mine | state.played | seat_bits(state.discards, p)
    known_extra_lo = jnp.zeros(n, jnp.uint32)
    known_extra_hi = jnp.zeros(n, jnp.uint32)
    sizes = bits.count(state.hands)
    nobody = jnp.bool_(False)
    bound = jnp.bool_(False)
    ace = jnp.maximum(state.trump, 0) * 13
    robbed_by = jnp.where(state.robbed, state.robber, -1)
    if not rules.auction:
        turn = bits.bit(state.turnup)
        seen = seen | turn
        turn_held = state.robbed & ~bits.has(state.played, state.turnup)
        holds_turn = (seats == robbed_by) & turn_held
        known_extra_lo = known_extra_lo | jnp.where(holds_turn, turn.lo, jnp.uint32(0))
        known_extra_hi = known_extra_hi | jnp.where(holds_turn, turn.hi, jnp.uint32(0))
        sizes = sizes - holds_turn.astype(jnp.int32)
        if rules.joker:
            jk = bits.bit(jnp.int32(JOKER))
            seen = bits.where(state.joker_up, seen | jk, seen)
            holds_jk = (seats == state.dealer) & state.joker_up & ~bits.has(state.played, JOKER)
            known_extra_lo = known_extra_lo | jnp.where(holds_jk, jk.lo, jnp.uint32(0))
            known_extra_hi = known_extra_hi | jnp.where(holds_jk, jk.hi, jnp.uint32(0))
            sizes = sizes - holds_jk.astype(jnp.int32)
        if rules.robbing:
            # From the rob phase on, the rob decision is public (its seat acts, robbing or
            # declining): that seat was dealt the ace of trumps, and with no rob decision
            # nobody was.  (During the joker exchange nobody knows yet.)
            turned_ace = state.turnup % 13 == 0
            known_yet = state.phase != game.PHASE_JOKER
            shown = (state.robber >= 0) & known_yet
            nobody = ~shown & known_yet & ~turned_ace
            bound = shown & (state.robber != p) & ~turned_ace
            robbed_by = jnp.where(bound, state.robber, robbed_by)
    has_discard = state.robbed & (state.robber != p) & bound
    unseen = Bits(jnp.uint32(deck.lo), jnp.uint32(deck.hi)).without(seen)
    sizes = jnp.where(seats == p, 0, sizes)
    spec = rob_spec(unseen, sizes, state.cannot_hold, ace, robbed_by, nobody, bound, has_discard)
    known = Bits(
        jnp.where(seats == p, mine.lo, known_extra_lo),
        jnp.where(seats == p, mine.hi, known_extra_hi),
    )
    return spec, known


def private_cards(state: State, player: jax.Array) -> Bits:
    """uint32[2] x 2: ``player``'s hand as dealt and its Auction draws (``Env.private_cards``)."""
    p = jnp.asarray(player, jnp.int32)
    drew = seat_bits(state.drawn, p)
    had = seat_bits(state.hands, p) | record.cards_of(state.moves, p, NUM_CARD_IDS)
    took = drew
    took = bits.where(state.robbed & (state.robber == p), took | bits.bit(state.turnup), took)
    joker = bits.bit(jnp.int32(JOKER))
    took = bits.where(state.joker_up & (state.dealer == p), took | joker, took)
    dealt = had.without(took)
    return Bits(jnp.stack([dealt.lo, drew.lo]), jnp.stack([dealt.hi, drew.hi]))


def dealt_state(state: State, rules: FortyFiveRules) -> State:
    """The hand's first state (``Env.dealt_state``): each seat's dealt hand, the turn-up (the
    joker first when it was turned up) and the Auction stock, whose drawn part is rebuilt from
    the draws (the seats draw in turn from the dealer's left, each its own cards)."""
    n = state.tricks_won.shape[0]
    sets = jax.vmap(lambda q: private_cards(state, q))(jnp.arange(n))
    hands = Bits(sets.lo[:, 0], sets.hi[:, 0])
    stock = state.stock
    if stock.shape[0]:
        order = (state.dealer + 1 + jnp.arange(n)) % n
        counts = bits.count(state.drawn)[order]
        start = jnp.cumsum(counts) - counts
        idx = jnp.arange(5)
        drawn = Bits(jnp.asarray(state.drawn.lo), jnp.asarray(state.drawn.hi))  # (host states)
        cards = jax.vmap(lambda q: _members(Bits(drawn.lo[q], drawn.hi[q])))(order)
        # (unused slots go past the end, where ``drop`` ignores them: -1 would be the last)
        pos = jnp.where(idx[None, :] < counts[:, None], start[:, None] + idx[None, :], 10**6)
        top = (
            jnp.full(stock.shape[0], -1, jnp.int32)
            .at[pos.reshape(-1)]
            .set(cards.reshape(-1), mode="drop")
        )
        i = jnp.arange(stock.shape[0])
        stock = jnp.where(i < state.stock_top, top, stock)
    turnup = jnp.where(state.joker_up, JOKER, state.turnup)
    scores = state.scores - state.hand_points
    return game.new_hand(hands, turnup, state.turnup, stock, state.dealer, scores, n, rules)


def _members(s: Bits) -> jax.Array:
    """int32[5]: the (at most 5) members of ``s`` in ascending order, then -1s."""
    c = bits.count(s)
    return jnp.stack([jnp.where(k < c, bits.nth(s, jnp.int32(k)), -1) for k in range(5)])


def resample_hidden(env: Any, key: jax.Array, state: State, player: jax.Array | int) -> State:
    """A State drawn uniformly from the deals consistent with what ``player`` knows (one hand at
    ``env``'s table): the other hands, the other seats' discards and the
    stock are re-dealt."""
    p = jnp.asarray(player, jnp.int32)
    k_deal, k_rest = jax.random.split(key)
    spec, known = hidden_spec(state, p, env.rules)
    return _world(k_rest, state, p, spec, known, deal_hidden(k_deal, spec), env.rules)


def resample_hidden_many(
    env: Any, key: jax.Array, state: State, player: jax.Array, count: int
) -> State:
    """``count`` independent worlds as ``resample_hidden`` draws them (leading axis [count]),
    from one pooled rejection loop (``core.resample.deal_hidden_many``)."""
    p = jnp.asarray(player, jnp.int32)
    k_deal, k_rest = jax.random.split(key)
    spec, known = hidden_spec(state, p, env.rules)
    deals = deal_hidden_many(k_deal, spec, count)
    rest_keys = jax.random.split(k_rest, count)
    return jax.vmap(lambda k, d: _world(k, state, p, spec, known, d, env.rules))(rest_keys, deals)


def _world(
    k_rest: jax.Array,
    state: State,
    p: jax.Array,
    spec: HiddenSpec,
    known: Bits,
    deal: HiddenDeal,
    rules: FortyFiveRules,
) -> State:
    n = state.tricks_won.shape[0]
    seats = jnp.arange(n)
    hands = Bits(known.lo | deal.hands.lo, known.hi | deal.hands.hi)
    # The rest, in a uniformly random order: the other seats' discards, then the stock.
    size = 53
    if state.stock.shape[0]:
        shuffled = _shuffled(k_rest, deal.rest)
    else:  # at most a joker exchange's and a rob's discard to place
        shuffled = _drawn(k_rest, deal.rest, max(1, int(rules.joker) + int(rules.robbing)))
    counts = bits.count(state.discards)
    slot = spec.has_discard & (seats == spec.bound_seat)
    need = jnp.where(seats == p, 0, counts - slot.astype(jnp.int32))
    start = jnp.cumsum(need) - need
    idx = jnp.arange(5)
    take = jnp.where(idx[None, :] < need[:, None], shuffled[start[:, None] + idx[None, :]], -1)
    others = bits.from_positions(take)  # [N]
    disc_bit = bits.where(slot, _bits_of(deal.discard, n), _zeros(n))
    discards = Bits(
        jnp.where(seats == p, state.discards.lo, others.lo | disc_bit.lo),
        jnp.where(seats == p, state.discards.hi, others.hi | disc_bit.hi),
    )
    stock = state.stock
    if stock.shape[0]:
        off = need.sum()
        i = jnp.arange(stock.shape[0])
        fresh = shuffled[jnp.clip(off + i - state.stock_top, 0, size - 1)]
        stock = jnp.where(i >= state.stock_top, fresh, -1).astype(jnp.int32)
    world = state.replace(hands=hands, discards=discards, stock=stock)
    k_drawn = jax.random.fold_in(k_rest, 1)
    world = world.replace(
        robber=_entitled(state, hands, rules),
        moves=_world_moves(world, p, slot, deal.discard),
        drawn=_world_draws(k_drawn, world, p),
    )
    return world.replace(legal_set=game.legal_set(world, rules))  # (another seat may act)


def _world_moves(world: State, p: jax.Array, slot: jax.Array, rob_discard: jax.Array) -> jax.Array:
    """The world's record: each other seat's private actions are the cards the world laid away
    for it (``discards``), in ascending order, the rob's discard (``slot``) its last."""
    moves = world.moves
    theirs = record.others_private(moves, p)
    who = jnp.maximum(record.actors(moves), 0)
    same = (who[:, None] == who[None, :]) & theirs[None, :]
    rank = jnp.sum(
        same & (jnp.arange(moves.shape[0])[None, :] < jnp.arange(moves.shape[0])[:, None]), 1
    )
    total = jnp.sum(same, 1)
    laid = Bits(world.discards.lo[who], world.discards.hi[who])
    slot_card = jnp.where(slot[who], rob_discard, -1)
    rest = jax.vmap(lambda s, c: bits.where(c >= 0, s.without(bits.bit(jnp.maximum(c, 0))), s))(
        laid, slot_card
    )
    plain = jax.vmap(lambda s, r: bits.nth(s, r))(rest, rank)
    action = jnp.where((slot_card >= 0) & (rank == total - 1), slot_card, plain)
    return record.with_actions(moves, theirs, action)


def _world_draws(key: jax.Array, world: State, p: jax.Array) -> Bits:
    """The world's Auction draws: for each other seat, as many cards as it drew (public), a
    uniform choice among the cards it holds or has played (each split of them into dealt and
    drawn is its own deal); ``p``'s own as they were."""
    n = world.tricks_won.shape[0]
    if not world.stock.shape[0]:
        return world.drawn
    plays = world.trick_plays.astype(jnp.int32).T  # [N, 5]
    pool = Bits(world.hands.lo, world.hands.hi) | bits.from_positions(plays)
    want = bits.count(world.drawn)
    u = jax.random.uniform(key, (n, 64))
    mask = bits.to_bool(pool, 64)
    order = jnp.argsort(jnp.where(mask, u, 2.0), axis=1)
    rank = jnp.argsort(order, axis=1)
    chosen = bits.from_bool(mask & (rank < want[:, None]))
    seats = jnp.arange(n)
    return Bits(
        jnp.where(seats == p, world.drawn.lo, chosen.lo),
        jnp.where(seats == p, world.drawn.hi, chosen.hi),
    )


def _shuffled(key: jax.Array, rest: Bits) -> jax.Array:
    """int32[53]: the cards of ``rest`` in a uniformly random order, then -1s (one sort of
    random keys carrying the card ids in their low bits)."""
    ids = jnp.arange(53, dtype=jnp.uint32)
    noise = jax.random.bits(key, (53,), jnp.uint32) & ~jnp.uint32(63)
    keys = jnp.where(bits.to_bool(rest, 53), noise | ids, jnp.uint32(0xFFFFFFFF))
    ordered = jnp.sort(keys)
    return jnp.where(ordered == jnp.uint32(0xFFFFFFFF), -1, ordered & 63).astype(jnp.int32)


def _drawn(key: jax.Array, rest: Bits, count: int) -> jax.Array:
    """int32[count]: ``count`` cards drawn from ``rest`` without replacement in a uniformly
    random order (-1 once ``rest`` is exhausted)."""
    u = jax.random.uniform(key, (count,))
    out = []
    for i in range(count):
        left = bits.count(rest)
        k = jnp.clip(jnp.floor(u[i] * left).astype(jnp.int32), 0, jnp.maximum(left - 1, 0))
        card = jnp.where(left > 0, bits.nth(rest, k), -1).astype(jnp.int32)
        rest = rest.without(bits.bit(jnp.maximum(card, 0)))
        out.append(card)
    return jnp.stack(out)


def _bits_of(card: jax.Array, n: int) -> Bits:
    b = bits.bit(jnp.maximum(card, 0))
    on = card >= 0
    return Bits(
        jnp.broadcast_to(jnp.where(on, b.lo, jnp.uint32(0)), (n,)),
        jnp.broadcast_to(jnp.where(on, b.hi, jnp.uint32(0)), (n,)),
    )


def _zeros(n: int) -> Bits:
    return Bits(jnp.zeros(n, jnp.uint32), jnp.zeros(n, jnp.uint32))


def _entitled(state: State, hands: Bits, rules: FortyFiveRules) -> jax.Array:
    """``robber`` of a resampled world: public from the rob phase on (``hidden_spec``); during
    the joker exchange, the world's own holder of the ace of trumps."""
    if not rules.robbing:
        return state.robber
    ace = jnp.maximum(state.trump, 0) * 13
    unrobbed = unrobbed_robber(state, hands, ace)
    not_yet_public = state.phase == game.PHASE_JOKER
    return jnp.where(not_yet_public, unrobbed, state.robber).astype(jnp.int32)


# --------------------------------------------------------------------------- playouts


def resolve_policy(policy: Any, rules: FortyFiveRules) -> Callable[..., Any]:
    """A jittable policy on the family's State: one of the family's built-in players
    (``"heuristic"``, the analysis's default, ``"greedy"`` or ``"random"``), or a callable."""
    if isinstance(policy, str):
        return builtin_policy(policy, rules)
    if not callable(policy):
        raise ValueError(f"unknown policy {policy!r}; the Forty-Five family takes {SUPPORTED}")
    return policy  # type: ignore[no-any-return]


def playout(
    env: Any,
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    policy: Any,
) -> dict[str, jax.Array]:
    """Apply each of ``actions`` int32[B, L] to ``states`` [B] and play the hand to its end with
    ``policy`` at every seat through ``core.transition.transition``.  float32[B, L] per
    ``FIELDS`` for seat ``player`` int32[B]: its team's points for the hand (``rewards``) and,
    in Auction, whether the bidding team made its bid (NaN in the turn-up games).  ``keys``: one
    per state, shared by its L playouts (common random numbers).  The built-in policies play
    on the rollout kernel once the action is applied (``fast_playout``); any other jittable
    policy plays the tricks on the kernel too, reading the public ``State`` built from it
    (``view.finish``; the phases before the play through ``step``), handed counter keys drawn
    from ``keys`` (``core.keys.as_counter``)."""
    rules, step = env.rules, view.step_before_play(env)
    b, width = actions.shape
    tile, after = _applied(env, states, actions)
    if isinstance(policy, str) and policy in KINDS:
        out = playout_kernel(tile(keys), after, tile(player), policy, rules)
    else:
        out = _playout(tile(as_counter(keys)), after, tile(player), policy, rules, step)
    return {k: v.reshape(b, width) for k, v in out.items()}


def solved_playout(
    env: Any,
    keys: jax.Array,
    states: State,
    actions: jax.Array,
    player: jax.Array,
    policy: Any,
    tricks: int,
) -> dict[str, jax.Array]:
    """``playout`` with each hand's last ``tricks`` tricks solved exactly instead of played
    (``endgame``: minimax for ``player``'s team, every hand in view); ``policy`` (a built-in
    name: the solve runs on the kernel) plays until then."""
    if not (isinstance(policy, str) and policy in KINDS):
        raise ValueError(
            f"a solved playout plays on the rollout kernel: its policy must be one of {KINDS}, "
            f"got {policy!r}"
        )
    tricks = endgame.check_tricks(env, tricks)
    b, width = actions.shape
    tile, after = _applied(env, states, actions)
    twin = _root_twins(states, actions, tricks * env.num_players, env.rules)
    skip = (twin != jnp.arange(width)).reshape(-1)
    order, back = search.move_major(b, width)  # (a world's moves one after another)
    after = jax.tree.map(lambda x: x[order], after)
    out = endgame.solved_playout_kernel(
        tile(keys)[order], after, tile(player)[order], policy, tricks, env.rules, skip[order]
    )
    return {k: jnp.take_along_axis(v[back].reshape(b, width), twin, 1) for k, v in out.items()}


def _root_twins(states: State, actions: jax.Array, plies: int, rules: FortyFiveRules) -> jax.Array:
    """int32[B, L]: ``endgame.root_twins`` of positions ``states`` [B] whose solve starts at
    the action (in the play, at most ``plies`` plays left after it): a move equivalent to
    another, or a repeat, is not searched but takes that move's value.  Not before the
    play (a bid, a discard: the policy plays on before the solve)."""
    table, p = view.to_kernel(states, rules)
    in_play = (states.phase == game.PHASE_PLAY) & ~states.terminated
    at_root = in_play & (endgame.remaining(p, states.tricks_won.shape[-1]) <= plies + 1)
    return endgame.root_twins(p, table, actions, at_root, rules)


def max_solve_tricks(env: Any) -> int:
    """The most tricks ``solved_playout`` may solve at ``env``'s table."""
    return endgame.max_solve_tricks(env)


def _applied(
    env: Any, states: State, actions: jax.Array
) -> tuple[Callable[[jax.Array], jax.Array], State]:
    """(``tile``: a [B] array repeated for each of the L actions, the states [B * L] after each
    of ``actions`` int32[B, L] is applied to ``states`` [B]).  The actions are legal (the
    analysis's own), so they are applied without the step's illegal-action branch
    (``core.transition.transition_legal``)."""
    width = actions.shape[1]

    def tile(x: jax.Array) -> jax.Array:
        return jnp.repeat(x, width, axis=0)

    step = functools.partial(transition_legal, env)
    return tile, jax.vmap(step)(jax.tree.map(tile, states), actions.reshape(-1))


def _playout(
    keys: jax.Array,
    states: State,
    player: jax.Array,
    policy: Any,
    rules: FortyFiveRules,
    step_one: Callable[[State, jax.Array], State],
) -> dict[str, jax.Array]:
    """Any jittable policy's playouts: the tricks on the kernel, the policy reading the public
    ``State`` built from it (``view.finish``), hand by hand ``core.resample.play_out``'s."""
    fn = resolve_policy(policy, rules)
    one = jnp.zeros(1, jnp.int32)  # (one policy: every seat plays it)
    state, total = view.finish(states, keys, view.one_policy(fn), one, step_one, rules)
    return playout_values(state, total, player, rules)


def public_playout(
    keys: jax.Array,
    states: State,
    player: jax.Array,
    policy: Any,
    rules: FortyFiveRules,
    step_one: Callable[[State, jax.Array], State],
) -> dict[str, jax.Array]:
    """``_playout`` with every decision through the public step (``core.resample.play_out``):
    the reference the kernel's playouts are checked against."""
    state, total = play_out(keys, states, resolve_policy(policy, rules), step_one)
    return playout_values(state, total, player, rules)


def playout_values(
    state: State, total: jax.Array, player: jax.Array, rules: FortyFiveRules
) -> dict[str, jax.Array]:
    """float32[B] per ``FIELDS`` of a batch of finished hands for seat ``player`` int32[B]:
    the rewards summed over each playout ``total`` [B, N] (its team's points for the hand) and,
    in Auction, whether the bidding team made its bid (NaN in the turn-up games)."""
    points = jnp.take_along_axis(total, player[:, None], axis=1)[:, 0]
    if rules.auction:
        t = num_teams(state.tricks_won.shape[-1])
        team = jnp.maximum(state.bidder, 0) % t
        bid_points = jnp.take_along_axis(state.hand_points, team[:, None], axis=1)[:, 0]
        made = jnp.where(state.bidder >= 0, (bid_points > 0).astype(jnp.float32), jnp.nan)
    else:
        made = jnp.full(points.shape, jnp.nan, jnp.float32)
    return {"expected_points": points.astype(jnp.float32), "make_prob": made}
