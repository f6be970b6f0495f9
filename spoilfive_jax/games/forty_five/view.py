"""Any policy on the Forty-Five family's play kernel: the public ``State`` read from its layout.

A lineup of built-in policies plays whole hands on the kernel (``fast``).  A policy written
against the public API (a user's function, an agent, the family's own public policies in a mixed
lineup) reads the public ``State``; ``finish`` plays any lineup with the tricks on the kernel:

1. the phases before the play (the joker exchange, the rob, the jink announcements; or the
   bidding, naming trump and discard-and-draw) on the public step, each hand until it reaches
   its first lead (a few decisions a hand, where the tricks take 5N);
2. the hands read into the play kernel's layout once (``fast_playout.resume``: every hand is
   at its first lead, in a trick, or over);
3. the tricks on the kernel (``fast_play.play_step``): at each decision the policies read the
   public ``State`` that ``public_state`` builds from the kernel's words, the kernel applies
   the action.

The hands, keys and results are those of the public-step path (``tools.policies.play_batch``
for rollouts, ``core.resample.play_out`` for an analysis's playouts), hand by hand: decision
``t`` of a hand, counted from where ``finish`` took it, hands its policy
``fold_in(keys[b], t)``.

The public ``State`` shows more of the play than the kernel keeps: the record of every decision,
the cards on the trick, the trick by trick record, what each seat has shown it cannot hold, the
highest trump played and the current trick's fields as the public step keeps them.  ``Extras``
carries those beside the kernel's state, updated by the public step's own play helper
(``phases.play_card``), so they are written once; the fields fixed once the play starts come from
the state the play started from.  XLA drops whatever neither a policy nor the result reads.

An illegal action ends the hand as ``env.step`` does (``game.end_illegal``: the offender's team
scores ``-illegal_penalty``).  The finished states ``finish`` returns are the public step's, the
game settled as it settles it (``scoring._finish``), but for the reward fields of the steps after
a hand's end (``finish`` returns the summed rewards instead).  A view of a hand that is over
inside the loop is not the public step's: the loops never use a policy's answer for one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

import spoilfive_jax.core.bits as bits
import spoilfive_jax.games.forty_five.fast_play as fp
import spoilfive_jax.games.forty_five.fast_playout as fast_playout
import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.phases as phases
import spoilfive_jax.games.forty_five.scoring as scoring
import spoilfive_jax.games.forty_five.strength as sx
from spoilfive_jax.core import record, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.env import Env, PolicyFn, call_policy
from spoilfive_jax.core.packed import get, is_clear, put, seat_value
from spoilfive_jax.core.transition import transition
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.state import State

I32, U32 = jnp.int32, jnp.uint32

Chooser = Callable[[jax.Array, jax.Array, State, jax.Array, jax.Array], jax.Array]
"""``choose(seat_policy int32[N], keys [B], states [B], player int32[B], live bool[B]) ->
int32[B]``: the lineup's actions for a batch of public states whose seat to act and liveness
are given (``tools.policies.choose_batch`` of its policies)."""

Step = Callable[[State, jax.Array], State]
"""The public step of one hand (``core.transition.transition`` of the env)."""

Native = Callable[[fp.Play, fp.Table, jax.Array], tuple[jax.Array, jax.Array]]
"""``native(p, table, t) -> (actions int32[B], on_kernel bool[B])``: the actions of the hands in
play whose seat to act chooses on the kernel itself (``on_kernel``); ``t`` int32[B]: each hand's
decision from the start of ``finish``, the one its policy's key is folded with."""


class Extras(NamedTuple):
    """What the public ``State`` of one hand in play shows that the kernel does not keep (``[B]``
    leading axes when batched): the fields of ``phases.play_card``'s changes, the record and the
    decision count."""

    moves: jax.Array  # int32[M]: the public record (``core.record``)
    hands: Bits  # uint32[N] x 2: ``State.hands`` (card ids)
    played: Bits  # uint32[] x 2: ``State.played`` (card ids)
    trick_cards: jax.Array  # int32[N]
    cannot_hold: Bits  # uint32[N] x 2
    trick_plays: jax.Array  # int8[5, N]
    led_class: jax.Array  # int32: the public trick fields
    best_power: jax.Array  # int32
    best_seat: jax.Array  # int32
    renege_level: jax.Array  # int32
    best_trump: jax.Array  # int32
    best_trump_seat: jax.Array  # int32
    steps: jax.Array  # int32: decisions taken this hand
    illegal: jax.Array  # bool: the hand ended on an illegal action


