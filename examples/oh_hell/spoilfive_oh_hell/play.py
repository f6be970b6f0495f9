"""The ``TerminalPlay`` capability: hands of Oh Hell against bots in a terminal.

At each of the human's decisions it shows the trump card, the bids, the trick so far and the
hand, offers the legal moves numbered, and reads a number from the list, a card (``5H``,
``10h``, ``10♥``), ``bid K``, ``hint`` or ``?`` (``sf.analyze`` of the moves), ``help`` or
``q``.  Several hands: the deal passes left and the scores add up.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.core.bits as bits
from spoilfive_jax.core.terminal import Quit, TerminalTable, prompt_action
from spoilfive_oh_hell.game import PHASE_BID
from spoilfive_oh_hell.presentation import SUIT_NAMES, cards_text
from spoilfive_oh_hell.rules import BID, NUM_CARDS, card_symbol, parse_cards, suit_of

_HELP = (
    "Type a number from the list, a card (5H, 10h, 10♥, TD), bid K (or just K while "
    "bidding), hint or ? for the analysis of your moves (best first), help, q to quit."
)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a terminal session came to."""

    points: tuple[float, ...]  # each seat's points over the hands finished
    hands_played: int
    quit: bool  # the human left before the last hand was over


@functools.cache
def _compiled(env: Any) -> tuple[Any, Any]:
    return jax.jit(lambda k, d: env.init(k, d)), jax.jit(lambda s, a: env.step(s, a))


def _hand(state: Any, seat: int) -> list[int]:
    """The seat's cards, by suit (clubs, diamonds, spades, hearts) and rank."""
    cards = bits.members(state.hands.lo[seat], state.hands.hi[seat], NUM_CARDS)
    return sorted(cards, key=lambda c: (suit_of(c), c))


