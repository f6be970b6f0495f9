"""Forty-Five family positions from text: the table, the player's hand and the public history.

One position a line, ``key=value`` fields separated by ``;`` (order free, case-insensitive)::

    players=4; dealer=0; rules=forty_five,follow=seed; scores=10/25; turnup=7D; player=2;
    hand=5C 8H QS JS; history=1:rob 1:QC

    players=4; dealer=3; rules=auction; player=1; hand=5H JH AH KC 4S;
    history=0:pass 1:20 2:pass 3:hold 0:pass 3:trump:H 0:exchange:3 1:exchange:4S:2H

- ``players`` (2..10), ``dealer`` (seat, default 0), ``scores`` (the teams' game scores before
  the hand, ``a/b/...``, default zeros);
- ``rules``: ``forty_five`` (default), ``twenty_five`` or ``auction``, then optional
  ``,option=value`` overrides of ``FortyFiveRules`` (``follow``, ``renege``, ``rob``, ``jink``,
  ``joker=on``, ``target``, ...), e.g. ``rules=forty_five,follow=seed,jink=announced``;
- ``turnup`` (turn-up games): the card turned up, or ``JK 7D`` when the joker was turned up
  and 7D turned up for trump after it; ``player``: the seat to act; ``hand``: its cards NOW;
- ``history``: the moves in order, space-separated: ``S:CARD`` seat S played CARD;
  ``S:rob`` robbed (discard unseen) or ``S:rob:CARD`` (the player itself); ``S:joker`` /
  ``S:joker:CARD`` the dealer took the turned-up joker (its discard, the player's own given);
  ``S:pass`` (decline the rob, pass in the auction, no jink); ``S:15`` .. ``S:30`` a bid;
  ``S:hold``; ``S:trump:H`` trump named; ``S:exchange:N`` seat S discarded N cards and drew N
  (another seat), ``P:exchange:5C,8H:QS,2D`` the player's own discards then the cards it drew
  (``P:exchange:0`` none); ``S:jink`` announced a jink.  A declined rob need not be written.

``position_from_history(env, text)`` (``Positions.position_from_history``) returns a ``State``
whose public record is the history and whose hidden cards are one deal consistent with it, or
raises a one-line ``ValueError``: a card seen twice, a move out of turn, an illegal play or bid,
a rob by a seat that cannot rob, the wrong number of cards, a history no deal makes legal
(naming the first move after which none does).

Two passes, as Spoil Five's (``games.spoil_five.history``): a stand-in deal builds the public
record (only the player's moves and the card-free decisions checked), the analysis's exact
resampler draws one consistent deal of the unseen cards, and that deal replays the whole
history with every legality check.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
import spoilfive_jax.games.forty_five.infer as infer
from spoilfive_jax.core.cards import card_str
from spoilfive_jax.core.position import (
    NoConsistentDeal,
    check_table,
    no_deal_error,
    position_fields,
    position_table,
)
from spoilfive_jax.core.transition import is_legal
from spoilfive_jax.games.forty_five.history_text import (
    SUITS,
    Move,
    card_list,
    parse_moves,
    parse_rules,
)
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

_FIELDS = ("players", "dealer", "scores", "rules", "turnup", "player", "hand", "history")


@functools.cache
def _jitted(rules: FortyFiveRules) -> tuple[Any, Any]:
    apply = jax.jit(lambda s, a: game.with_legal(game.apply_action(s, a, rules), rules))
    legal = jax.jit(lambda s, a: is_legal(s.legal_set, a, game.NUM_ACTIONS))
    return apply, legal


def position_env(env: Any, text: str | None = None, **fields: Any) -> Any:
    """The table a position names (``players=``, ``rules=``; ``env``'s where not given)."""
    f = position_fields(text, fields, _FIELDS)
    n, rules = position_table(env, f, parse_rules)  # ``env.table``: another variant's class
    return env if (n, rules) == (env.num_players, env.rules) else env.table(n, rules)


def _int(f: dict[str, Any], name: str, default: int) -> int:
    try:
        return int(f.get(name, default))
    except ValueError:
        raise ValueError(f"{name} must be a number, got {f[name]!r}") from None


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
    dealer, p = _int(f, "dealer", 0), _int(f, "player", -1)
    if not 0 <= dealer < n:
        raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
    if "hand" not in f or "player" not in f:
        raise ValueError("a position needs player= and hand=")
    if not 0 <= p < n:
        raise ValueError(f"player must be a seat 0..{n - 1}, got {p}")
    scores = _scores(str(f.get("scores", "")), num_teams(n))
    turnup, next_card = _turnup(f, rules)
    hand = card_list(str(f["hand"]))
    moves = parse_moves(str(f.get("history", "")), n)
    apply, legal = _jitted(rules)
    table = _Table(env, rules, n, dealer, p, turnup, next_card, scores, apply, legal)
    try:
        state = table.one_world(hand, moves)
    except NoConsistentDeal:
        changes = ("rob", "joker", "exchange")
        raise no_deal_error(moves, changes, table.has_world(hand, moves), _text) from None
    return _to_player(state, p, apply)


@dataclasses.dataclass(frozen=True)
class _Table:
    """What every replay of one position shares: the table, the deal's public cards, the
    player, and the jitted steps."""

    env: Any
    rules: FortyFiveRules
    n: int
    dealer: int
    p: int
    turnup: int
    next_card: int
    scores: np.ndarray
    apply: Any
    legal: Any

    def one_world(self, hand: list[int], moves: list[Move]) -> game.State:
        """The state after ``moves`` in one deal of the unseen cards consistent with them;
        ``NoConsistentDeal`` if there is none."""
        rules, p, apply, legal = self.rules, self.p, self.apply, self.legal
        deal = _Deal.build(rules, self.n, self.dealer, p, self.turnup, self.next_card, hand, moves)
        state = _replay(deal.start(self.env, self.scores), moves, p, apply, legal, deal)
        # Pass 2: one consistent deal of the unseen cards, replayed with every check.
        world = jax.device_get(_resample(self.env, jax.random.PRNGKey(0), state, jnp.int32(p)))
        again = deal.from_world(world)
        start = again.start(self.env, self.scores)
        return _replay(start, moves, p, apply, legal, again, check_all=True)

    def has_world(self, hand: list[int], moves: list[Move]) -> Any:
        """``consistent(k)`` for ``first_inconsistent_move``: do the first ``k`` moves, with the
        player's hand then (its hand now and its later plays), have a consistent deal?"""

        def consistent(k: int) -> bool:
            later = [m.card for m in moves[k:] if m.kind == "play" and m.seat == self.p]
            try:
                self.one_world(hand + later, moves[:k])
            except NoConsistentDeal:
                return False
            return True

        return consistent


def _scores(text: str, teams: int) -> np.ndarray:
    if not text.strip():
        return np.zeros(teams, np.int32)
    try:
        out = [int(x) for x in text.replace(",", "/").split("/")]
    except ValueError:
        raise ValueError(f"scores must be numbers a/b/..., got {text!r}") from None
    if len(out) != teams:
        raise ValueError(f"scores needs one number per team ({teams}), got {len(out)}")
    return np.array(out, np.int32)


def _turnup(f: dict[str, Any], rules: FortyFiveRules) -> tuple[int, int]:
    """(the turn-up, the card turned up after a joker or -1); (-1, -1) in Auction."""
    if rules.auction:
        if f.get("turnup"):
            raise ValueError("Auction Forty-Fives has no turn-up: leave turnup= out")
        return -1, -1
    if "turnup" not in f:
        raise ValueError("a turn-up game's position needs turnup=")
    up = card_list(str(f["turnup"]))
    if up and up[0] == game.JOKER:
        if not rules.joker:
            raise ValueError("the joker was turned up, but the rules play without it (joker=on)")
        if len(up) != 2 or up[1] == game.JOKER:
            raise ValueError("the joker was turned up: give the next card too (turnup=JK 7D)")
        return up[0], up[1]
    if len(up) != 1:
        raise ValueError(f"turnup must be one card, got {f['turnup']!r}")
    return up[0], -1


# --------------------------------------------------------------------------- the deal


def _bits_cards(lo: Any, hi: Any) -> list[int]:
    word = int(lo) | int(hi) << 32
    return [c for c in range(game.NUM_CARD_IDS) if word >> c & 1]


@dataclasses.dataclass
class _Deal:
    """A deal that replays the history: the initial hands, the stock (drawn cards in order; the
    card turned up after a joker first), and the cards each hidden lay-away move discards."""

    rules: FortyFiveRules
    dealer: int
    turnup: int  # as the position gives it (the joker when it was turned up)
    next_card: int
    hands: list[list[int]]
    stock: list[int]
    laid: dict[int, list[int]]  # move index -> the cards it lays away
    plays: list[list[int]]  # the cards each seat played
    moves: list[Move]

    @property
    def trump_card(self) -> int:
        return self.next_card if self.turnup == game.JOKER else self.turnup

    @classmethod
    def build(
        cls,
        rules: FortyFiveRules,
        n: int,
        dealer: int,
        p: int,
        turnup: int,
        next_card: int,
        hand: list[int],
        moves: list[Move],
    ) -> _Deal:
        """Pass 1's stand-in deal: each other seat holds the cards it played (the robber the ace
        of trumps), padded with cards nobody has seen; every card seen once is checked."""
        joker_up = turnup == game.JOKER
        trump_card = next_card if joker_up else turnup
        ace = trump_card // 13 * 13 if trump_card >= 0 else -1
        plays: list[list[int]] = [[] for _ in range(n)]
        for m in moves:
            if m.kind == "play":
                plays[m.seat].append(m.card)
        _check_once(hand, plays, moves, p, trump_card, joker_up)
        robber = _check_lay_aways(rules, dealer, p, hand, plays, trump_card, ace, joker_up, moves)
        used = _used_cards(hand, plays, moves, trump_card, joker_up)
        filler = [c for c in range(rules.deck_size) if c not in used and c != ace]
        hands = _known_hands(n, p, hand, plays, robber, trump_card, ace, used)
        laid, drawn = _lay_away(moves, p, hands, filler, trump_card)
        _fill_hands(hands, filler, plays, p)
        stock = ([next_card] if joker_up else []) + drawn
        return cls(rules, dealer, turnup, next_card, hands, stock, laid, plays, moves)

    def start(self, env: Any, scores: np.ndarray) -> game.State:
        up = None if self.rules.auction else self.turnup
        stock = self.stock or None
        return env.init_from_deal(np.array(self.hands, np.int32), up, self.dealer, scores, stock)

    def from_world(self, world: Any) -> _Deal:
        """Pass 2's deal: the initial hands, discards and draws that lead to ``world`` (a state
        after the history whose unseen cards the resampler dealt) through the history."""
        n = len(self.hands)
        hands: list[list[int]] = []
        laid: dict[int, list[int]] = {}
        stock: list[int] = [self.next_card] if self.turnup == game.JOKER else []
        got_at: dict[int, list[int]] = {}
        for s in range(n):
            total = set(_bits_cards(world.hands.lo[s], world.hands.hi[s])) | set(self.plays[s])
            away = sorted(_bits_cards(world.discards.lo[s], world.discards.hi[s]))
            for i, m in enumerate(self.moves):
                if m.seat != s:
                    continue
                if m.kind in ("rob", "joker"):
                    total.discard(self.trump_card if m.kind == "rob" else game.JOKER)
                    laid[i] = [m.card] if m.card >= 0 else away[:1]
                    away = [c for c in away if c not in laid[i]]
                elif m.kind == "exchange":
                    got = got_at[i] = list(m.drew) if m.out else sorted(total)[: m.value]
                    total -= set(got)
                    laid[i] = list(m.out) if m.out else away[: m.value]
                    away = [c for c in away if c not in laid[i]]
            initial = total | {
                c for i, m in enumerate(self.moves) if m.seat == s for c in laid.get(i, [])
            }
            if len(initial) != 5:
                raise NoConsistentDeal(
                    "inconsistent history: no deal of the unseen cards makes every move legal"
                )
            hands.append(sorted(initial))
        stock += [c for i, m in enumerate(self.moves) if m.kind == "exchange" for c in got_at[i]]
        return dataclasses.replace(self, hands=hands, stock=stock, laid=laid)


def _check_lay_aways(
    rules: FortyFiveRules,
    dealer: int,
    p: int,
    hand: list[int],
    plays: list[list[int]],
    trump_card: int,
    ace: int,
    joker_up: bool,
    moves: list[Move],
) -> int:
    """The robber (-1: none), once the history's rob, joker exchange and exchanges are possible:
    one each per seat (one rob, one joker exchange in all), the joker taken by the dealer when
    it was turned up, and the player's own discards given (and only its own)."""
    for kind in ("rob", "joker", "exchange"):
        by = [m.seat for m in moves if m.kind == kind]
        if len(by) != len(set(by)) or (kind != "exchange" and len(by) > 1):
            raise ValueError(f"more than one {kind} by a seat in the history")
    robs = [m for m in moves if m.kind == "rob"]
    robber = robs[0].seat if robs else -1
    if robber >= 0:
        _check_rob(robber, dealer, p, hand, plays, trump_card, ace, robs[0].card, rules)
    if any(m.kind == "joker" for m in moves) and not joker_up:
        raise ValueError("a joker exchange in the history, but the joker was not turned up")
    if any(m.kind == "joker" and m.seat != dealer for m in moves):
        raise ValueError("only the dealer takes the turned-up joker")
    if (robber == p and robs[0].card < 0) or any(
        m.kind == "joker" and m.seat == p and m.card < 0 for m in moves
    ):
        raise ValueError("the player laid a card away: give it (P:rob:CARD, P:joker:CARD)")
    if any(m.kind in ("rob", "joker") and m.card >= 0 and m.seat != p for m in moves):
        raise ValueError("only the player's own discards can be given")
    return robber


def _used_cards(
    hand: list[int], plays: list[list[int]], moves: list[Move], trump_card: int, joker_up: bool
) -> set[int]:
    """The cards the position shows (hand, plays, the trump card, the player's own discards and
    draws, the turned-up joker): the filler of a stand-in deal is drawn from the others."""
    used = set(hand) | {c for ps in plays for c in ps} | {trump_card}
    used |= {c for m in moves for c in (m.card, *m.out, *m.drew) if c >= 0}
    if joker_up:
        used.add(game.JOKER)
    return used


def _known_hands(
    n: int,
    p: int,
    hand: list[int],
    plays: list[list[int]],
    robber: int,
    trump_card: int,
    ace: int,
    used: set[int],
) -> list[list[int]]:
    """The cards each seat is known to have held before any lay-away: the player its hand and
    plays, another seat its plays (and the robber the ace of trumps, unless it was turned up)."""
    hands: list[list[int]] = []
    for s in range(n):
        if s == p:
            total = set(hand) | set(plays[p])
        else:
            total = set(plays[s])
            if s == robber and ace != trump_card and ace not in used:
                total.add(ace)  # the robber held the ace of trumps
        hands.append(sorted(total))
    return hands


def _lay_away(
    moves: list[Move], p: int, hands: list[list[int]], filler: list[int], trump_card: int
) -> tuple[dict[int, list[int]], list[int]]:
    """Undo the history's rob, joker exchange and exchanges in ``hands`` (in place, unseen cards
    from ``filler``): returns the cards each such move lays away (by move index) and the cards
    the exchanges draw from the stock, in order."""
    laid: dict[int, list[int]] = {}
    drawn: list[int] = []
    for i, m in enumerate(moves):
        s = m.seat
        if m.kind in ("rob", "joker"):
            took = trump_card if m.kind == "rob" else game.JOKER
            hands[s] = [c for c in hands[s] if c != took]
            card = m.card if m.card >= 0 else _pop(filler)
            laid[i] = [card]
            hands[s].append(card)
        elif m.kind == "exchange":
            if s == p:
                missing = [c for c in m.drew if c not in hands[p]]
                if missing:
                    raise ValueError(f"the player drew {card_str(missing[0])} but no longer has it")
                got = list(m.drew)
                hands[p] = [c for c in hands[p] if c not in got] + list(m.out)
                laid[i] = list(m.out)
            else:
                keep = hands[s][: 5 - m.value]
                got = hands[s][5 - m.value :]
                got += [_pop(filler) for _ in range(m.value - len(got))]
                laid[i] = [_pop(filler) for _ in range(m.value)]
                hands[s] = keep + laid[i]
            drawn += got
    return laid, drawn


def _fill_hands(hands: list[list[int]], filler: list[int], plays: list[list[int]], p: int) -> None:
    """Pad every dealt hand to five cards from ``filler`` (in place); a hand the history makes
    larger, or the player's smaller, is an error."""
    for s in range(len(hands)):
        if len(hands[s]) > 5:
            if s == p:
                raise ValueError(
                    f"wrong number of cards: the player's hand and history make "
                    f"{len(hands[s])} dealt cards, not 5"
                )
            raise ValueError(f"seat {s} played {len(plays[s])} cards: more than it held")
        if s == p and len(hands[s]) != 5:
            raise ValueError(
                f"wrong number of cards: the player's hand and history make {len(hands[s])} "
                "dealt cards, not 5"
            )
        while len(hands[s]) < 5:
            hands[s].append(_pop(filler))


def _pop(filler: list[int]) -> int:
    if not filler:
        raise ValueError("the history uses more cards than the pack holds")
    return filler.pop()


def _check_once(
    hand: list[int],
    plays: list[list[int]],
    moves: list[Move],
    p: int,
    trump_card: int,
    joker_up: bool,
) -> None:
    """Every card seen once: the hand, the plays, the player's discards and draws."""
    seen: dict[int, str] = {}
    own = [c for m in moves if m.seat == p for c in (m.card, *m.out) if c >= 0 and m.kind != "play"]
    listed = [(c, "the hand") for c in hand] + [(c, "the history") for ps in plays for c in ps]
    for c, where in listed + [(c, "the player's discards") for c in own]:
        if c in seen:
            raise ValueError(f"card {card_str(c)} seen twice ({seen[c]} and {where})")
        seen[c] = where
    robbed = [m.seat for m in moves if m.kind == "rob"]
    up_ok = bool(robbed) and (any(trump_card in ps for ps in plays) or robbed[0] == p)
    if trump_card in seen and not up_ok:
        raise ValueError(f"the turn-up {card_str(trump_card)} is also in {seen[trump_card]}")
    if trump_card in own:
        raise ValueError(f"the turn-up {card_str(trump_card)} is also in {seen[trump_card]}")
    if (
        joker_up
        and game.JOKER in hand
        and not any(m.kind == "joker" and m.seat == p for m in moves)
    ):
        raise ValueError("the player holds the turned-up joker, which the dealer took")


def _check_rob(
    robber: int,
    dealer: int,
    p: int,
    hand: list[int],
    plays: list[list[int]],
    trump_card: int,
    ace: int,
    discard: int,
    rules: FortyFiveRules,
) -> None:
    if not rules.robbing:
        raise ValueError("a rob in the history, but these rules have no robbing")
    if trump_card % 13 == 0:
        if robber != dealer:
            raise ValueError(f"seat {robber} cannot rob: the ace was turned up, the dealer robs")
        return
    played_by = [s for s, ps in enumerate(plays) if ace in ps]
    mine = set(hand) | set(plays[p]) | {discard}
    if (ace in hand and robber != p) or (played_by and played_by[0] != robber):
        raise ValueError(f"seat {robber} cannot rob: it did not hold {card_str(ace)}")
    if robber == p and ace not in mine:
        raise ValueError(f"seat {robber} cannot rob: it did not hold {card_str(ace)}")


# --------------------------------------------------------------------------- the replay

_PHASES = {
    "play": (game.PHASE_PLAY,),
    "rob": (game.PHASE_ROB,),
    "joker": (game.PHASE_JOKER,),
    "pass": (game.PHASE_ROB, game.PHASE_BID, game.PHASE_ANNOUNCE),
    "bid": (game.PHASE_BID,),
    "hold": (game.PHASE_BID,),
    "trump": (game.PHASE_TRUMP,),
    "exchange": (game.PHASE_DISCARD,),
    "jink": (game.PHASE_ANNOUNCE,),
}


def _actions(i: int, m: Move, deal: _Deal) -> list[int]:
    if m.kind == "play":
        return [m.card]
    if m.kind in ("rob", "joker"):
        return deal.laid[i]
    if m.kind == "exchange":
        return [*deal.laid[i], game.DONE]
    return [
        {
            "pass": game.PASS,
            "bid": m.value,
            "hold": game.HOLD,
            "trump": game.NAME_CLUBS + m.value,
            "jink": game.JINK,
        }[m.kind]
    ]


def _replay(
    state: game.State,
    moves: list[Move],
    p: int,
    apply: Any,
    legal: Any,
    deal: _Deal,
    check_all: bool = False,
) -> game.State:
    """Replay ``moves``; ``check_all``: check every move's legality (pass 1 checks the player's
    moves and the card-free ones)."""
    rules = deal.rules
    for i, m in enumerate(moves):
        if bool(state.terminated):
            raise ValueError(f"move {i + 1} ({_text(m)}): the hand is already over")
        robbing = m.kind in ("rob", "pass") and m.seat == int(state.current_player)
        if int(state.phase) == game.PHASE_ROB and not robbing:
            if rules.rob == "forced":
                who = int(state.current_player)
                raise ValueError(f"seat {who} must rob (rob=forced) before move {i + 1}")
            state = apply(state, jnp.int32(game.PASS))  # a declined rob (hidden)
        cur, phase = int(state.current_player), int(state.phase)
        if m.seat != cur:
            raise ValueError(f"move {i + 1} ({_text(m)}) is out of turn: seat {cur} is to act")
        if phase not in _PHASES[m.kind]:
            raise ValueError(
                f"move {i + 1} ({_text(m)}): no {m.kind} now (the {game.PHASE_NAMES[phase]} phase)"
            )
        hidden = m.seat != p and m.kind in ("play", "rob", "joker", "exchange")
        for a in _actions(i, m, deal):
            if (check_all or not hidden) and not bool(legal(state, jnp.int32(a))):
                why = f"move {i + 1} ({_text(m)}) is illegal for seat {m.seat}"
                # pass 2: this world breaks another seat's move, perhaps every world does
                raise (NoConsistentDeal if check_all and m.seat != p else ValueError)(why)
            state = apply(state, jnp.int32(a))
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


def _text(m: Move) -> str:
    if m.kind == "play":
        return f"{m.seat}:{card_str(m.card)}"
    if m.kind == "exchange":
        if m.out:
            return f"{m.seat}:exchange:{','.join(map(card_str, m.out))}:" + ",".join(
                map(card_str, m.drew)
            )
        return f"{m.seat}:exchange:{m.value}"
    if m.kind == "bid":
        return f"{m.seat}:{15 + 5 * (m.value - game.BID_15)}"
    if m.kind == "trump":
        return f"{m.seat}:trump:{SUITS[m.value]}"
    return f"{m.seat}:{m.kind}" + (f":{card_str(m.card)}" if m.card >= 0 else "")
