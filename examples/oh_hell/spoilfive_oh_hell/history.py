"""The ``Positions`` capability: Oh Hell positions from text, for ``spoilfive analyze``.

One position a line, ``key=value`` fields separated by ``;``::

    players=4; rules=num_tricks=3; dealer=0; trump=7D; player=3; hand=QS 4H 2C;
    history=1:bid:1 2:bid:0 3:bid:1 0:bid:0 1:AC 2:KC

- ``players`` (3..7), ``rules`` (``option=value`` of ``OhHellRules``, comma-separated:
  ``num_tricks``, ``off_bid_penalty`` on/off, ``points_per_trick``), ``dealer`` (default 0);
- ``trump``: the card turned up; ``player``: the seat to act; ``hand``: its cards NOW;
- ``history``: the moves in order: ``S:bid:K`` seat S bid K, ``S:CARD`` seat S played CARD.

The state's other hands are one deal of the unseen cards that makes the history legal (the
analysis resamples them anyway); the history is then replayed through ``checked_step``.  Every
problem is a one-line ``ValueError`` naming it.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.position import (
    check_table,
    move_parts,
    position_fields,
    position_table,
    table_for,
)
from spoilfive_oh_hell.infer import deal_unseen
from spoilfive_oh_hell.rules import BID, NUM_CARDS, NUM_SUITS, OhHellRules, card_str, parse_cards

_FIELDS = ("players", "rules", "dealer", "trump", "player", "hand", "history")
_FORM = "S:bid:K or S:CARD"


def parse_rules(text: str) -> OhHellRules:
    """``num_tricks=3,off_bid_penalty=on,points_per_trick=2`` (any of them)."""
    options: dict[str, Any] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if "=" not in part:
            raise ValueError(f"rules option {part!r} is not option=value")
        k, v = (x.strip().lower() for x in part.split("=", 1))
        if k == "off_bid_penalty":
            options[k] = v in ("on", "true", "yes", "1")
        else:
            try:
                options[k] = int(v)
            except ValueError:
                raise ValueError(f"rules option {k} needs an integer, got {v!r}") from None
    try:
        return OhHellRules(**options)
    except TypeError:
        raise ValueError(f"unknown rules option in {text!r}; options: num_tricks, "
                         "off_bid_penalty, points_per_trick") from None  # fmt: skip


def position_env(env: Any, text: str | None = None, **fields: Any) -> Any:
    """The table the position names (``players=``, ``rules=``; ``env``'s where not given)."""
    n, rules = position_table(env, position_fields(text, fields, _FIELDS), parse_rules)
    return table_for(env, n, rules)


def _moves(text: str, n: int) -> list[tuple[int, int]]:
    """(seat, action) of each move."""
    out = []
    for token in text.split():
        seat, parts = move_parts(token, n, _FORM)
        if parts[0].lower() == "bid":
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError(f"history move {token!r}: a bid is S:bid:K")
            out.append((seat, BID + int(parts[1])))
        else:
            try:
                (card,) = parse_cards(parts[0])
            except ValueError:
                raise ValueError(f"history move {token!r} must be {_FORM}") from None
            out.append((seat, card))
    return out


def _voids(moves: list[tuple[int, int]], n: int) -> list[set[int]]:
    """The suits each seat showed it is void in (it did not follow them), from the plays."""
    voids: list[set[int]] = [set() for _ in range(n)]
    trick: list[tuple[int, int]] = []
    for seat, a in moves:
        if a >= BID:
            continue
        if trick and a % NUM_SUITS != trick[0][1] % NUM_SUITS:
            voids[seat].add(trick[0][1] % NUM_SUITS)
        trick.append((seat, a))
        if len(trick) == n:
            trick = []
    return voids


@functools.cache
def _dealer_of_unseen(most: int) -> Any:
    return jax.jit(lambda key, u, sizes, allowed: deal_unseen(key, u, sizes, allowed, most))


def position_from_history(env: Any, text: str | None = None, **fields: Any) -> Any:
    """The state of the position at ``env``'s table (module docstring)."""
    f = position_fields(text, fields, _FIELDS)
    n, rules = position_table(env, f, parse_rules)
    check_table(env, n, rules)
    t = rules.num_tricks
    for name in ("trump", "player", "hand"):
        if name not in f:
            raise ValueError(f"the position needs {name}=")
    dealer, player = _seat(f.get("dealer", "0"), "dealer", n), _seat(f["player"], "player", n)
    trumps = parse_cards(f["trump"])
    if len(trumps) != 1:
        raise ValueError(f"trump= must be one card, got {f['trump']!r}")
    trump = trumps[0]
    hand = parse_cards(f["hand"])
    moves = _moves(f.get("history", ""), n)
    played = [[a for s, a in moves if s == x and a < BID] for x in range(n)]
    seen = [trump, *hand, *(c for p in played for c in p)]
    twice = sorted({c for c in seen if seen.count(c) > 1})
    if twice:
        raise ValueError(f"cards seen twice: {' '.join(card_str(c) for c in twice)}")
    if len(hand) + len(played[player]) != t:
        raise ValueError(
            f"player {player} holds {len(hand)} cards and played {len(played[player])}: "
            f"the hand must be the {t - len(played[player])} cards left of {t}"
        )
    if any(len(p) > t for p in played):
        raise ValueError(f"a seat played more than {t} cards")
    voids = _voids(moves, n)
    unseen = set(range(NUM_CARDS)) - set(seen)
    sizes = [0 if x == player else t - len(played[x]) for x in range(n)]
    allowed = [{c for c in unseen if c % NUM_SUITS not in voids[x]} for x in range(n)]
    dealt, exact = _dealer_of_unseen(t)(
        jax.random.PRNGKey(0), _set(unseen), np.asarray(sizes, np.int32), _sets(allowed)
    )
    if not bool(exact):
        raise ValueError("no deal of the unseen cards makes this history legal (the voids)")
    hands = np.zeros((n, t), np.int32)
    for x in range(n):
        rest = hand if x == player else bits.members(dealt.lo[x], dealt.hi[x], NUM_CARDS)
        hands[x] = sorted([*played[x], *rest])
    state = env.init_from_deal(hands, trump, dealer)
    for i, (seat, a) in enumerate(moves):
        if bool(state.terminated):
            raise ValueError(f"history move {i + 1} comes after the hand is over")
        if int(state.current_player) != seat:
            raise ValueError(
                f"history move {i + 1} ({seat}:{env.action_str(a)}) is out of turn: seat "
                f"{int(state.current_player)} is to act"
            )
        try:
            state = env.checked_step(state, a)
        except ValueError as e:
            raise ValueError(f"history move {i + 1}: {e}") from None
    if not bool(state.terminated) and int(state.current_player) != player:
        raise ValueError(f"player={player}, but seat {int(state.current_player)} is to act")
    return state


def _seat(text: Any, name: str, n: int) -> int:
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a seat 0..{n - 1}, got {text!r}") from None
    if not 0 <= seat < n:
        raise ValueError(f"{name} must be a seat 0..{n - 1}, got {seat}")
    return seat


def _set(cards: set[int]) -> Bits:
    b = bits.const(cards)
    return Bits(np.uint32(b.lo), np.uint32(b.hi))


def _sets(sets: list[set[int]]) -> Bits:
    b = [bits.const(s) for s in sets]
    return Bits(np.array([x.lo for x in b], np.uint32), np.array([x.hi for x in b], np.uint32))
