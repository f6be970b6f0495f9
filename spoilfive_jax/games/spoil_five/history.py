"""Spoil Five positions from text: the table, the player's hand and the public history.

One position a line, ``key=value`` fields separated by ``;`` (order free, case-insensitive)::

    players=5; dealer=0; rules=seed; turnup=7D; player=2; hand=5C 8H QS JS;
    history=1:QC

- ``players`` (2..10), ``dealer`` (seat, default 0), ``carried`` (chips, default 0);
- ``rules``: ``seed`` (default) or ``traditional``, then optional ``,option=value`` overrides of
  ``Rules`` (``follow``, ``renege``, ``rob``, ``jink`` on/off, ``ante``, ...), e.g.
  ``rules=seed,renege=trick``;
- ``turnup``: the card turned up; ``player``: the seat to act (the analysis is for it);
  ``hand``: its cards NOW (after its plays; with the turn-up if it robbed and still holds it);
- ``history``: the moves in order, space-separated: ``S:CARD`` seat S played CARD;
  ``S:rob`` seat S robbed (discard unseen) or ``S:rob:CARD`` (the player itself, discarding
  CARD); ``S:pass`` declined to rob; ``S:jink`` / ``S:claim``.  A declined rob need not be
  written (it is hidden at the table).

``position_env(env, text)`` is the table the position names, ``position_from_history(env, text)``
(``Positions.position_from_history``) returns a ``State`` of that table whose
public record is the history and whose hidden cards are one deal consistent with it (the
analysis resamples them anyway), or raises a one-line ``ValueError`` naming the problem: a card
seen twice, a move out of turn, an illegal play, a rob by a seat that cannot rob, the wrong
number of cards, a history no deal of the unseen cards makes legal (naming the first move
after which none does).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.spoil_five.game as game
import spoilfive_jax.games.spoil_five.infer as infer
from spoilfive_jax.core.cards import NUM_CARDS, card_id, card_str
from spoilfive_jax.core.position import (
    NoConsistentDeal,
    check_table,
    move_parts,
    no_deal_error,
    position_fields,
    position_table,
    table_for,
)
from spoilfive_jax.core.transition import is_legal
from spoilfive_jax.games.spoil_five.rules import Rules

_FIELDS = ("players", "dealer", "carried", "rules", "turnup", "player", "hand", "history")


@dataclasses.dataclass(frozen=True)
class Move:
    seat: int
    kind: str  # "play", "rob", "pass", "jink", "claim"
    card: int = -1  # the card played, or the player's own rob discard (-1: unseen)


def parse_rules(text: str) -> Rules:
    """``seed`` / ``traditional`` then ``,option=value`` overrides."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    preset = "seed"
    if parts and "=" not in parts[0]:
        preset = parts.pop(0).lower()
    overrides: dict[str, Any] = {}
    for p in parts:
        if "=" not in p:
            raise ValueError(f"rules option {p!r} is not option=value")
        k, v = (x.strip() for x in p.split("=", 1))
        if k == "jink":
            overrides[k] = v.lower() in ("on", "true", "yes", "1")
        elif k in ("ante", "jink_bonus", "illegal_penalty"):
            overrides[k] = int(v)
        elif k == "deal_packets":
            overrides[k] = tuple(int(x) for x in v.replace("-", "/").split("/"))
        else:
            overrides[k] = v.lower()
    try:
        return Rules.preset(preset, **overrides)
    except TypeError as e:
        raise ValueError(f"unknown rules option in {text!r}") from e


def parse_moves(text: str, num_players: int) -> list[Move]:
    moves = []
    for tok in text.split():
        seat, rest = move_parts(tok, num_players, "SEAT:CARD or SEAT:rob|pass|jink|claim")
        what = rest[0].lower()
        if what in ("rob", "pass", "jink", "claim"):
            card = card_id(rest[1]) if what == "rob" and len(rest) > 1 else -1
            moves.append(Move(seat, what, card))
        else:
            moves.append(Move(seat, "play", card_id(rest[0])))
    return moves


@functools.cache
def _jitted(rules: Rules) -> tuple[Any, Any]:
    apply = jax.jit(lambda s, a: game.with_legal(game.apply_action(s, a, rules), rules))
    legal = jax.jit(lambda s, a: is_legal(s.legal_set, a, game.NUM_ACTIONS))
    return apply, legal


