"""Terminal play: a hand or a session of Spoil Five against bots, one decision at a time.

``TerminalGame`` reads the human's choices from ``input`` and writes the table to ``output``
(any text streams, so tests script it).  At each of the human's decisions it shows the seat's
view (``render_text``), offers only the legal moves, numbered, and accepts a card (``5H``,
``10h``), a number from the list, ``pass`` / ``jink`` / ``claim``, ``hint`` or ``?`` for the
analysis of the legal moves (``sf.analyze``), ``help`` or ``q`` to quit.  A card that may not be
played is refused with the reason, derived from the state and the rules (``explain_illegal``).
After each trick it says who won it and with which card.

Bots are jittable policies ``policy(key, state, player) -> action`` (``HEURISTIC`` by default).
A session plays several hands at one table: the dealer passes left and a spoiled pot is carried.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core.cards import NUM_CARDS, TRUMP_STRENGTH, card_id, card_symbol
from spoilfive_jax.core.terminal import Quit, TerminalTable, prompt_action
from spoilfive_jax.games.spoil_five.game import (
    CLAIM,
    JINK,
    PASS,
    PHASE_JINK,
    PHASE_ROB,
    TRUMP_CLASS,
    State,
)
from spoilfive_jax.games.spoil_five.policies import HEURISTIC
from spoilfive_jax.games.spoil_five.render import (
    SUIT_NAMES,
    TableView,
    legal_in_hand_order,
    result_line,
    table_lines,
    view,
)
from spoilfive_jax.games.spoil_five.rules import Rules
from spoilfive_jax.tools.best import hint_text

if TYPE_CHECKING:  # the type only: env.py declares this module's game (through presentation.py)
    from spoilfive_jax.games.spoil_five.env import SpoilFive


Policy = Callable[[jax.Array, State, jax.Array], jax.Array]
_NAMED = {"pass": PASS, "jink": JINK, "claim": CLAIM}
_TOP_TRUMPS = (13, 12, 11)  # trump strengths of the 5, the jack of trumps and A♥
_HELP = (
    "Type a card (5H, 10h, 10♥, TD), a number from the list, pass (decline to rob), "
    "jink or claim (after winning the first three tricks), hint or ? for the analysis of your "
    "moves (best first: win %, chips), help for this help, q to quit."
)


@dataclasses.dataclass(frozen=True)
class SessionOutcome:
    """What a terminal session came to."""

    chips: tuple[float, ...]  # net chips of each seat over the hands finished
    hands_played: int
    pot: int  # chips left in the pot, carried from the last hand
    quit: bool  # the human left before the last hand was over


# ------------------------------------------------------------------------ explanations


def _cards(cards: Any) -> str:
    return " ".join(card_symbol(c) for c in cards)


def _strength(v: TableView, card: int) -> int:
    return int(TRUMP_STRENGTH[v.trump, card])


def _trump_name(v: TableView, card: int) -> str:
    if card == 26:
        return "the A♥"
    rank = card_symbol(card)[:-1]
    return f"the {rank} of trumps ({card_symbol(card)})"


def explain_illegal(v: TableView, action: int, rules: Rules) -> str:
    """Why ``action`` is not a legal choice for the seat to act (for a refused move)."""
    hand = v.hands[v.current]
    cards = [a for a in legal_in_hand_order(v) if a < NUM_CARDS]
    if v.phase == PHASE_ROB:
        if action == PASS:
            return "the rob is forced under these rules (rob=forced): name a card to discard"
        if action in (JINK, CLAIM):
            return "jink and claim come after winning the first three tricks; now rob or pass"
        return f"you do not hold {card_symbol(action)}: discard one of {_cards(hand)}"
    if v.phase == PHASE_JINK:
        return "you have won the first three tricks: answer jink (play on) or claim (the pot)"
    if action == PASS:
        return "pass only declines a rob; play a card"
    if action in (JINK, CLAIM):
        return "jink and claim come only after winning the first three tricks; play a card"
    if action not in hand:
        return f"you do not hold {card_symbol(action)}; you hold {_cards(hand)}"
    if 0 <= v.led_class < TRUMP_CLASS:
        suit = SUIT_NAMES[v.led_class]
        note = ""
        if v.led_class == 2 and 26 in hand:
            note = " (A♥ is a trump, never a heart)"
        if rules.follow == "seed":
            return f"you must follow {suit} or trump: you hold {_cards(cards)}{note}"
        return (
            f"you hold {suit}, so you must follow {suit} or trump: you hold {_cards(cards)}{note}"
        )
    if v.led_class == TRUMP_CLASS:
        return _explain_trump_lead(v, rules, cards)
    return f"{card_symbol(action)} is not allowed now; legal: {_cards(cards)}"


def _explain_trump_lead(v: TableView, rules: Rules, legal: list[int]) -> str:
    hand = v.hands[v.current]
    led = v.trick_cards[v.leader]
    trumps = [c for c in hand if _strength(v, c) >= 0]
    forced = [c for c in trumps if not _renege_eligible(v, c)]
    reasons = []
    lost = [c for c in forced if _strength(v, c) in _TOP_TRUMPS]
    for c in lost:
        above = _highest_trump_against(v, rules)
        where = {
            "deal": "has already been played this deal",
            "trick": "has been played in this trick",
            "led": "was led",
        }[rules.renege]
        reasons.append(
            f"your {card_symbol(c)} may not be withheld: {card_symbol(above)}, a higher trump, "
            f"{where} (renege={rules.renege})"
        )
    if len(lost) < len(forced):
        reasons.append("only the 5 and jack of trumps and A♥ may be withheld from a trump lead")
    return (
        f"you hold a trump that may not be reneged: {_trump_name(v, led)} was led and you "
        f"hold {_cards(forced)} ({'; '.join(reasons)}); play a trump: {_cards(legal)}"
    )


def _renege_eligible(v: TableView, card: int) -> bool:
    s = _strength(v, card)
    return s in _TOP_TRUMPS and s > v.renege_level


def _highest_trump_against(v: TableView, rules: Rules) -> int:
    """The trump that sets the renege level (the highest that counts under the rule)."""
    if rules.renege == "led":
        return v.trick_cards[v.leader]
    pool = set(v.played) if rules.renege == "deal" else {c for c in v.trick_cards if c >= 0}
    trumps = [c for c in pool if _strength(v, c) >= 0]
    return max(trumps, key=lambda c: _strength(v, c))


# ------------------------------------------------------------------------ the game


@functools.cache
def _compiled(env: SpoilFive) -> tuple[Callable[..., State], Callable[..., State]]:
    """``jit(env.init)`` and ``jit(env.step)``, compiled once per table (env is hashable)."""
    return jax.jit(lambda k, d, c: env.init(k, d, c)), jax.jit(lambda s, a: env.step(s, a))


class TerminalGame(TerminalTable):
    """A table of ``env.num_players`` seats: the human at ``human``, bots at the others."""

    def __init__(
        self,
        env: SpoilFive,
        input: TextIO,
        output: TextIO,
        human: int = 0,
        bots: Policy = HEURISTIC,
        seed: int = 0,
        hint_samples: int = 200,
    ) -> None:
        super().__init__(env, input, output, human, bots, seed)
        self._init, self._step = _compiled(env)
        self.hint_samples = hint_samples

    # -- a session
    def play_session(self, hands: int = 1, dealer: int = 0) -> SessionOutcome:
        """Play ``hands`` hands (the dealer passing left, spoiled pots carried)."""
        n = self.env.num_players
        if isinstance(hands, bool) or int(hands) < 1:
            raise ValueError(f"hands must be a positive integer, got {hands}")
        if not 0 <= int(dealer) < n:
            raise ValueError(f"dealer must be 0..{n - 1}, got {dealer}")
        chips = np.zeros(n)
        carried = 0
        played = 0
        try:
            for h in range(int(hands)):
                key = jax.random.fold_in(self.key, h)
                state = self._init(key, jnp.int32(dealer), jnp.int32(carried))
                carry = f", {carried} carried in" if carried else ""
                self.say(
                    f"\n=== Hand {h + 1} of {hands} · {self.name(dealer)} dealt{carry} "
                    f"· pot {int(state.pot)} ==="
                )
                state = self.play_hand(state, key)
                chips += np.asarray(state.rewards)
                carried = int(state.carried_out)
                played += 1
                dealer = (dealer + 1) % n
                if hands > 1:
                    self.say(self._standings(chips, played, carried))
        except Quit:
            self.say("\nYou left the table.")
            if played:
                self.say(self._standings(chips, played, carried))
            return SessionOutcome(tuple(chips.tolist()), played, carried, True)
        return SessionOutcome(tuple(chips.tolist()), played, carried, False)

    def _standings(self, chips: np.ndarray, played: int, carried: int) -> str:
        seats = ", ".join(f"{self.name(s)} {c:+g}" for s, c in enumerate(chips))
        pot = f"; {carried} chips carried to the next hand" if carried else ""
        return f"Chips after {played} hand{'s' if played != 1 else ''}: {seats}{pot}"

    # -- a hand
    def play_hand(self, state: State, key: jax.Array) -> State:
        """Play one hand from ``state`` to the end; returns the final state."""
        v = view(state)
        self.say(f"Turn-up {card_symbol(v.turnup)}: {SUIT_NAMES[v.trump]} are trumps.")
        while not v.terminated:
            if v.current == self.human:
                action = self.ask(state, v)
            else:
                k = jax.random.fold_in(key, int(state._step_count))
                action = self.bot_action(k, state)
                if action not in v.legal:  # a bot must never end the hand on a foul
                    raise RuntimeError(f"bot at seat {v.current} chose illegal action {action}")
            self._announce(v, action)
            state = self._step(state, jnp.int32(action))
            after = view(state)
            if after.trick_num > v.trick_num:
                self._trick_won(after)
            v = after
        self.say(result_line(v, self.human) + ".")
        mine = v.rewards[self.human]
        self.say(f"Your chips this hand: {mine:+g}.")
        return state

    def _announce(self, v: TableView, action: int) -> None:
        who = self.name(v.current).capitalize()
        you = v.current == self.human
        if v.phase == PHASE_ROB:
            self.announce_rob(who, you, action == PASS, action, v.turnup)
        elif v.phase == PHASE_JINK:
            if action == JINK:
                self.say(f"{who} {'jink' if you else 'jinks'}: playing on for all five tricks.")
            else:
                self.say(f"{who} {'claim' if you else 'claims'} the pot of {v.pot} chips.")
        else:
            leads = v.current == v.leader
            verb = ("lead" if leads else "play") if you else ("leads" if leads else "plays")
            self.say(f"{who} {verb} {card_symbol(action)}.")

    def _trick_won(self, v: TableView) -> None:
        winner = v.best_seat
        tricks = ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(v.tricks_won))
        self.say(
            f"Trick {v.trick_num}: {self.name(winner)} "
            f"{'win' if winner == self.human else 'wins'} with "
            f"{card_symbol(v.trick_cards[winner])}. Tricks: {tricks}."
        )

    # -- the human's decision
    def options(self, v: TableView) -> list[tuple[int, str]]:
        """The legal moves of the seat to act, in the order they are offered."""
        if v.phase == PHASE_ROB:
            out = [(c, f"discard {card_symbol(c)}") for c in v.hands[v.current] if c in v.legal]
            if PASS in v.legal:
                out.append((PASS, "pass"))
            return out
        if v.phase == PHASE_JINK:
            return [(JINK, "jink"), (CLAIM, "claim")]
        return [(c, card_symbol(c)) for c in v.hands[v.current] if c in v.legal]

    def _question(self, v: TableView) -> str:
        if v.phase == PHASE_ROB:
            why = (
                "the turn-up is an ace and you dealt"
                if v.turnup % 13 == 0
                else f"you hold the ace of trumps ({card_symbol(v.trump * 13)})"
            )
            must = "must" if PASS not in v.legal else "may"
            return (
                f"Rob? {why[0].upper() + why[1:]}, so you {must} take the turn-up "
                f"{card_symbol(v.turnup)} and discard one card face down. Which card do you "
                f"discard{'' if must == 'must' else ', or pass'}?"
            )
        if v.phase == PHASE_JINK:
            bonus = self.rules.bonus
            return (
                "Jink? You have won the first three tricks. jink: play on, and if you win "
                f"tricks 4 and 5 take the pot plus {bonus} from every other player (lose one and "
                f"the pot is carried); claim: take the pot of {v.pot} chips now."
            )
        if v.current == v.leader:
            return f"Your lead to trick {v.trick_num + 1}:"
        return f"Your play to trick {v.trick_num + 1}:"

    def ask(self, state: State, v: TableView) -> int:
        """Ask the human for a legal action (refusing others with the reason)."""
        options = self.options(v)
        self.say()
        self.say("\n".join(table_lines(v, self.human)))
        self.say(self._question(v))
        return prompt_action(
            self.input,
            self.output,
            options,
            _HELP,
            lambda text: self._parse(text, options),
            v.legal,
            lambda action: explain_illegal(v, action, self.rules),
            hint=lambda: self.hint(state),
        )

    def hint(self, state: State) -> str:
        """The analysis of the human's legal moves, best first (``hint`` or ``?``)."""
        key = jax.random.fold_in(self.key, 1 << 20 | int(state._step_count))
        return hint_text(self.env, state, key, self.hint_samples)

    def _parse(self, text: str, options: list[tuple[int, str]]) -> int:
        low = text.lower()
        if low.isdigit():
            i = int(low)
            if not 1 <= i <= len(options):
                raise ValueError(f"choose a number from 1 to {len(options)}")
            return options[i - 1][0]
        if low in _NAMED:
            return _NAMED[low]
        if low == "rob":
            raise ValueError("to rob, type the card you discard (e.g. 7C)")
        for word in ("discard ", "rob ", "play "):
            if low.startswith(word):
                text = text[len(word) :]
        if low in ("jk", "joker"):
            raise ValueError("Spoil Five has no joker (JK): the pack is 52 cards")
        try:
            return card_id(text)
        except ValueError:
            raise ValueError(
                f"not a card or a move: {text!r}; type a card such as 5H or 10C, a number "
                "from the list, pass, jink, claim, ? or q"
            ) from None


def play_terminal(
    env: SpoilFive,
    input: TextIO,
    output: TextIO,
    *,
    human: int = 0,
    bots: Policy = HEURISTIC,
    hands: int = 1,
    dealer: int = 0,
    seed: int = 0,
) -> SessionOutcome:
    """Play ``hands`` hands in the terminal (or any text streams); see ``TerminalGame``."""
    game = TerminalGame(env, input, output, human=human, bots=bots, seed=seed)
    return game.play_session(hands, dealer)