class TerminalGame(TerminalTable):
    """The human at ``human``, bots at the other seats."""

    def __init__(self, env: Any, input: TextIO, output: TextIO, human: int, bots: Any,
                 seed: int, hint_samples: int = 200) -> None:  # fmt: skip
        super().__init__(env, input, output, human, bots, seed)
        self._init, self._step = _compiled(env)
        self.hint_samples = hint_samples

    def play_session(self, hands: int, dealer: int) -> Outcome:
        n = self.env.num_players
        points = np.zeros(n)
        played = 0
        try:
            for h in range(hands):
                key = jax.random.fold_in(self.key, h)
                self.say(f"\n=== Hand {h + 1} of {hands} · {self.name(dealer)} dealt ===")
                state = self.play_hand(self._init(key, jnp.int32(dealer)), key)
                points += np.asarray(state.rewards)
                played += 1
                dealer = (dealer + 1) % n
                if hands > 1:
                    self.say(self._standings(points, played))
        except Quit:
            self.say("\nYou left the table.")
            return Outcome(tuple(points.tolist()), played, True)
        return Outcome(tuple(points.tolist()), played, False)

    def _standings(self, points: np.ndarray, played: int) -> str:
        seats = ", ".join(f"{self.name(s)} {p:g}" for s, p in enumerate(points))
        return f"Points after {played} hand{'s' if played != 1 else ''}: {seats}"

    def play_hand(self, state: Any, key: jax.Array) -> Any:
        trump = int(state.trump_card)
        self.say(f"Trump card {card_symbol(trump)}: {SUIT_NAMES[suit_of(trump)]} are trumps.")
        while not bool(state.terminated):
            seat = int(state.current_player)
            legal = self.env.legal_actions(state)
            if seat == self.human:
                action = self.ask(state, legal)
            else:
                k = jax.random.fold_in(key, int(state._step_count))
                action = self.bot_action(k, state)
                if action not in legal:  # a bot must never end the hand on a foul
                    raise RuntimeError(f"bot at seat {seat} chose illegal action {action}")
            self._announce(state, seat, action)
            before = int(np.asarray(state.tricks_won).sum())
            state = self._step(state, jnp.int32(action))
            if int(np.asarray(state.tricks_won).sum()) > before:
                self._trick_won(state)
        mine = float(state.rewards[self.human])
        bids = np.asarray(state.bids).tolist()
        tricks = np.asarray(state.tricks_won).tolist()
        lines = [
            f"{self.name(s)}: bid {b}, took {t}, {float(state.rewards[s]):g} points"
            for s, (b, t) in enumerate(zip(bids, tricks, strict=True))
        ]
        self.say("Hand over. " + "; ".join(lines) + f". You score {mine:g}.")
        return state

    def _announce(self, state: Any, seat: int, action: int) -> None:
        who = self.name(seat).capitalize()
        you = seat == self.human
        if action >= BID:
            self.say(f"{who} {'bid' if you else 'bids'} {action - BID}.")
        else:
            leads = int(state.best_seat) < 0
            verb = ("lead" if leads else "play") if you else ("leads" if leads else "plays")
            self.say(f"{who} {verb} {card_symbol(action)}.")

    def _trick_won(self, state: Any) -> None:
        winner = int(state.leader)
        card = int(state.last_trick[winner])
        tricks = ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(state.tricks_won.tolist()))
        verb = "win" if winner == self.human else "wins"
        self.say(f"{self.name(winner).capitalize()} {verb} with {card_symbol(card)}. "
                 f"Tricks: {tricks}.")  # fmt: skip

    def ask(self, state: Any, legal: list[int]) -> int:
        hand = _hand(state, self.human)
        bids = ", ".join(
            f"{self.name(s)} {'-' if b < 0 else b}" for s, b in enumerate(state.bids.tolist())
        )
        trick = [
            f"{self.name(s)} {card_symbol(c)}" for s, c in enumerate(state.trick_cards.tolist())
            if c >= 0
        ]  # fmt: skip
        self.say()
        self.say(f"Trump {card_symbol(int(state.trump_card))} · bids: {bids}")
        if trick:
            self.say("Trick so far: " + ", ".join(trick))
        self.say(f"Your hand: {cards_text(hand)}")
        if int(state.phase) == PHASE_BID:
            self.say(f"Your bid (0..{self.rules.num_tricks}):")
            options = [(a, f"bid {a - BID}") for a in legal]
            numbers = [a - BID for a in legal]  # (typing K bids K: the menu says so)
        else:
            self.say("Your lead:" if not trick else "Your play:")
            options = [(c, card_symbol(c)) for c in hand if c in legal]
            numbers = None
        return prompt_action(
            self.input,
            self.output,
            options,
            _HELP,
            lambda text: self._parse(text, options, int(state.phase) == PHASE_BID),
            legal,
            lambda action: self._explain(state, action, hand),
            hint=lambda: self.hint(state),
            numbers=numbers,
        )

    def _parse(self, text: str, options: list[tuple[int, str]], bidding: bool) -> int:
        low = text.lower().strip()
        if low.startswith("bid"):
            rest = low[3:].strip()
            if not rest.isdigit():
                raise ValueError("write a bid as: bid 2")
            return BID + int(rest)
        if low.isdigit():
            if bidding:
                return BID + int(low)
            i = int(low)
            if not 1 <= i <= len(options):
                raise ValueError(f"choose a number from 1 to {len(options)}")
            return options[i - 1][0]
        try:
            (card,) = parse_cards(text)
        except ValueError:
            raise ValueError(f"not a card or a move: {text!r}; type 5H, a number, ? or q") from None
        return card

    def _explain(self, state: Any, action: int, hand: list[int]) -> str:
        if int(state.phase) == PHASE_BID:
            if action < BID:
                return "bid first (bid K)"
            t = self.rules.num_tricks
            if action - BID > t:
                return f"bids are 0..{t}"
            return f"the dealer may not make the bids add up to {t}"
        if action >= BID:
            return "the bidding is over: play a card"
        if action not in hand:
            return f"you do not hold {card_symbol(action)}"
        led = int(state.led_suit)
        return f"you hold {SUIT_NAMES[led]}, so you must follow suit"

    def hint(self, state: Any) -> str:
        from spoilfive_jax.tools.analysis import hint_text

        key = jax.random.fold_in(self.key, 1 << 20 | int(state._step_count))
        return hint_text(self.env, state, key, self.hint_samples)


def play_terminal(env: Any, input: Any, output: Any, *, human: int, bots: Any, bots_name: str,
                  hands: int | None, dealer: int, seed: int) -> Outcome:  # fmt: skip
    """Play ``hands`` hands (default 1) against ``bots`` in the terminal (any text streams)."""
    hands = 1 if hands is None else int(hands)
    output.write(
        f"Oh Hell: you are seat {human} of {env.num_players}, {env.rules.num_tricks} cards "
        f"each, against {bots_name} bots; {hands} hand{'s' if hands > 1 else ''}. Type hint "
        "(or ?) for advice, help, q to quit.\n"
    )
    game = TerminalGame(env, input, output, human, bots, seed)
    return game.play_session(hands, dealer)
