"""Pictures of one hand: ``render_text`` (a terminal table) and ``render_svg`` (cards with suit
symbols), both from a seat's point of view or the whole table's.

``player=k`` shows what seat ``k`` may see: its own cards, the other seats' card counts, the
turn-up, the trick, tricks won and the pot; never another hand and never the rob discard.
``player=None`` is the table view for debugging: every hand and the discard.

Both take ONE hand's ``State`` (host values are read with numpy); a batched state raises a
``ValueError`` saying to index it first (``jax.tree.map(lambda x: x[i], state)``).
"""

from __future__ import annotations

import dataclasses
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from spoilfive_jax.core.bits import members
from spoilfive_jax.core.cards import (
    PLAIN_STRENGTH,
    SUIT_SYMBOLS,
    TRUMP_STRENGTH,
    card_str,
    card_symbol,
)
from spoilfive_jax.core.present import SUIT_NAMES, seat_name
from spoilfive_jax.games.spoil_five.game import (
    CLAIM,
    JINK,
    PASS,
    PHASE_JINK,
    PHASE_ROB,
    TRUMP_CLASS,
    State,
)
from spoilfive_jax.games.spoil_five.state import PACKED_NAMES


@dataclasses.dataclass(frozen=True)
class TableView:
    """Host (Python) values of one hand's ``State``, read once for rendering and the CLI."""

    num_players: int
    hands: tuple[tuple[int, ...], ...]  # card ids held by each seat, strongest first
    current: int  # seat to act, -1 once the hand is over
    terminated: bool
    phase: int
    dealer: int
    turnup: int
    trump: int
    robber: int
    robbed: bool
    discard: int  # hidden information: only the table view shows it
    leader: int
    trick_cards: tuple[int, ...]  # card each seat played to the current (or last) trick, -1
    led_class: int
    best_seat: int
    trick_num: int
    tricks_won: tuple[int, ...]
    jinker: int
    pot: int
    carried: int
    winner: int
    illegal: bool
    rewards: tuple[float, ...]
    legal: tuple[int, ...]  # legal action ids of the seat to act (empty once over)
    played: frozenset[int]  # cards played to tricks this deal
    renege_level: int

    @property
    def trick_count(self) -> int:
        """Cards on the table in the current (or last) trick."""
        return sum(c >= 0 for c in self.trick_cards)

    @property
    def trick_complete(self) -> bool:
        """The cards shown are a finished trick (every seat played), won by ``best_seat``."""
        return self.trick_count == self.num_players

    def trick_order(self) -> list[int]:
        """Seats that played to the trick in progress, in playing order from the leader."""
        n = self.num_players
        seats = [(self.leader + i) % n for i in range(n)]
        return [s for s in seats if self.trick_cards[s] >= 0]

    @property
    def led_card(self) -> int:
        """The card led to the trick in progress, -1 if none."""
        if self.trick_complete or self.trick_count == 0:
            return -1
        return self.trick_cards[self.leader]