def _action(move: Move) -> int:
    return {"pass": game.PASS, "jink": game.JINK, "claim": game.CLAIM}.get(move.kind, move.card)


def position_env(env: Any, text: str | None = None, **fields: Any) -> Any:
    """The table a position names (``players=``, ``rules=``; ``env``'s where not given)."""
    f = position_fields(text, fields, _FIELDS)
    return table_for(env, *position_table(env, f, parse_rules))


# Jitted once per table: called op by op, the resampling's while loop was traced and compiled
# again on every call (a second a position).
_resample = jax.jit(infer.resample_hidden, static_argnums=0)


def position_from_history(env: Any, text: str | None = None, **fields: Any) -> game.State:
    """A ``State`` of ``env`` from a position (module docstring); ``fields`` override or replace
    ``text``.  A position for another table (players, rules) is refused: build that table with
    ``position_env``."""
    f = position_fields(text, fields, _FIELDS)
    n, rules = position_table(env, f, parse_rules)
    check_table(env, n, rules)
    pos = _parse_position(f, n)
    robber, own_discard = _check_cards(pos, rules)
    apply, legal = _jitted(rules)
    try:
        state = _one_world(env, pos, robber, own_discard, apply, legal)
    except NoConsistentDeal:
        raise no_deal_error(
            pos.moves,
            ("rob", "pass"),  # the rob decisions, before any play
            lambda k: _has_world(env, _prefix(pos, k), robber, own_discard, apply, legal),
            _text,
        ) from None
    return _to_player(state, pos.player, apply)


def _one_world(
    env: Any, pos: _Position, robber: int, own_discard: int, apply: Any, legal: Any
) -> game.State:
    """The state after ``pos.moves`` in one deal of the unseen cards consistent with them;
    ``NoConsistentDeal`` if there is none."""
    # Pass 1: the public record, from a deal that gives each other seat its played cards (and
    # the robber the ace of trumps) plus filler; others' plays are applied without legality.
    deal = _stand_in_deal(pos, robber, own_discard)
    state = env.init_from_deal(np.array(deal, np.int32), pos.turnup, pos.dealer, pos.carried)
    state = _replay(env, state, pos.moves, pos.player, apply, legal)

    # Pass 2: one deal of the unseen cards consistent with the record, replayed with every
    # legality check (any failure: no consistent deal exists).
    world = jax.device_get(_resample(env, jax.random.PRNGKey(0), state, jnp.int32(pos.player)))
    initial = _world_deal(pos, world)
    start = env.init_from_deal(np.array(initial, np.int32), pos.turnup, pos.dealer, pos.carried)
    return _replay(env, start, pos.moves, pos.player, apply, legal, check_all=True, world=world)


def _has_world(
    env: Any, pos: _Position, robber: int, own_discard: int, apply: Any, legal: Any
) -> bool:
    try:
        _one_world(env, pos, robber, own_discard, apply, legal)
    except NoConsistentDeal:
        return False
    return True


def _prefix(pos: _Position, k: int) -> _Position:
    """The position after the first ``k`` moves, as the player saw it then."""
    later = [m.card for m in pos.moves[k:] if m.kind == "play" and m.seat == pos.player]
    return dataclasses.replace(pos, hand=pos.hand + later, moves=pos.moves[:k])


@dataclasses.dataclass(frozen=True)
class _Position:
    """A position's fields, parsed and checked against a table of ``n`` seats."""

    n: int
    dealer: int
    carried: int
    turnup: int
    player: int
    hand: list[int]  # the player's cards now
    moves: list[Move]

    @property
    def ace(self) -> int:
        """The ace of trumps (the card a robber must have held, unless an ace was turned up)."""
        return self.turnup // 13 * 13

    def plays(self) -> list[list[int]]:
        """The cards each seat played, in order."""
        by_seat: list[list[int]] = [[] for _ in range(self.n)]
        for m in self.moves:
            if m.kind == "play":
                by_seat[m.seat].append(m.card)
        return by_seat


