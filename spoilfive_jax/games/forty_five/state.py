"""The state of one hand of the Forty-Five family and its static facts: action ids, phases,
the ``State`` pytree (field shapes documented), and sizes that depend only on the table and the
rules.  The rules of play are in ``game``; the scoring of a hand and a game in ``scoring``.
(What the reward fields hold: see ``game``.)
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np

from spoilfive_jax.core import bits, tricks
from spoilfive_jax.core.bits import Bits
from spoilfive_jax.core.state import StateBase, pytree_dataclass
from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams

# --------------------------------------------------------------------------- actions
# 0..51: a card (play it; in the joker, rob and discard decisions: discard it).  52: the joker.
JOKER = 52
NUM_CARD_IDS = 53
PASS = 53  # decline the rob, pass in the auction, end discarding, decline to announce a jink
DONE = PASS  # discard phase: stop discarding and draw back to five
NO_JINK = PASS  # jink announcement: do not announce
BID_15, BID_20, BID_25, BID_30 = 54, 55, 56, 57
BID_VALUES = (15, 20, 25, 30)
HOLD = 58  # the dealer takes the standing bid at the same value
NAME_CLUBS, NAME_DIAMONDS, NAME_HEARTS, NAME_SPADES = 59, 60, 61, 62  # the bid winner names trump
JINK = 63  # announce that my team will take all five tricks
NUM_ACTIONS = 64

# --------------------------------------------------------------------------- phases
PHASE_JOKER, PHASE_ROB, PHASE_BID, PHASE_TRUMP = 0, 1, 2, 3
PHASE_DISCARD, PHASE_ANNOUNCE, PHASE_PLAY, PHASE_DONE = 4, 5, 6, 7
PHASE_NAMES = ("joker", "rob", "bid", "trump", "discard", "announce", "play", "done")

TRUMP_CLASS = tricks.TRUMP_CLASS  # ``led_class`` of a trump lead (the joker included)
NO_CARD = -1
NUM_TRICKS = 5
POINTS_PER_TRICK = 5
_BIG = 1 << 20

# Trump strengths.  Without the joker: core strengths (5 = 13, J = 12, A♥ = 11, ace 10, ...).
# With the joker every strength from ``joker_strength`` up moves one step up to make room.
_JOKER_STRENGTH = {"below_AH": 11, "above_AH": 12}

_JOKER_SET = bits.const([JOKER])
_ALL_ACTIONS = bits.const(range(NUM_ACTIONS))
_NAME_SET = bits.const(range(NAME_CLUBS, NAME_SPADES + 1))
_ANNOUNCE_SET = bits.const([JINK, PASS])
_PASS_SET = bits.const([PASS])


def _hi_bit(action: int) -> np.uint32:
    assert 32 <= action < 64
    return np.uint32(1 << (action - 32))


@pytree_dataclass
@dataclasses.dataclass(frozen=True)
class State(StateBase):
    """One hand of a Forty-Five game; batch it with ``jax.vmap`` (every field gains [B]).

    N = num_players, T = num_teams(N), S = the auction stock (53 or 52 - 5N; 0 outside
    Auction).  Bitset fields are ``Bits(lo, hi)`` pairs of uint32 arrays.
    """

    current_player: jax.Array  # int32[]: seat to act; -1 once terminated
    terminated: jax.Array  # bool[]: the hand is over (``game_over`` says if the game is)
    truncated: jax.Array  # bool[]: always False (a hand ends within ``max_decisions``)
    rewards: jax.Array  # float32[N]: the hand's points for each seat's team, on its last step
    game_rewards: jax.Array  # float32[N]: +1 winners / -1 others, on the game's last step
    tricks_won: jax.Array  # int32[N]
    hands: Bits  # uint32[N] x 2: cards held by each seat
    legal_set: Bits  # uint32[] x 2: legal actions of current_player (all 64 once terminated)
    phase: jax.Array  # int32[]: PHASE_*
    dealer: jax.Array  # int32[]
    turnup: jax.Array  # int32[]: the trump-deciding turn-up, -1 in Auction
    joker_up: jax.Array  # bool[]: the joker was turned up (and goes to the dealer)
    trump: jax.Array  # int32[]: trump suit 0..3; -1 until named in Auction
    robber: jax.Array  # int32[]: seat entitled to rob, -1 if nobody (or not known yet)
    robbed: jax.Array  # bool[]: the robber took the turn-up (public)
    discards: Bits  # uint32[N] x 2: cards each seat laid away face down (HIDDEN from others)
    leader: jax.Array  # int32[]: seat that leads (or led) the current trick
    trick_cards: jax.Array  # int32[N]: card each seat played to the current trick, -1 if none;
    #   until the leader leads again it still shows the last completed trick
    led_class: jax.Array  # int32[]: suit led 0..3, 4 for a trump lead, -1 before the first lead
    best_power: jax.Array  # int32[]: trick power of the card winning the trick
    best_seat: jax.Array  # int32[]: seat winning the current (or last) trick
    renege_level: jax.Array  # int32[]: a top trump may be withheld only if stronger than this
    played: Bits  # uint32[] x 2: cards played to tricks so far
    cannot_hold: Bits  # uint32[N] x 2: PUBLIC information-state record: cards each seat has
    #   shown it does not hold (a play that would have been illegal had it held any of them);
    #   ``core.tricks.revealed_void``
    trick_num: jax.Array  # int32[]: tricks completed, 0..5
    trick_plays: jax.Array  # int8[5, N]: PUBLIC record of the card each seat played to each
    #   trick, -1 where it has not (yet): who played what, for inference over the play
    best_trump: jax.Array  # int32[]: strength of the highest trump played this hand, -1 if none
    best_trump_seat: jax.Array  # int32[]: seat that played it, -1 if none
    jinker: jax.Array  # int32[]: seat that announced a jink, -1 if none
    bid: jax.Array  # int32[]: standing (then winning) bid, 0 if none (Auction)
    bidder: jax.Array  # int32[]: seat holding the bid, -1 if none
    passed: jax.Array  # bool[N]: seats out of the auction
    stock: jax.Array  # int32[S]: the undealt cards, top first (HIDDEN; Auction draws from it)
    stock_top: jax.Array  # int32[]: cards drawn from ``stock`` so far
    pending: jax.Array  # int32[]: cards the seat discarding has laid away, drawn on DONE
    drawn: Bits  # uint32[N] x 2: the cards each seat drew from the stock (HIDDEN; Auction)
    moves: jax.Array  # int32[T]: PUBLIC record of every decision in order (``core.record``)
    scores: jax.Array  # int32[T]: game scores (before this hand; after it once terminated)
    hand_points: jax.Array  # int32[T]: the hand's points per team once it is over, else 0
    game_over: jax.Array  # bool[]: this hand ended the game
    game_winner: jax.Array  # int32[]: the winning team once ``game_over``, else -1
    illegal: jax.Array  # bool[]: the hand ended on an illegal action
    _step_count: jax.Array  # int32[]: decisions taken this hand
    #: the hand's rules: static pytree metadata (no array, no cost under jit/vmap); lets
    #: ``observe`` normalise the scores by the game's target
    rules: FortyFiveRules = dataclasses.field(
        default_factory=FortyFiveRules, metadata={"static": True}
    )

    @property
    def legal_action_mask(self) -> jax.Array:
        """bool[64]: legal actions of ``current_player`` (all True once terminated, as pgx)."""
        return bits.to_bool(self.legal_set, NUM_ACTIONS)

    @property
    def num_players(self) -> int:
        return int(self.tricks_won.shape[-1])


# --------------------------------------------------------------------------- static helpers


def stock_size(num_players: int, rules: FortyFiveRules) -> int:
    """Length of ``State.stock``: the undealt cards in Auction, 0 otherwise."""
    return rules.deck_size - 5 * num_players if rules.auction else 0


def deck_prefix(num_players: int, rules: FortyFiveRules) -> int:
    """How many cards of a deck a deal reads: the whole deck in Auction, else 5N + 1 (+1 for the
    card turned up after the joker)."""
    if rules.auction:
        return rules.deck_size
    return 5 * num_players + 1 + int(rules.joker)


def max_decisions(num_players: int, rules: FortyFiveRules) -> int:
    """The most decisions one hand can take.

    Turn-up games: a joker exchange, a rob, N announcements, 5N plays.  Auction: at most N - 1
    passes, 4 rising bids and 4 holds, naming trump, 6 discard decisions a seat, 5N plays.
    """
    n = num_players
    if rules.auction:
        return (n - 1 + 8) + 1 + 6 * n + 5 * n
    return int(rules.joker) + int(rules.robbing) + (n if rules.jink == "announced" else 0) + 5 * n


def team_matrix(num_players: int) -> np.ndarray:
    """bool[T, N]: seat s plays for team t (``s % T == t``)."""
    t = num_teams(num_players)
    return np.arange(num_players)[None, :] % t == np.arange(t)[:, None]


def team_of(num_players: int) -> np.ndarray:
    """int32[N]: the team of each seat."""
    return (np.arange(num_players) % num_teams(num_players)).astype(np.int32)


def top_trump_strengths(rules: FortyFiveRules) -> dict[str, int]:
    """Strengths of the cards with the reneging privilege (5, J of trumps, A♥, the joker)."""
    if not rules.joker:
        return {"five": 13, "jack": 12, "ace_hearts": 11}
    k = _JOKER_STRENGTH[rules.joker_rank]
    return {"five": 14, "jack": 13, "ace_hearts": 11 if k == 12 else 12, "joker": k}