def extras_of(state: State) -> Extras:
    """The ``Extras`` of one public state."""
    return Extras(
        moves=state.moves,
        hands=state.hands,
        played=state.played,
        trick_cards=state.trick_cards,
        cannot_hold=state.cannot_hold,
        trick_plays=state.trick_plays,
        led_class=state.led_class,
        best_power=state.best_power,
        best_seat=state.best_seat,
        renege_level=state.renege_level,
        best_trump=state.best_trump,
        best_trump_seat=state.best_trump_seat,
        steps=state._step_count,
        illegal=state.illegal,
    )


def public_state(
    p: fp.Play, table: fp.Table, x: Extras, start: State, rules: FortyFiveRules
) -> State:
    """The public ``State`` of one hand in play (scalars: vmap it) held in the kernel's layout;
    ``start``: its public state when the kernel took it (the fields the play does not change)."""
    n, st = start.num_players, p.status
    done = ~is_clear(st, fp._F_DONE)
    cur = get(st, fp._F_CUR)
    tricks_won = jnp.stack([seat_value(p.tricks, s, fp._TRICK_BITS) for s in range(n)])
    view = start.replace(
        current_player=jnp.where(done, -1, cur),
        terminated=done,
        tricks_won=tricks_won.astype(I32),
        hands=x.hands,
        phase=jnp.where(done, game.PHASE_DONE, game.PHASE_PLAY).astype(I32),
        leader=get(st, fp._F_LEADER),
        trick_cards=x.trick_cards,
        led_class=x.led_class,
        best_power=x.best_power,
        best_seat=x.best_seat,
        renege_level=x.renege_level,
        played=x.played,
        cannot_hold=x.cannot_hold,
        trick_num=get(st, fp._F_TRICK),
        trick_plays=x.trick_plays,
        best_trump=x.best_trump,
        best_trump_seat=x.best_trump_seat,
        moves=x.moves,
        illegal=x.illegal,
        _step_count=x.steps,
    )
    # The legal set from the view's own fields (card ids: no conversion of the kernel's set).
    return view.replace(legal_set=game.play_legal_set(view, rules))


def next_extras(
    view: State, x: Extras, action: jax.Array, ok: jax.Array, bad: jax.Array, rules: FortyFiveRules
) -> Extras:
    """The ``Extras`` of one hand after ``view.current_player`` plays ``action``: ``ok`` a legal
    action of a live hand, ``bad`` an illegal one (recorded; the hand ends)."""
    n, cur = view.num_players, view.current_player
    a = jnp.asarray(action, I32)
    hand = tricks.seat_bits(view.hands, cur)
    d = phases.Decision(
        cur=cur,
        a=a,
        hand=hand,
        card=bits.bit(jnp.clip(a, 0, game.JOKER)),
        is_card=a <= game.JOKER,
        seats=jnp.arange(n),
        eldest=tricks.next_seat(view.dealer, n),
    )
    m = phases.Move(hand, Bits(U32(0), U32(0)), view.phase, cur, view.leader)
    move, c, _, _ = phases.play_card(view, d, m, view.trump, view.jinker, rules)
    live = ok | bad
    t = jnp.where(live, x.steps, -1)

    def on(new: jax.Array, old: jax.Array) -> jax.Array:
        return jnp.where(ok, new, old)

    return Extras(
        moves=record.written(x.moves, t, cur, a, jnp.bool_(False)),  # a play is public
        hands=phases.set_seat(x.hands, cur, move.hand, ok),
        played=bits.where(ok, c["played"], x.played),
        trick_cards=on(c["trick_cards"], x.trick_cards),
        cannot_hold=bits.where(ok, c["cannot_hold"], x.cannot_hold),
        trick_plays=on(c["trick_plays"], x.trick_plays),
        led_class=on(c["led_class"], x.led_class),
        best_power=on(c["best_power"], x.best_power),
        best_seat=on(c["best_seat"], x.best_seat),
        renege_level=on(c["renege_level"], x.renege_level),
        best_trump=on(c["best_trump"], x.best_trump),
        best_trump_seat=on(c["best_trump_seat"], x.best_trump_seat),
        steps=x.steps + live.astype(I32),
        illegal=x.illegal | bad,
    )


# ------------------------------------------------------------------------ the loops