def _parse_position(f: dict[str, Any], n: int) -> _Position:
    """The fields of a position read and range-checked, in the order the errors name them."""
    dealer = int(f.get("dealer", 0))
    carried = int(f.get("carried", 0))
    if not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
    if "turnup" not in f or "hand" not in f or "player" not in f:
        raise ValueError("a position needs turnup=, player= and hand=")
    turnup = card_id(str(f["turnup"]))
    p = int(f["player"])
    if not 0 <= p < n:
        raise ValueError(f"player must be a seat 0..{n - 1}, got {p}")
    hand = [card_id(c) for c in str(f["hand"]).replace(",", " ").split()]
    moves = parse_moves(str(f.get("history", "")), n)
    return _Position(n, dealer, carried, turnup, p, hand, moves)


def _check_cards(pos: _Position, rules: Rules) -> tuple[int, int]:
    """(the robber or -1, the player's own rob discard or -1), once every card is seen once (the
    hand, the turn-up unless robbed and still in the hand, the plays) and the rob is possible."""
    hand, p, turnup = pos.hand, pos.player, pos.turnup
    robs = [m for m in pos.moves if m.kind == "rob"]
    if len(robs) > 1:
        raise ValueError("more than one rob in the history")
    robber = robs[0].seat if robs else -1
    played = [m.card for m in pos.moves if m.kind == "play"]
    seen: dict[int, str] = {}
    for c, where in [(c, "the hand") for c in hand] + [(c, "the history") for c in played]:
        if c in seen:
            raise ValueError(f"card {card_str(c)} seen twice ({seen[c]} and {where})")
        seen[c] = where
    if turnup in seen and not (robber >= 0 and (turnup in played or robber == p)):
        raise ValueError(f"the turn-up {card_str(turnup)} is also in {seen[turnup]}")
    own_discard = robs[0].card if robs and robs[0].card >= 0 else -1
    if own_discard >= 0:
        if robber != p:
            raise ValueError("only the player's own rob discard can be given (S:rob:CARD)")
        if own_discard in seen or own_discard == turnup:
            raise ValueError(f"the rob discard {card_str(own_discard)} is seen elsewhere")
    if robber == p and own_discard < 0:
        raise ValueError("the player robbed: give its discard as P:rob:CARD")
    if robber >= 0:
        _check_robber(pos, rules, robber)
    return robber, own_discard


def _check_robber(pos: _Position, rules: Rules, robber: int) -> None:
    """The seat that robbed could: the dealer when an ace was turned up, else the holder of
    the ace of trumps (and the rules allow robbing)."""
    entitled = pos.dealer if pos.turnup % 13 == 0 else None
    if entitled is not None and robber != entitled:
        raise ValueError(f"seat {robber} cannot rob: the ace was turned up, the dealer robs")
    if rules.rob == "off":
        raise ValueError("a rob in the history, but the rules say rob=off")
    if entitled is None:
        ace = pos.ace
        ace_played_by = [m.seat for m in pos.moves if m.kind == "play" and m.card == ace]
        if (ace in pos.hand and robber != pos.player) or (
            ace_played_by and ace_played_by[0] != robber
        ):
            raise ValueError(f"seat {robber} cannot rob: it did not hold {card_str(ace)}")


def _stand_in_deal(pos: _Position, robber: int, own_discard: int) -> list[list[int]]:
    """Pass 1's deal: the player's initial hand (its cards now, its plays, its rob undone), each
    other seat its plays (the robber the ace of trumps too), padded with unseen cards."""
    n, p, turnup, ace = pos.n, pos.player, pos.turnup, pos.ace
    by_seat = pos.plays()
    played = [m.card for m in pos.moves if m.kind == "play"]
    mine = list(pos.hand) + by_seat[p]
    if robber == p:
        mine = [c for c in mine if c != turnup] + [own_discard]
    if len(mine) != 5:
        raise ValueError(
            f"wrong number of cards: the player's hand and plays make {len(mine)} dealt cards, "
            f"not 5"
        )
    used = set(mine) | {turnup} | set(played)
    filler = [c for c in range(NUM_CARDS) if c not in used and c != ace]
    deal = [list(mine) if s == p else list(by_seat[s]) for s in range(n)]
    if robber >= 0 and robber != p and turnup % 13 != 0:
        if ace not in deal[robber] and ace not in used:
            deal[robber].append(ace)
            used.add(ace)
        deal[robber] = [c for c in deal[robber] if c != turnup]
    for s in range(n):
        if len(deal[s]) > 5:
            raise ValueError(f"seat {s} played {len(by_seat[s])} cards: more than a hand holds")
        while len(deal[s]) < 5:
            deal[s].append(filler.pop())
    return deal