def sort_cards(cards: Any, trump: int) -> tuple[int, ...]:
    """Cards strongest first: trumps by trump rank, then each plain suit by plain rank."""

    def key(c: int) -> tuple[int, int, int]:
        if TRUMP_STRENGTH[trump, c] >= 0:
            return (0, 0, -int(TRUMP_STRENGTH[trump, c]))
        return (1, c // 13, -int(PLAIN_STRENGTH[c]))

    return tuple(sorted((int(c) for c in cards), key=key))


def view(state: State) -> TableView:
    """The host values of one hand; ``ValueError`` for a batch of hands."""
    shape = np.shape(state.current_player)
    if shape != ():
        raise ValueError(
            f"this State holds a batch of hands (shape {shape}); render one hand, e.g. "
            "jax.tree.map(lambda x: x[0], state)"
        )
    names = [*(f.name for f in dataclasses.fields(State)), *PACKED_NAMES]
    g = {name: np.asarray(getattr(state, name)) for name in names}
    n = state.num_players
    trump = int(g["trump"])
    lo, hi = np.asarray(state.hands.lo), np.asarray(state.hands.hi)
    hands = tuple(sort_cards(members(lo[s], hi[s]), trump) for s in range(n))
    terminated = bool(g["terminated"])
    legal = () if terminated else tuple(members(*state.legal_set, size=55))
    return TableView(
        num_players=n,
        hands=hands,
        current=int(g["current_player"]),
        terminated=terminated,
        phase=int(g["phase"]),
        dealer=int(g["dealer"]),
        turnup=int(g["turnup"]),
        trump=trump,
        robber=int(g["robber"]),
        robbed=bool(g["robbed"]),
        discard=int(g["discard"]),
        leader=int(g["leader"]),
        trick_cards=tuple(int(c) for c in g["trick_cards"]),
        led_class=int(g["led_class"]),
        best_seat=int(g["best_seat"]),
        trick_num=int(g["trick_num"]),
        tricks_won=tuple(int(t) for t in np.asarray(state.tricks_won)),
        jinker=int(g["jinker"]),
        pot=int(g["pot"]),
        carried=int(g["carried"]),
        winner=int(g["winner"]),
        illegal=bool(g["illegal"]),
        rewards=tuple(float(r) for r in g["rewards"]),
        legal=legal,
        played=frozenset(members(*state.played)),
        renege_level=int(g["renege_level"]),
    )


# ------------------------------------------------------------------------ words


def action_text(action: int) -> str:
    """A card with its suit symbol (``10♥``), or ``pass`` / ``jink`` / ``claim``."""
    names = {PASS: "pass", JINK: "jink", CLAIM: "claim"}
    return names[action] if action in names else card_symbol(action)


def _cards_text(cards: Any) -> str:
    return " ".join(card_symbol(c) for c in cards) if len(cards) else "-"


def trump_line(v: TableView, player: int | None = None) -> str:
    """Trump suit, turn-up and rob, then the pot: the second line of the picture."""
    return f"{turnup_text(v, player)} · {pot_text(v)}"


def turnup_text(v: TableView, player: int | None = None) -> str:
    rob = ""
    if v.robbed:
        rob = f", taken by {seat_name(v.robber, player)} in a rob"
    elif v.robber >= 0 and v.phase == PHASE_ROB:
        rob = f", {seat_name(v.robber, player)} may rob"
    symbol, name = SUIT_SYMBOLS[v.trump], SUIT_NAMES[v.trump]
    return f"Trump {symbol} {name} (turn-up {card_symbol(v.turnup)}{rob})"


def pot_text(v: TableView) -> str:
    carried = f" ({v.carried} carried in)" if v.carried else ""
    return f"pot {v.pot} chips{carried}"


def status_line(v: TableView, player: int | None = None) -> str:
    """What is happening now: whose decision, or how the hand ended."""
    if v.terminated:
        return result_line(v, player)
    who = seat_name(v.current, player)
    if v.phase == PHASE_ROB:
        return f"{who.capitalize()} to decide: rob the turn-up {card_symbol(v.turnup)} or not"
    if v.phase == PHASE_JINK:
        return f"{who.capitalize()} won the first three tricks: jink (play on) or claim the pot"
    verb = "lead" if v.current == v.leader else "play"
    return f"{who.capitalize()} to {verb} to trick {v.trick_num + 1}"


def result_line(v: TableView, player: int | None = None) -> str:
    if v.illegal:
        return f"The hand ended on an illegal action; the pot of {v.pot} is carried"
    if v.winner >= 0:
        who = seat_name(v.winner, player)
        jink = " after a successful jink" if v.jinker == v.winner else ""
        gain = v.rewards[v.winner] if v.rewards else 0.0
        return f"{who.capitalize()} won the pot of {v.pot} chips{jink} (net {gain:+g})"
    if v.jinker >= 0:
        who = seat_name(v.jinker, player)
        return f"{who.capitalize()} jinked and failed: the pot of {v.pot} chips is carried"
    return f"Spoiled: nobody won three tricks; the pot of {v.pot} chips is carried"


def trick_line(v: TableView, player: int | None = None) -> str:
    """The trick in progress in playing order, or the last finished trick and its winner."""
    if v.trick_count == 0:
        return ""
    if v.trick_complete:
        card = card_symbol(v.trick_cards[v.best_seat])
        return f"Trick {v.trick_num} won by {seat_name(v.best_seat, player)} with {card}"
    plays = ", ".join(
        f"{seat_name(s, player)} {card_symbol(v.trick_cards[s])}" for s in v.trick_order()
    )
    led = "a trump" if v.led_class == TRUMP_CLASS else SUIT_NAMES[v.led_class]
    best = seat_name(v.best_seat, player)
    return f"Trick {v.trick_num + 1} so far ({led} led): {plays}; best so far: {best}"


# ------------------------------------------------------------------------ text


def render_text(state: State, player: int | None = None) -> str:
    """A plain-text picture of one hand as seen by seat ``player`` (None: the whole table).

    With ``player=k`` only seat ``k``'s cards are shown (the others as counts) and the rob
    discard never is.  ``ValueError`` for a batched state or a seat outside the table.
    """
    v = view(state)
    _check_player(player, v.num_players)
    lines = table_lines(v, player)
    lines.append(status_line(v, player))
    if v.legal and (player is None or player == v.current):
        lines.append("Legal: " + " ".join(action_text(a) for a in legal_in_hand_order(v)))
    return "\n".join(lines)


def legal_in_hand_order(v: TableView) -> list[int]:
    """The legal actions of the seat to act: its cards strongest first, then the others."""
    cards = [c for c in v.hands[v.current] if c in v.legal] if v.current >= 0 else []
    return cards + [a for a in v.legal if a >= 52]


def table_lines(v: TableView, player: int | None = None) -> list[str]:
    """The header, one row per seat, the trick and (table view) the rob discard."""
    lines = [
        f"Spoil Five, {v.num_players} players · dealer seat {v.dealer} · "
        f"{'hand over' if v.terminated else f'trick {min(v.trick_num + 1, 5)} of 5'}",
        trump_line(v, player),
    ]
    label_w = max(len(_seat_label(v, s, player)) for s in range(v.num_players))
    lines.append(f"  {'seat':<{label_w}}  tricks  {'hand':<22}  trick")
    for s in range(v.num_players):
        mark = ">" if s == v.current else " "
        hand = _hand_text(v, s, player)
        card = v.trick_cards[s]
        played = card_symbol(card) if card >= 0 else ""
        if card >= 0 and v.trick_complete and s == v.best_seat:
            played += " (won)"
        elif card >= 0 and not v.trick_complete and s == v.leader:
            played += " (led)"
        lines.append(
            f"{mark} {_seat_label(v, s, player):<{label_w}}  {v.tricks_won[s]:>6}  "
            f"{hand:<22}  {played}".rstrip()
        )
    trick = trick_line(v, player)
    if trick:
        lines.append(trick)
    if player is None and v.discard >= 0:
        lines.append(f"Rob discard (hidden from the players): {card_symbol(v.discard)}")
    return lines


def _check_player(player: int | None, n: int) -> None:
    if player is None:
        return
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
        raise ValueError(f"player must be a seat number or None, got {player!r}")
    if not 0 <= int(player) < n:
        raise ValueError(f"player must be a seat 0..{n - 1} or None, got {player}")


def _seat_label(v: TableView, s: int, player: int | None) -> str:
    label = f"{s}"
    if player is not None and s == player:
        label += " you"
    if s == v.dealer:
        label += " dealer"
    return label


def _hand_text(v: TableView, s: int, player: int | None) -> str:
    if player is None or s == player:
        return _cards_text(v.hands[s])
    k = len(v.hands[s])
    return f"[{k} card{'s' if k != 1 else ''}]"


# ------------------------------------------------------------------------ SVG

_CARD_W, _CARD_H, _GAP = 38, 54, 6
_ROW_H = _CARD_H + 12
_LABEL_W = 150
_PAD = 14
_HEADER_H = 64
_RED = "#c0142b"
_BLACK = "#1a1a1a"


def _text_width(text: str, size: int) -> int:
    """A generous estimate of the width of ``text`` in pixels at font ``size``."""
    return int(len(text) * size * 0.6) + 1


def _svg_card(x: float, y: float, card: int, highlight: bool = False) -> str:
    suit = card // 13
    color = _RED if suit in (1, 2) else _BLACK
    stroke = "#d4a017" if highlight else "#555"
    width = 3 if highlight else 1
    label = card_symbol(card)
    return (
        f'<g class="card" data-card="{card_str(card)}">'
        f'<rect x="{x}" y="{y}" width="{_CARD_W}" height="{_CARD_H}" rx="4" fill="white" '
        f'stroke="{stroke}" stroke-width="{width}"/>'
        f'<text x="{x + 4}" y="{y + 15}" font-size="13" font-weight="bold" '
        f'fill="{color}">{escape(label)}</text>'
        f'<text x="{x + _CARD_W / 2}" y="{y + 42}" font-size="22" text-anchor="middle" '
        f'fill="{color}">{SUIT_SYMBOLS[suit]}</text></g>'
    )


def _svg_back(x: float, y: float) -> str:
    return (
        f'<rect class="back" x="{x}" y="{y}" width="{_CARD_W}" height="{_CARD_H}" rx="4" '
        f'fill="#2f5f9e" stroke="#1d3c66"/>'
    )


def _svg_text(x: float, y: float, text: str, size: int = 13, **attrs: str) -> str:
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(val)}" for k, val in attrs.items())
    return f'<text x="{x}" y="{y}" font-size="{size}"{extra}>{escape(text)}</text>'


