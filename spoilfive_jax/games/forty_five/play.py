"""Terminal play of the Forty-Five family (Forty-Five, Twenty-Five, Auction Forty-Fives).

``FamilyGame`` plays whole games (hand after hand until a team reaches the target, or
``hands`` hands) with a human at one seat and the family's built-in bots (``"greedy"``,
``"heuristic"`` or ``"random"``, or any jittable policy) at the others, reading the human's
choices from ``input`` and writing the table to ``output`` (any text streams, so tests script
it), in the style of the Spoil Five loop (both share ``core.terminal``: ``prompt_action``,
``Quit``, policy compiling).

At each of the human's decisions it shows the hand, the trump (turn-up or named), a seat table
(team, tricks, cards left, the trick's cards), the trick so far and who is winning it, tricks
and points per team and the game scores, then offers only the legal moves,
numbered: cards (``5H``, ``JK``), bids ``15``/``20``/``25``/``30``, ``pass``, ``hold``, a trump
suit (``hearts``, ``H``), ``done`` (discarding), ``jink``; ``hint`` or ``?`` for the analysis
of the legal moves (``sf.analyze``), ``help``, ``q`` to quit.  A
refused move is explained (follow suit, top-trump reneging, bids).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import jax
import jax.numpy as jnp
import numpy as np

import spoilfive_jax.games.forty_five.game as game
from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.present import SUIT_NAMES
from spoilfive_jax.core.terminal import Quit, TerminalTable, prompt_action
from spoilfive_jax.games.forty_five.actions import card_id
from spoilfive_jax.games.forty_five.game import (
    BID_15,
    BID_30,
    BID_VALUES,
    HOLD,
    JINK,
    JOKER,
    NAME_CLUBS,
    PASS,
    PHASE_ANNOUNCE,
    PHASE_BID,
    PHASE_DISCARD,
    PHASE_JOKER,
    PHASE_PLAY,
    PHASE_ROB,
    PHASE_TRUMP,
    TRUMP_CLASS,
    State,
)
from spoilfive_jax.games.forty_five.render import (
    FamilyView,
    cards_text,
    read_view,
    seat_table,
    trick_line,
)
from spoilfive_jax.games.forty_five.rules import MIN_BID_SCORE, num_teams
from spoilfive_jax.tools.best import hint_text

if TYPE_CHECKING:  # the type only: env.py declares this module's game (through presentation.py)
    from spoilfive_jax.games.forty_five.env import FortyFive

__all__ = ["FamilyGame", "FamilyOutcome", "Quit", "play_family"]

_SUIT_SYMBOLS = "♣♦♥♠"
_HELP = (
    "Type a number from the list, a card (5H, 10h, 10♥, JK), a bid (15, 20, 25, 30), pass, hold, "
    "a suit (hearts or H) when naming trump, done (stop discarding), jink, hint or ? for the "
    "analysis of your moves (best first: points), help for this help, q to quit."
)


@dataclasses.dataclass(frozen=True)
class FamilyOutcome:
    """What a terminal game came to."""

    scores: tuple[int, ...]  # the teams' game scores after the last hand finished
    hands_played: int
    game_over: bool
    winner: int  # the winning team once the game is over, else -1
    quit: bool  # the human left before the end


ctext = card_symbol  # a card for people (``10♥``, ``JK`` for the joker)
_cards = cards_text


@functools.cache
def _compiled(env: FortyFive) -> tuple[Callable[..., State], ...]:
    """``jit`` of ``init``, ``step`` and ``next_hand``, compiled once per table."""
    return (
        jax.jit(lambda k, d: env.init(k, d)),
        jax.jit(lambda s, a: env.step(s, a)),
        jax.jit(lambda k, s: env.next_hand(k, s)),
    )


_View = FamilyView


class FamilyGame(TerminalTable):
    """A family table of ``env.num_players`` seats: the human at ``human``, bots elsewhere."""

    def __init__(
        self,
        env: FortyFive,
        input: TextIO,
        output: TextIO,
        human: int = 0,
        bots: Any = "greedy",
        seed: int = 0,
        hint_samples: int = 200,
    ) -> None:
        super().__init__(env, input, output, human, bots, seed)
        self.teams = num_teams(env.num_players)
        self._init, self._step, self._next = _compiled(env)
        self.hint_samples = hint_samples
        self._strength: dict[int, np.ndarray] = {}

    # -- words
    def team_name(self, team: int) -> str:
        seats = range(team, self.env.num_players, self.teams)
        return " & ".join(self.name(s) for s in seats)

    def strength(self, trump: int) -> np.ndarray:
        """int[53]: trump strength of each card id (-1: not a trump)."""
        if trump not in self._strength:
            ids = jnp.arange(53, dtype=jnp.int32)
            self._strength[trump] = np.asarray(
                game.trump_strength(ids, jnp.int32(trump), self.rules)
            )
        return self._strength[trump]

    def view(self, state: State) -> _View:
        return read_view(state, self.rules.deck_size, self.strength)

    # -- a game
    def play_game(self, hands: int | None = None, dealer: int = 0) -> FamilyOutcome:
        """Play hands until the game is over (or ``hands`` hands), the deal passing left."""
        n = self.env.num_players
        if hands is not None and (isinstance(hands, bool) or int(hands) < 1):
            raise ValueError(f"hands must be a positive integer, got {hands}")
        if not 0 <= int(dealer) < n:
            raise ValueError(f"dealer must be 0..{n - 1}, got {dealer}")
        played = 0
        scores = tuple([0] * self.teams)
        state = self._init(jax.random.fold_in(self.key, 0), jnp.int32(dealer))
        try:
            while True:
                key = jax.random.fold_in(self.key, played)
                if played:
                    state = self._next(key, state)
                cap = f" of {hands}" if hands else ""
                self.say(
                    f"\n=== Hand {played + 1}{cap} · {self.name(int(state.dealer))} dealt · "
                    f"game to {self.rules.goal}: {self._scores_text(scores)} ==="
                )
                state = self.play_hand(state, jax.random.fold_in(key, 1))
                v = self.view(state)
                played += 1
                scores = v.scores
                if v.game_over:
                    w = v.game_winner
                    verb = "win" if self.human % self.teams == w else "wins"
                    self.say(
                        f"Game over: {self.team_name(w)} {verb} ({self._scores_text(scores)})."
                    )
                    return FamilyOutcome(scores, played, True, w, False)
                if hands is not None and played >= int(hands):
                    self.say(f"Stopping after {played} hand{'s' if played != 1 else ''}.")
                    return FamilyOutcome(scores, played, False, -1, False)
        except Quit:
            self.say("\nYou left the table.")
            if played:
                self.say(f"Scores after {played} hands: {self._scores_text(scores)}.")
            return FamilyOutcome(scores, played, False, -1, True)

    def _scores_text(self, scores: tuple[int, ...]) -> str:
        return ", ".join(f"{self.team_name(t)} {s}" for t, s in enumerate(scores))

    # -- a hand
    def play_hand(self, state: State, key: jax.Array) -> State:
        """Play one hand from ``state`` to its end; returns the final state."""
        v = self.view(state)
        if self.rules.auction:
            self.say("Auction: bid 15, 20, 25 or 30 (or pass); the winner names trump.")
        else:
            self.say(f"Turn-up {ctext(v.turnup)}: {SUIT_NAMES[v.trump]} are trumps.")
        drawn_from: tuple[int, ...] = ()
        while not v.terminated:
            if v.current == self.human:
                if v.phase == PHASE_DISCARD and not drawn_from:
                    drawn_from = v.hands[self.human]
                action = self.ask(v, state)
            else:
                k = jax.random.fold_in(key, int(state._step_count))
                action = self.bot_action(k, state)
                if action not in v.legal:
                    raise RuntimeError(f"bot at seat {v.current} chose illegal action {action}")
            self._announce(v, action)
            state = self._step(state, jnp.int32(action))
            after = self.view(state)
            if v.phase == PHASE_DISCARD and action == PASS and v.current == self.human:
                new = [c for c in after.hands[self.human] if c not in drawn_from]
                if new:
                    self.say(f"You draw {_cards(new)}.")
            if v.phase == PHASE_TRUMP:
                self.say(f"Trumps are {SUIT_NAMES[after.trump]}.")
            if after.trick_num > v.trick_num:
                self._trick_won(after)
            v = after
        self._hand_over(v)
        return state

    def _announce(self, v: _View, action: int) -> None:
        who = self.name(v.current).capitalize()
        you = v.current == self.human

        def verb(word: str) -> str:
            return word if you else (word + "es" if word.endswith("s") else word + "s")

        if v.phase == PHASE_JOKER:
            hidden = ctext(action) if you else "a card"
            self.say(f"{who} {verb('take')} the turned-up joker and {verb('discard')} {hidden}.")
        elif v.phase == PHASE_ROB:
            self.announce_rob(who, you, action == PASS, action, v.turnup)
        elif v.phase == PHASE_BID:
            if action == PASS:
                self.say(f"{who} {verb('pass')}.")
            elif action == HOLD:
                self.say(f"{who} {verb('hold')} at {v.bid}.")
            else:
                self.say(f"{who} {verb('bid')} {BID_VALUES[action - BID_15]}.")
        elif v.phase == PHASE_TRUMP:
            self.say(f"{who} {verb('name')} {SUIT_NAMES[action - NAME_CLUBS]}.")
        elif v.phase == PHASE_DISCARD:
            if action == PASS:
                if not you:
                    self.say(f"{who} has drawn back to five.")
            elif you:
                self.say(f"You discard {ctext(action)}.")
            else:
                self.say(f"{who} discards a card.")
        elif v.phase == PHASE_ANNOUNCE:
            if action == JINK:
                self.say(f"{who} {verb('announce')} a jink: all five tricks!")
        else:
            leads = v.current == v.leader
            self.say(f"{who} {verb('lead') if leads else verb('play')} {ctext(action)}.")

    def _team_tricks(self, v: _View) -> list[int]:
        out = [0] * self.teams
        for s, t in enumerate(v.tricks_won):
            out[s % self.teams] += t
        return out

    def _tricks_text(self, v: _View) -> str:
        per = self._team_tricks(v)
        return ", ".join(f"{self.team_name(t)} {k} ({5 * k} pts)" for t, k in enumerate(per))

    def _trick_won(self, v: _View) -> None:
        w = v.best_seat
        self.say(
            f"Trick {v.trick_num}: {self.name(w)} {'win' if w == self.human else 'wins'} with "
            f"{ctext(v.trick_cards[w])}. Tricks: {self._tricks_text(v)}."
        )

    def _hand_over(self, v: _View) -> None:
        per = self._team_tricks(v)
        parts = []
        for t, pts in enumerate(v.hand_points):
            parts.append(
                f"{self.team_name(t)} {per[t]} trick{'s' if per[t] != 1 else ''}, {pts:+d}"
            )
        self.say(f"Hand over: {'; '.join(parts)} points.")
        failed = False
        if v.jinker >= 0:
            who = self.name(v.jinker).capitalize()
            if per[v.jinker % self.teams] == 5:
                self.say(f"{who} made the jink: all five tricks, the points doubled.")
            else:
                failed = True
                self.say(f"{who} announced a jink and lost a trick: that team loses the game.")
        elif self.rules.jink == "wins_game" and 5 in per:
            self.say(f"{self.team_name(per.index(5))} took all five tricks: the game is won.")
        if self.rules.bonus and v.best_trump_seat >= 0 and not failed:
            self.say(f"Best trump: {self.name(v.best_trump_seat)} (5 points to the team).")
        if self.rules.auction and v.bidder >= 0:
            t = v.bidder % self.teams
            made = 5 * per[t] + (5 if v.best_trump_seat % self.teams == t else 0)
            result = "made it" if made >= v.bid else f"set back {v.bid}"
            self.say(f"{self.name(v.bidder).capitalize()} bid {v.bid} and made {made}: {result}.")
        self.say(f"Scores: {self._scores_text(v.scores)} (game to {self.rules.goal}).")

    # -- the human's decision
    def options(self, v: _View) -> list[tuple[int, str]]:
        """The legal moves of the seat to act, in the order they are offered."""
        hand = v.hands[v.current]
        cards = [c for c in hand if c in v.legal]
        if v.phase in (PHASE_ROB, PHASE_JOKER, PHASE_DISCARD):
            out = [(c, f"discard {ctext(c)}") for c in cards]
            if PASS in v.legal:
                out.append((PASS, "done" if v.phase == PHASE_DISCARD else "pass"))
            return out
        if v.phase == PHASE_BID:
            out = [(a, f"bid {BID_VALUES[a - BID_15]}") for a in range(BID_15, BID_30 + 1)]
            out = [o for o in out if o[0] in v.legal]
            if HOLD in v.legal:
                out.append((HOLD, f"hold at {v.bid}"))
            if PASS in v.legal:
                out.append((PASS, "pass"))
            return out
        if v.phase == PHASE_TRUMP:
            return [(NAME_CLUBS + i, SUIT_NAMES[i]) for i in range(4)]
        if v.phase == PHASE_ANNOUNCE:
            return [(JINK, "jink (all five tricks)"), (PASS, "pass")]
        return [(c, ctext(c)) for c in cards]

    def table_lines(self, v: _View) -> list[str]:
        me = self.human
        lines = [f"Your hand: {_cards(v.hands[me])}"]
        if self.rules.auction:
            if v.trump >= 0:
                t = f"Trumps: {SUIT_NAMES[v.trump]} {_SUIT_SYMBOLS[v.trump]}"
                lines.append(f"{t}, named by {self.name(v.bidder)} (bid {v.bid}).")
            elif v.bid:
                lines.append(f"Standing bid: {v.bid} by {self.name(v.bidder)}.")
            else:
                lines.append("No bid yet.")
            out = [self.name(s) for s in range(v.n) if v.passed[s]]
            if v.phase == PHASE_BID and out:
                lines.append(f"Passed: {', '.join(out)}.")
        else:
            suit = SUIT_NAMES[v.trump]
            lines.append(f"Turn-up {ctext(v.turnup)}: trumps {suit} {_SUIT_SYMBOLS[v.trump]}.")
        lines += seat_table(v, me, self.teams)
        if v.phase == PHASE_PLAY:
            trick = trick_line(v, me) or f"Trick {v.trick_num + 1}: (you lead)"
            lines.append(trick)
            lines.append(f"Tricks: {self._tricks_text(v)}.")
        if v.jinker >= 0:
            lines.append(f"{self.name(v.jinker).capitalize()} announced a jink.")
        lines.append(f"Game to {self.rules.goal}: {self._scores_text(v.scores)}.")
        return lines

    def _question(self, v: _View) -> str:
        if v.phase == PHASE_JOKER:
            return "The joker was turned up: you take it. Which card do you discard?"
        if v.phase == PHASE_ROB:
            must = "must" if PASS not in v.legal else "may"
            return (
                f"Rob? You {must} take the turn-up {ctext(v.turnup)} and discard a card face "
                f"down. Which card do you discard{'' if must == 'must' else ', or pass'}?"
            )
        if v.phase == PHASE_BID:
            return "Your bid:"
        if v.phase == PHASE_TRUMP:
            return f"You won the auction at {v.bid}: name trumps."
        if v.phase == PHASE_DISCARD:
            return f"Discard a card to draw a new one ({v.stock_left} left in the stock), or done:"
        if v.phase == PHASE_ANNOUNCE:
            return "Announce a jink (your team takes all five tricks), or pass?"
        if v.current == v.leader:
            return f"Your lead to trick {v.trick_num + 1}:"
        return f"Your play to trick {v.trick_num + 1}:"

    def ask(self, v: _View, state: State | None = None) -> int:
        """Ask the human for a legal action (refusing others with the reason)."""
        options = self.options(v)
        self.say()
        self.say("\n".join(self.table_lines(v)))
        self.say(self._question(v))
        return prompt_action(
            self.input,
            self.output,
            options,
            _HELP,
            lambda text: self.parse(text, v, options),
            v.legal,
            lambda action: self.explain(v, action),
            hint=None if state is None else (lambda: self.hint(state)),
        )

    def hint(self, state: State) -> str:
        """The analysis of the human's legal moves, best first (``hint`` or ``?``)."""
        key = jax.random.fold_in(self.key, 1 << 20 | int(state._step_count))
        return hint_text(self.env, state, key, self.hint_samples)

    def parse(self, text: str, v: _View, options: list[tuple[int, str]]) -> int:
        low = text.lower().strip()
        for word in ("bid ", "play ", "discard ", "rob ", "name "):
            if low.startswith(word):
                low = low[len(word) :].strip()
        if low.isdigit() and int(low) in BID_VALUES and (len(options) < 15 or v.phase == PHASE_BID):
            return BID_15 + BID_VALUES.index(int(low))
        if low.isdigit():
            i = int(low)
            if not 1 <= i <= len(options):
                raise ValueError(f"choose a number from 1 to {len(options)}")
            return options[i - 1][0]
        named = {"pass": PASS, "done": PASS, "no": PASS, "hold": HOLD, "jink": JINK}
        if low in named:
            return named[low]
        for i, name in enumerate(SUIT_NAMES):
            if low in (name, name[:-1], _SUIT_SYMBOLS[i]) or (
                v.phase == PHASE_TRUMP and low == name[0]
            ):
                return NAME_CLUBS + i
        try:
            return card_id(low)
        except ValueError:
            raise ValueError(
                f"not a card or a move: {text!r}; type a number from the list, a card such as "
                "5H, a bid, pass, hold, a suit, done, jink, ? or q"
            ) from None

    # -- refusals
    def explain(self, v: _View, action: int) -> str:
        """Why ``action`` is not a legal choice for the seat to act."""
        hand = v.hands[v.current]
        is_card = 0 <= action <= JOKER
        if v.phase == PHASE_BID:
            return self._explain_bid(v, action)
        if v.phase == PHASE_TRUMP:
            return f"you won the auction at {v.bid}: name a trump suit (clubs, diamonds, ...)"
        if v.phase == PHASE_ANNOUNCE:
            return "answer jink (your team takes all five tricks) or pass"
        if action == JOKER and not self.rules.joker:  # as ``spoilfive score`` says it
            return "the joker (JK) is not in play: add --joker"
        if is_card and action not in hand:
            return f"you do not hold {ctext(action)}; you hold {_cards(hand)}"
        if v.phase in (PHASE_ROB, PHASE_JOKER):
            if action == PASS:
                return "you must take the card: name a card to discard"
            return "discard a card from your hand" + ("" if PASS not in v.legal else ", or pass")
        if v.phase == PHASE_DISCARD:
            if is_card:
                return "the stock is used up: type done"
            return "discard a card, or type done to draw back to five"
        if not is_card:
            return "play a card"
        cards = [c for c in hand if c in v.legal]
        st = self.strength(v.trump)
        if 0 <= v.led_class < TRUMP_CLASS:
            suit = SUIT_NAMES[v.led_class]
            if self.rules.follow == "seed":
                return f"you must follow {suit} or trump: you may play {_cards(cards)}"
            return f"you hold {suit}, so you must follow {suit} or trump: {_cards(cards)}"
        if v.led_class == TRUMP_CLASS:
            led = v.trick_cards[v.leader]
            tops = set(game.top_trump_strengths(self.rules).values())
            forced = [
                c for c in hand if st[c] >= 0 and not (st[c] in tops and st[c] > v.renege_level)
            ]
            lost = [c for c in forced if st[c] in tops]
            why = ""
            if lost:
                where = {
                    "led": f"{ctext(led)}, the trump led, outranks it",
                    "trick": "a higher trump has been played in this trick",
                    "deal": "a higher trump has already been played this deal",
                }[self.rules.renege]
                rule = f"renege={self.rules.renege}"
                why = f"; your {_cards(lost)} may not be withheld: {where} ({rule})"
            return (
                f"a trump ({ctext(led)}) was led and you hold {_cards(forced)}: play a trump"
                f"{why}; you may play {_cards(cards)}"
            )
        return f"{ctext(action)} is not allowed now; you may play {_cards(cards)}"

    def _explain_bid(self, v: _View, action: int) -> str:
        dealer = v.current == v.dealer
        lowest = 15
        if self.rules.min_bid_at_100 and v.scores[v.current % self.teams] >= MIN_BID_SCORE:
            lowest = 20
        if action == PASS:
            return f"everybody else passed: as dealer you must bid {lowest}"
        if action == HOLD:
            if not dealer:
                return "only the dealer may hold"
            if v.bid == 0:
                return "there is no bid to hold"
            if v.bidder == v.current:
                return "you already hold the bid"
            return f"your team has {MIN_BID_SCORE} or more: it may not hold below {lowest}"
        if BID_15 <= action <= BID_30:
            value = BID_VALUES[action - BID_15]
            if value < lowest:
                return f"your team has {MIN_BID_SCORE} or more points: bid at least {lowest}"
            if dealer and v.bid == 0:
                return f"everybody else passed: as dealer you must bid {lowest}"
            hold = " (or hold)" if HOLD in v.legal else ""
            return f"a bid must be higher than the standing bid of {v.bid}{hold}"
        return "bid 15, 20, 25 or 30, hold (the dealer) or pass"


def play_family(
    env: FortyFive,
    input: TextIO,
    output: TextIO,
    *,
    human: int = 0,
    bots: Any = "greedy",
    hands: int | None = None,
    dealer: int = 0,
    seed: int = 0,
) -> FamilyOutcome:
    """Play a game (or ``hands`` hands) in the terminal; see ``FamilyGame``."""
    return FamilyGame(env, input, output, human=human, bots=bots, seed=seed).play_game(
        hands, dealer
    )