def _world_deal(pos: _Position, world: Any) -> list[list[int]]:
    """Pass 2's deal: the initial hands that lead to ``world`` (the state after the history with
    the unseen cards resampled): each seat's cards there, its plays, its rob undone."""
    n = pos.n
    by_seat = pos.plays()
    hands = [_cards(world.hands.lo[s], world.hands.hi[s]) for s in range(n)]
    initial = [sorted(set(hands[s]) | set(by_seat[s])) for s in range(n)]
    if bool(world.robbed):
        r = int(world.robber)
        initial[r] = sorted((set(initial[r]) - {pos.turnup}) | {int(world.discard)})
    if any(len(h) != 5 for h in initial):
        raise NoConsistentDeal(
            "inconsistent history: no deal of the unseen cards makes every play legal"
        )
    return initial


def _cards(lo: Any, hi: Any) -> list[int]:
    word = int(lo) | int(hi) << 32
    return [c for c in range(NUM_CARDS) if word >> c & 1]


def _replay(
    env: Any,
    state: game.State,
    moves: list[Move],
    p: int,
    apply: Any,
    legal: Any,
    check_all: bool = False,
    world: Any = None,
) -> game.State:
    """Replay ``moves``; ``check_all``: check every move's legality (pass 1 checks only the
    player's own moves and the card-free ones)."""
    rules = env.rules
    for i, m in enumerate(moves):
        if bool(state.terminated):
            raise ValueError(f"move {i + 1} ({_text(m)}): the hand is already over")
        phase = int(state.phase)
        if phase == game.PHASE_ROB and m.kind != "rob" and m.kind != "pass":
            if rules.rob == "forced":
                who = int(state.current_player)
                raise ValueError(f"seat {who} must rob (rob=forced) before move {i + 1}")
            state = apply(state, jnp.int32(game.PASS))  # a declined rob (hidden)
        cur = int(state.current_player)
        if m.seat != cur:
            raise ValueError(f"move {i + 1} ({_text(m)}) is out of turn: seat {cur} is to act")
        action = _action(m)
        if m.kind == "rob":
            if int(state.phase) != game.PHASE_ROB:
                raise ValueError(f"move {i + 1} ({_text(m)}): seat {m.seat} may not rob now")
            if action < 0:
                action = int(world.discard) if world is not None else _spare(state, cur, moves)
        if m.kind == "pass" and int(state.phase) != game.PHASE_ROB:
            raise ValueError(f"move {i + 1} ({_text(m)}): there is no rob decision now")
        a = jnp.int32(action)
        if (check_all or m.seat == p or m.kind != "play") and not bool(legal(state, a)):
            why = f"move {i + 1} ({_text(m)}) is illegal for seat {m.seat}"
            # pass 2: this world breaks another seat's move, perhaps every world does
            raise (NoConsistentDeal if check_all and m.seat != p else ValueError)(why)
        state = apply(state, a)
    return state


def _to_player(state: game.State, p: int, apply: Any) -> game.State:
    """``state`` at player ``p``'s decision (past a hidden declined rob), or the error saying
    why the history does not end there."""
    if bool(state.terminated):
        raise ValueError("the history ends the hand: there is no decision to analyse")
    if int(state.phase) == game.PHASE_ROB and int(state.current_player) != p:
        state = apply(state, jnp.int32(game.PASS))
    if int(state.current_player) != p:
        raise ValueError(
            f"after the history seat {int(state.current_player)} is to act, not player {p}"
        )
    return state


def _spare(state: game.State, seat: int, moves: list[Move]) -> int:
    """A card of ``seat``'s hand it never plays and that is not the ace of trumps (pass 1's
    stand-in for an unseen rob discard)."""
    later = {m.card for m in moves if m.kind == "play" and m.seat == seat}
    held = _cards(state.hands.lo[seat], state.hands.hi[seat])
    ace = int(state.trump) * 13
    spare = [c for c in held if c not in later and c != ace]
    return spare[0] if spare else held[0]


def _text(m: Move) -> str:
    if m.kind == "play":
        return f"{m.seat}:{card_str(m.card)}"
    return f"{m.seat}:{m.kind}" + (f":{card_str(m.card)}" if m.card >= 0 else "")
