"""Scoring in the Forty-Five family: the points of a finished hand by team, the end of a game
(targets, tie-breaks, jinks that win or lose the game) and the finishing of a hand's state."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from spoilfive_jax.games.forty_five.rules import FortyFiveRules, num_teams
from spoilfive_jax.games.forty_five.state import (
    _BIG,
    NUM_TRICKS,
    PHASE_DONE,
    POINTS_PER_TRICK,
    State,
    team_matrix,
    team_of,
)


def team_totals(per_seat: jax.Array, num_players: int) -> jax.Array:
    """int32[..., T]: a per-seat vector [..., N] summed by team."""
    on_team = team_matrix(num_players)  # bool[T, N]
    return jnp.where(on_team, per_seat[..., None, :], 0).sum(-1).astype(jnp.int32)


def hand_points(state: State, jink_failed: jax.Array, rules: FortyFiveRules) -> jax.Array:
    """int32[T]: the points each team scores for a hand that is over (``jink_failed``: an
    announced jink lost a trick).

    ``tricks_won``, ``best_trump_seat``, ``jinker``, ``bid``/``bidder`` must be final.
    """
    n = state.tricks_won.shape[0]
    t = num_teams(n)
    best, jinker = state.best_trump_seat, state.jinker
    return team_points(
        team_totals(state.tricks_won, n),
        jnp.where(best >= 0, best % t, -1),
        jnp.where(jinker >= 0, jinker % t, -1),
        jink_failed,
        state.bid,
        state.bidder % t,
        rules,
    )


def team_points(
    team_tricks: jax.Array,
    best_team: jax.Array,
    jinker_team: jax.Array,
    jink_failed: jax.Array,
    bid: jax.Array,
    bidder_team: jax.Array,
    rules: FortyFiveRules,
) -> jax.Array:
    """int32[..., T]: each team's points for a hand whose five tricks are over, from its tricks
    ``team_tricks`` int32[..., T] (docs/rules.md#scoring): 5 a trick and 5 for the team of the
    best trump played (``best_team``; -1: no trump was played), or Hoyle's 10 for all five
    tricks and 5 for three or four; an announced jink doubles its team's points
    (``jinker_team``, -1: none), and one that failed (``jink_failed`` bool[...]: its team lost
    a trick) scores nothing for anybody;
    in Auction the bidding team (``bidder_team``) scores its points if they reach ``bid``
    (twice them for a bid of 30), else minus the bid.  The public step (``hand_points``) and
    the kernel (``fast_play.outcome``) score through this, one hand or a batch [...]."""
    t = team_tricks.shape[-1]
    teams = jnp.arange(t)
    if rules.scoring == "hoyle":
        pts = jnp.where(team_tricks == NUM_TRICKS, 10, jnp.where(team_tricks >= 3, 5, 0))
    else:
        pts = POINTS_PER_TRICK * team_tricks
        if rules.bonus:
            bonus = teams == jnp.asarray(best_team)[..., None]
            pts = pts + jnp.where(bonus, POINTS_PER_TRICK, 0)
    if rules.jink == "announced":  # (never in Auction: its rules refuse jinks)
        mine = teams == jnp.asarray(jinker_team)[..., None]
        failed = jnp.asarray(jink_failed)[..., None]
        pts = jnp.where(failed, 0, jnp.where(mine, 2 * pts, pts))
    if rules.auction:
        bid = jnp.asarray(bid)
        on_bid = teams == jnp.asarray(bidder_team)[..., None]
        made = jnp.where(on_bid, pts, 0).sum(-1)
        scored = jnp.where(made >= bid, jnp.where(bid == 30, 2 * made, made), -bid)
        pts = jnp.where(on_bid, scored[..., None], pts)
    return pts.astype(jnp.int32)


def counting_rank(dealer: jax.Array, num_players: int) -> jax.Array:
    """int32[T]: the order in which teams are counted: from the eldest hand clockwise (0 first)."""
    n = num_players
    seat_rank = (jnp.arange(n) - (dealer + 1)) % n
    return jnp.where(team_matrix(n), seat_rank[None, :], n).min(1).astype(jnp.int32)


def game_result(
    scores: jax.Array,
    dealer: jax.Array,
    bidder: jax.Array,
    loser: jax.Array,
    slam: jax.Array,
    num_players: int,
    rules: FortyFiveRules,
) -> tuple[jax.Array, jax.Array]:
    """(game_over, winning team or -1) after a hand, from the new ``scores`` int32[T].

    bidder: the Auction bidder's seat (-1 outside Auction); loser: the team of a failed jink
    announcement (-1 if none); slam: the team that took all five tricks under
    ``jink="wins_game"`` (-1 if none).
    """
    t = num_teams(num_players)
    teams = jnp.arange(t)
    rank = counting_rank(dealer, num_players)
    reached = scores >= rules.goal
    if rules.tie_break == "higher_total":
        top = jnp.where(reached, scores, -_BIG).max()
        eligible = reached & (scores == top)
    else:
        eligible = reached
    winner = jnp.argmin(jnp.where(eligible, rank, _BIG)).astype(jnp.int32)
    if rules.auction:
        bid_team = bidder % t
        winner = jnp.where((bidder >= 0) & reached[bid_team], bid_team, winner)
    over = reached.any()
    # A failed jink: among the other teams the highest total wins (first counted on a tie).
    others = teams != loser
    top_other = jnp.where(others, scores, -_BIG).max()
    best_other = jnp.argmin(jnp.where(others & (scores == top_other), rank, _BIG))
    winner = jnp.where(loser >= 0, best_other.astype(jnp.int32), winner)
    winner = jnp.where(slam >= 0, slam, winner)
    over = over | (loser >= 0) | (slam >= 0)
    return over, jnp.where(over, winner, -1).astype(jnp.int32)


def _finish(
    state: State, points: jax.Array, loser: jax.Array, slam: jax.Array, rules: FortyFiveRules
) -> State:
    """The hand is over: score ``points`` int32[T], settle the game, set the rewards."""
    n = state.tricks_won.shape[0]
    scores = state.scores + points
    over, winner = game_result(scores, state.dealer, state.bidder, loser, slam, n, rules)
    team = team_of(n)
    game_rewards = jnp.where(team == winner, 1.0, -1.0)
    return state.replace(
        current_player=jnp.int32(-1),
        terminated=jnp.bool_(True),
        rewards=points[team].astype(jnp.float32),
        game_rewards=jnp.where(over, game_rewards, 0.0).astype(jnp.float32),
        phase=jnp.int32(PHASE_DONE),
        scores=scores,
        hand_points=points,
        game_over=over,
        game_winner=winner,
    )
