"""What both games' terminal play shares: reading a legal choice from a text stream
(``prompt_action``, with the ``hint`` analysis of the moves), leaving the table (``Quit``) and
compiling a bot policy once."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any, TextIO

import jax

from spoilfive_jax.core.cards import card_symbol
from spoilfive_jax.core.present import seat_name

if TYPE_CHECKING:  # (types only)
    from spoilfive_jax.core.env import HandState

Policy = Callable[..., jax.Array]


class Quit(Exception):
    """The human left the table (``q`` or the end of the input)."""


def prompt_action(
    input: TextIO,
    output: TextIO,
    options: list[tuple[int, str]],
    help_text: str,
    parse: Callable[[str], int],
    legal: Collection[int],
    explain: Callable[[int], str],
    hint: Callable[[], str] | None = None,
    numbers: Sequence[int] | None = None,
) -> int:
    """Show the numbered ``options`` and read lines until one names a legal action: ``q`` or
    the end of the input raises ``Quit``, ``hint`` or ``?`` shows ``hint()`` (the analysis of
    the legal moves, best first; ``help_text`` when there is no hint), ``h`` or ``help`` shows
    ``help_text``, text ``parse`` refuses (``ValueError``) and illegal actions (with
    ``explain``'s reason) are answered, then asked again.  Shared by the Spoil Five and
    Forty-Five play loops.  ``numbers``: the number shown beside each option (default 1, 2,
    ...), for a menu whose numbers ``parse`` reads otherwise (Oh Hell's bids: the number typed
    is the bid, so each bid is shown under its own number)."""

    def say(text: str) -> None:
        output.write(text + "\n")
        output.flush()

    shown = list(numbers) if numbers is not None else list(range(1, len(options) + 1))
    menu = "  ".join(f"[{i}] {label}" for i, (_, label) in zip(shown, options, strict=True))
    say(menu)
    while True:
        output.write("> ")
        output.flush()
        line = input.readline()
        if not line:
            raise Quit
        text = line.strip()
        low = text.lower()
        if not text:
            continue
        if low in ("q", "quit", "exit"):
            raise Quit
        if low in ("?", "hint") and hint is not None:
            say("Thinking...")
            say(hint())
            say(menu)
            continue
        if low in ("?", "h", "help"):
            say(help_text)
            say(menu)
            continue
        try:
            action = parse(text)
        except ValueError as e:
            say(f"  {e}")
            continue
        if action in legal:
            return action
        say(f"  Not allowed: {explain(action)}.")


def jit_policy(policy: Policy) -> Callable[..., jax.Array]:
    """``jit(policy)``, compiled once per policy (an unhashable one is compiled each time)."""
    try:
        return _cached_jit(policy)
    except TypeError:
        return jax.jit(policy)


@functools.cache
def _cached_jit(policy: Policy) -> Callable[..., jax.Array]:
    return jax.jit(policy)


class TerminalTable:
    """What every game's terminal table shares: the human's seat (validated), the text streams,
    the random key, the bots' compiled policy (a built-in name or a jittable policy), and the
    output helpers.  Each game's play module subclasses it with its own loop."""

    def __init__(
        self, env: Any, input: TextIO, output: TextIO, human: int, bots: Any, seed: int
    ) -> None:
        n = env.num_players
        if isinstance(human, bool) or not 0 <= int(human) < n:
            raise ValueError(f"seat must be 0..{n - 1} for {n} players, got {human}")
        self.env = env
        self.rules = env.rules
        self.human = int(human)
        self.input = input
        self.output = output
        self.key = jax.random.PRNGKey(seed)
        self._bot = jit_policy(env.builtin_policy(bots) if isinstance(bots, str) else bots)

    def bot_action(self, key: jax.Array, state: HandState) -> int:
        """The bots' action at ``state`` for the seat to act (host int), drawn with ``key``."""
        return int(self._bot(key, state, state.current_player))

    def say(self, text: str = "") -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def name(self, seat: int) -> str:
        return seat_name(seat, self.human)

    def announce_rob(self, who: str, you: bool, passed: bool, action: int, turnup: int) -> None:
        """Says a rob decision of ``who`` (``you``: the human): declined (``passed``), or the
        turn-up ``turnup`` taken for the discard ``action`` (shown only to the human)."""
        if passed:
            self.say(f"{who} {'decline' if you else 'declines'} to rob.")
        else:
            hidden = card_symbol(action) if you else "a card"
            self.say(
                f"{who} {'rob' if you else 'robs'}: {'take' if you else 'takes'} the "
                f"turn-up {card_symbol(turnup)} and {'discard' if you else 'discards'} "
                f"{hidden} face down."
            )