def render_svg(state: State, player: int | None = None) -> str:
    """An SVG picture of one hand as seen by seat ``player`` (None: the whole table).

    Each seat is a row: its label and tricks won, its cards (face down for hidden hands), and
    its card in the current trick (the winning card outlined in gold).  The header has the trump
    suit, the turn-up, the pot and the status.  Each face-up card is a ``<g class="card"
    data-card="5H">`` holding its text with the suit symbol (``5♥``).
    """
    v = view(state)
    _check_player(player, v.num_players)
    n = v.num_players
    title = f"Spoil Five · {n} players · dealer seat {v.dealer}"
    header = [turnup_text(v, player), f"{pot_text(v).capitalize()} · tricks played {v.trick_num}"]
    footer = [line for line in (trick_line(v, player), status_line(v, player)) if line]
    if player is None and v.discard >= 0:
        footer.append(f"Rob discard (hidden from the players): {card_symbol(v.discard)}")
    hand_x = _PAD + _LABEL_W
    trick_x = hand_x + 5 * (_CARD_W + _GAP) + 24
    width = max(
        trick_x + _CARD_W + 80 + _PAD,
        _PAD + _text_width(max([title, *header], key=len), 14) + 80 + _CARD_W + _PAD,
        2 * _PAD + _text_width(max(footer, key=len), 13),
    )
    rows_y = _HEADER_H + 18
    height = rows_y + n * _ROW_H + len(footer) * 18 + _PAD
    font = "font-family=\"'DejaVu Sans', 'Segoe UI Symbol', Arial, sans-serif\""
    turnup_x = width - _PAD - _CARD_W
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" {font}>',
        f'<rect width="{width}" height="{height}" fill="#1f6f43" rx="8"/>',
        _svg_text(_PAD, 24, title, 15, fill="white", font_weight="bold"),
        _svg_text(_PAD, 44, header[0], 13, fill="white"),
        _svg_text(_PAD, 62, header[1], 12, fill="#d8eadf"),
        _svg_card(turnup_x, 8, v.turnup).replace('class="card"', 'class="card turnup"', 1),
        _svg_text(turnup_x - 8, 40, "turn-up", 12, fill="#d8eadf", text_anchor="end"),
        _svg_text(trick_x, rows_y - 4, "trick", 12, fill="#d8eadf"),
    ]
    for s in range(n):
        y = rows_y + s * _ROW_H
        if s == v.current:
            out.append(
                f'<rect x="{_PAD - 6}" y="{y - 4}" width="{width - 2 * _PAD + 12}" '
                f'height="{_ROW_H - 4}" rx="6" fill="#2e8a57"/>'
            )
        label = seat_name(s, player) + (" · dealer" if s == v.dealer else "")
        out.append(_svg_text(_PAD, y + 22, label, 14, fill="white", font_weight="bold"))
        tricks = v.tricks_won[s]
        out.append(_svg_text(_PAD, y + 42, f"tricks won: {tricks}", 12, fill="#d8eadf"))
        for i, c in enumerate(v.hands[s]):
            x = hand_x + i * (_CARD_W + _GAP)
            out.append(_svg_card(x, y, c) if player is None or s == player else _svg_back(x, y))
        card = v.trick_cards[s]
        if card >= 0:
            won = v.trick_complete and s == v.best_seat
            out.append(_svg_card(trick_x, y, card, highlight=s == v.best_seat))
            note = "won" if won else ("led" if s == v.leader and not v.trick_complete else "")
            if note:
                out.append(_svg_text(trick_x + _CARD_W + 8, y + 32, note, 12, fill="white"))
    y = rows_y + n * _ROW_H + 14
    for line in footer:
        out.append(_svg_text(_PAD, y, line, 13, fill="white"))
        y += 18
    out.append("</svg>")
    return "\n".join(out)


class _Rendering:
    """The ``Rendering`` capability (``core.capabilities``): the pictures need nothing of the
    env that the state does not hold."""

    def render_text(self, env: Any, state: State, *, player: int | None = None) -> str:
        return render_text(state, player)

    def render_svg(self, env: Any, state: State, *, player: int | None = None) -> str:
        return render_svg(state, player)


RENDERING = _Rendering()