def step_before_play(env: Env[State, FortyFiveRules]) -> Step:
    """``env``'s step (``core.transition.transition``) for hands before their first lead, the play's
    outcome left out (``game.apply_action(..., play=False)``): the same states for such hands
    (a hand in play gets an unspecified one), a fraction of the cost, but for the legal set,
    left stale: ``finish`` settles it (``game.with_legal``) from the state its loop carries,
    where it reads the stored fields instead of recomputing the step in each of its words.
    ``finish``'s ``step_one``."""

    apply = functools.partial(game.apply_action, rules=env.rules, play=False)
    return functools.partial(transition, env, apply=apply)


def _before_the_play(
    states: State,
    keys: jax.Array,
    choose: Chooser,
    seat_policy: jax.Array,
    step_one: Step,
    rules: FortyFiveRules,
) -> tuple[State, jax.Array]:
    """Step 1: every hand of ``states`` [B] taken to its first lead (or its end) through the
    public step: (those states, ``states.rewards`` plus the rewards of the steps taken
    float32[B, N], as ``core.resample.play_out`` sums them).  Each state's legal set is
    computed from its other fields at every decision (``game.with_legal``), so ``step_one``
    may leave it stale (``step_before_play``)."""
    base = states._step_count
    step = jax.vmap(step_one)
    settle = jax.vmap(functools.partial(game.with_legal, rules=rules))

    def before(st: State) -> jax.Array:
        return ~st.terminated & (st.phase != game.PHASE_PLAY)

    def body(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        st, total = carry
        st = settle(st)
        todo = before(st)
        ks = jax.vmap(jax.random.fold_in)(keys, st._step_count - base)
        a = choose(seat_policy, ks, st, jnp.maximum(st.current_player, 0), todo)
        new = step(st, a)
        st = jax.tree.map(lambda v, w: jnp.where(_rows(todo, v), v, w), new, st)
        return st, total + jnp.where(todo[:, None], new.rewards, 0.0)

    st, total = jax.lax.while_loop(lambda c: before(c[0]).any(), body, (states, states.rewards))
    return settle(st), total


def _rows(flags: jax.Array, like: jax.Array) -> jax.Array:
    """``flags`` bool[B] broadcast against a batched leaf ``like`` [B, ...]."""
    return flags.reshape(flags.shape + (1,) * (like.ndim - 1))


def _advance(
    p: fp.Play,
    table: fp.Table,
    x: Extras,
    view: State,
    actions: jax.Array,
    rules: FortyFiveRules,
) -> tuple[fp.Play, Extras]:
    """One decision of a batch in play: ``actions`` int32[B] applied on the kernel where each is
    a legal action of a live hand, a live hand's illegal action ending it (``_finished``).
    ``view``: the batch's ``public_state`` of the same ``p`` and ``x`` (its legal set, in card
    ids, is what an action is checked against)."""
    n = view.num_players
    live = is_clear(p.status, fp._F_DONE)
    card = (actions >= 0) & (actions <= game.JOKER)
    pos = jnp.asarray(sx.tables(rules)[0])[table.trump, jnp.clip(actions, 0, game.JOKER)]
    ok = live & card & bits.has(view.legal_set, actions)  # (the view's set, in card ids)
    bad = live & ~ok
    p = p._replace(status=jnp.where(bad, put(p.status, fp._F_DONE, True), p.status))
    p = fp.play_step(p, table, pos, n, rules)
    after = jax.vmap(lambda v, x1, a, o, b: next_extras(v, x1, a, o, b, rules))
    return p, after(view, x, actions, ok, bad)


def _finished(p: fp.Play, table: fp.Table, x: Extras, start: State, rules: FortyFiveRules) -> State:
    """The final states of a batch the kernel played out (every hand over), as the public step
    ends a hand (``scoring._finish``): the hand's points (the kernel's scoring, or an illegal
    action's as ``game.end_illegal``), the rewards of its last step, and the game settled (a
    failed announced jink loses it, a slam wins it under ``jink="wins_game"``)."""
    n = start.num_players
    t = num_teams(n)
    views = jax.vmap(lambda p1, t1, x1, s1: public_state(p1, t1, x1, s1, rules))(p, table, x, start)
    out = fp.outcome(p, table, n, rules)
    offender = get(p.status, fp._F_CUR) % t
    fined = jnp.where(jnp.arange(t) == offender[:, None], -rules.illegal_penalty, 0)
    points = jnp.where(x.illegal[:, None], fined, out.team_points).astype(I32)
    none = jnp.full_like(offender, -1)
    loser, slam = none, none
    if rules.jink == "announced":
        failed = out.jinked & ~out.jink_won & ~x.illegal
        loser = jnp.where(failed, jnp.maximum(table.jinker, 0) % t, none)
    if rules.jink == "wins_game":
        teams = jax.vmap(lambda w: game.team_totals(w, n))(out.tricks_won)
        swept = (teams.max(-1) == game.NUM_TRICKS) & ~x.illegal
        slam = jnp.where(swept, jnp.argmax(teams, -1).astype(I32), none)
    settle = jax.vmap(lambda v, pts, lo, sl: scoring._finish(v, pts, lo, sl, rules))
    return settle(views, points, loser, slam)  # type: ignore[no-any-return]


def to_kernel(states: State, rules: FortyFiveRules) -> tuple[fp.Table, fp.Play]:
    """The play kernel's layout of a batch of public states [B] at their first lead, in a trick
    or over (``fast_playout.resume``, with no phase before the play left to take: its code for
    them runs once a batch and changes nothing, so it is handed a chooser that never draws)."""
    ids = jnp.zeros_like(states._step_count, U32)
    inert = fp.Chooser(U32(0), ids, I32(0), frozenset({fp.RANDOM}))
    r = fast_playout.resume(states, inert, rules)
    return r.table, r.play


def finish(
    states: State,
    keys: jax.Array,
    choose: Chooser,
    seat_policy: jax.Array,
    step_one: Step,
    rules: FortyFiveRules,
    in_play: tuple[Chooser, Native] | None = None,
) -> tuple[State, jax.Array]:
    """Play a batch of public states [B] (any phase, live or over) to their ends with any lineup,
    the tricks on the kernel (module docstring); decision ``t`` from here of hand ``b`` hands
    its policy ``fold_in(keys[b], t)``.  Returns (the final states, ``states.rewards`` plus the
    rewards of every step taken float32[B, N]), hand by hand those of the public step
    (``core.resample.play_out``).  ``in_play``: during the tricks, the chooser of the seats
    that do not choose on the kernel itself, and those seats' choices (``Native``; the
    lineup's built-in policies), where ``choose`` chooses for every seat."""
    base = states._step_count
    start, total = _before_the_play(states, keys, choose, seat_policy, step_one, rules)
    table, play = to_kernel(start, rules)
    views = jax.vmap(lambda p1, t1, x1, s1: public_state(p1, t1, x1, s1, rules))

    def choice(p: fp.Play, x: Extras) -> jax.Array:
        """The actions int32[B] at the hands' next decisions.  Liveness and the seat to act come
        from the kernel's word, so the view's fields are built only where a policy reads them."""
        live = is_clear(p.status, fp._F_DONE)
        ks = jax.vmap(jax.random.fold_in)(keys, x.steps - base)
        v, cur = views(p, table, x, start), get(p.status, fp._F_CUR)
        if in_play is None:
            return choose(seat_policy, ks, v, cur, live)
        others, native = in_play
        mine, on_kernel = native(p, table, x.steps - base)
        return jnp.where(on_kernel, mine, others(seat_policy, ks, v, cur, live & ~on_kernel))

    def body(carry: tuple[fp.Play, Extras, jax.Array]) -> tuple[fp.Play, Extras, jax.Array]:
        # The choice is made at the end of the previous decision and carried (as in
        # ``fast_play.play_tricks``): XLA then reads it instead of re-deriving it.
        p, x, a = carry
        p, x = _advance(p, table, x, views(p, table, x, start), a, rules)
        return p, x, choice(p, x)

    def live(carry: tuple[fp.Play, Extras, jax.Array]) -> jax.Array:
        return is_clear(carry[0].status, fp._F_DONE).any()

    x = jax.vmap(extras_of)(start)
    p, x, _ = jax.lax.while_loop(live, body, (play, x, choice(play, x)))
    played = _finished(p, table, x, start, rules)
    over = start.terminated
    final = jax.tree.map(lambda s, f: jnp.where(_rows(over, s), s, f), start, played)
    return final, total + jnp.where(over[:, None], 0.0, played.rewards)


def one_policy(policy: PolicyFn) -> Chooser:
    """The ``Chooser`` of ``policy`` at every seat (an analysis's playouts): called on every
    hand's seat to act, as ``core.resample.play_out`` calls it."""
    one = functools.partial(call_policy, policy)  # checked when traced

    def choose(
        seat_policy: jax.Array, keys: jax.Array, states: State, player: jax.Array, live: jax.Array
    ) -> jax.Array:
        del seat_policy, live
        return jax.vmap(one)(keys, states, jnp.maximum(player, 0)).astype(I32)

    return choose


__all__ = [
    "Chooser",
    "Extras",
    "extras_of",
    "finish",
    "next_extras",
    "one_policy",
    "public_state",
    "to_kernel",
]
