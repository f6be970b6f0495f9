"""Auction Forty-Fives (docs/rules.md#the-forty-five-family): the bidding (holds, the dealer held
to 15, the 100-point rule), naming trump, discarding and drawing, set-backs and the made 30, and
the end of a game to 120.  Hand-built deals through ``env.checked_step`` with the reference engine
mirrored.

Four players, dealer 0, so the eldest hand (seat 1) bids first and the order is 1, 2, 3, 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from conftest import Table45, discards_of, texts

from spoilfive_jax.games import forty_five as ff
from spoilfive_jax.games.forty_five import game

AUCTION4 = ff.AuctionFortyFives(4)
BIDS = {"BID15", "BID20", "BID25", "BID30"}

DEAL_A = ["2C 3C 4C 6S 7S", "5H JH AH KH 9C", "KC QC 8S 9S TS", "JC 8C 2S 3S 4S"]
DEAL_30 = ["2C 3C 4C 6S 7S", "5H JH AH KH QH", "KC QC 8S 9S TS", "JC 8C 2S 3S 4S"]


def test_bidding_with_holds():
    t = Table45(AUCTION4, DEAL_A)
    assert t.phase == "bid" and t.player == 1 and t.legal() == BIDS | {"PASS"}
    assert int(t.state.trump) == -1 and int(t.state.turnup) == -1  # no turn-up
    t.act("BID15")
    assert t.player == 2 and t.legal() == {"PASS", "BID20", "BID25", "BID30"}
    t.play("BID20 PASS")  # seat 3 passes: out of the auction
    assert t.player == 0 and t.legal() == {"PASS", "HOLD", "BID25", "BID30"}
    t.act("HOLD")  # the dealer takes the 20 at the same value
    assert int(t.state.bid) == 20 and int(t.state.bidder) == 0
    assert t.player == 1 and t.legal() == {"PASS", "BID25", "BID30"}  # seat 1 may bid again
    t.play("PASS BID25")
    assert t.player == 0 and t.legal() == {"PASS", "HOLD", "BID30"}
    t.act("PASS")  # all but seat 2 have passed: it won the auction at 25
    assert t.phase == "trump" and t.player == 2 and int(t.state.bid) == 25
    assert t.legal() == {"TRUMP_C", "TRUMP_D", "TRUMP_H", "TRUMP_S"}
    t.act("TRUMP_S")
    assert int(t.state.trump) == 3 and t.phase == "discard" and t.player == 1
    t.play("PASS PASS PASS PASS")  # nobody discards: 1, 2, 3, then the dealer
    assert t.phase == "play" and t.player == 3  # the player left of the high bidder leads
    t.finish()


def test_thirty_can_only_be_held():
    t = Table45(AUCTION4, DEAL_A)
    t.play("BID30 PASS PASS")
    assert t.legal() == {"PASS", "HOLD"}
    t.act("HOLD")
    assert t.player == 1 and t.legal() == {"PASS"}  # nothing above 30
    t.act("PASS")
    assert t.phase == "trump" and t.player == 0 and int(t.state.bid) == 30


def test_all_pass_dealer_must_bid_15():
    t = Table45(AUCTION4, DEAL_A)
    t.play("PASS PASS PASS")
    assert t.player == 0 and t.legal() == {"BID15"}  # no passing: the dealer is held to 15
    t.act("BID15")
    assert t.phase == "trump" and t.player == 0 and int(t.state.bid) == 15


def test_team_at_100_may_not_bid_15():
    t = Table45(AUCTION4, DEAL_A, scores=[100, 50])  # team 0 = seats 0 and 2
    assert "BID15" in t.legal()  # seat 1, team 1 at 50
    t.act("PASS")
    assert t.legal() == {"PASS", "BID20", "BID25", "BID30"}  # seat 2, team 0 at 100
    t.play("PASS PASS")
    assert t.legal() == {"BID20"}  # the dealer's forced bid is the lowest it may make
    t = Table45(AUCTION4, DEAL_A, scores=[100, 50])
    t.play("BID15 PASS PASS")
    assert t.legal() == {"PASS", "BID20", "BID25", "BID30"}  # no holding at 15 either


def test_discard_and_draw():
    t = Table45(AUCTION4, DEAL_A, stock="QH 2D 3D")
    t.play("BID15 PASS PASS PASS TRUMP_H")
    assert t.phase == "discard" and t.player == 1
    assert t.legal() == texts(ff.parse_cards(DEAL_A[1])) | {"PASS"}
    t.act("9C")  # laid away face down; drawn for at DONE
    assert t.player == 1 and t.hand(1) == {"5H", "JH", "AH", "KH"}
    t.act("DONE")
    assert t.hand(1) == {"5H", "JH", "AH", "KH", "QH"} and t.player == 2
    t.play("KC QC DONE")
    assert t.hand(2) == {"8S", "9S", "TS", "2D", "3D"}
    assert discards_of(t.state)[1:3] == [{ff.card_id("9C")}, {ff.card_id("KC"), ff.card_id("QC")}]
    assert int(t.state.stock_top) == 3
    t.play("PASS PASS")
    assert t.phase == "play" and t.player == 2  # left of the bidder (seat 1)
    t.finish()
    assert int(t.state.bid) == 15 and int(t.state.bidder) == 1


def test_made_thirty_scores_sixty():
    t = Table45(AUCTION4, DEAL_30)
    t.play("BID30 PASS PASS PASS TRUMP_H PASS PASS PASS PASS")
    assert t.player == 2
    # seat 2 leads KC; seat 3 follows with 8C; seat 0 with 2C; seat 1, void, trumps with QH
    t.play("KC 8C 2C QH")
    # seat 1 draws every trump: nobody else holds one
    t.play("5H QC JC 3C  JH 8S 2S 4C  AH 9S 3S 6S  KH TS 4S 7S")
    assert t.tricks == [0, 5, 0, 0]
    assert t.scores == [0, 60] and t.rewards == [0.0, 60.0, 0.0, 60.0]  # 30 made counts 60


def _set_back_deal(bid: str) -> Table45:
    t = Table45(AUCTION4, DEAL_A)
    t.play(f"{bid} PASS PASS PASS TRUMP_H PASS PASS PASS PASS")
    t.play("KC 8C 2C")
    assert t.legal() == {"9C", "5H", "JH", "AH", "KH"}  # follow clubs or trump
    t.play("9C")  # the KC takes the trick for team 0
    t.play("QC JC 3C KH  5H 8S 2S 4C  JH 9S 3S 6S  AH TS 4S 7S")
    assert t.tricks == [0, 4, 1, 0]
    return t


def test_bidder_set_back():
    t = _set_back_deal("BID30")
    # team 1 made 4 tricks + the 5H = 25 < 30: it loses 30; team 0 scores its trick
    assert t.scores == [5, -30] and t.rewards == [5.0, -30.0, 5.0, -30.0]


def test_bid_made_scores_what_it_made():
    t = _set_back_deal("BID25")
    assert t.scores == [5, 25]


def test_game_to_120():
    t = Table45(AUCTION4, DEAL_30, scores=[100, 90])
    t.play("BID30 PASS PASS PASS TRUMP_H PASS PASS PASS PASS")
    t.play("KC 8C 2C QH  5H QC JC 3C  JH 8S 2S 4C  AH 9S 3S 6S  KH TS 4S 7S")
    assert t.scores == [100, 150] and int(t.state.game_winner) == 1


def test_game_result_rules():
    """``game_result`` directly: several teams past the target in one hand."""

    def result(rules, scores, dealer=0, bidder=-1, loser=-1, slam=-1, n=4):
        args = (jnp.int32(bidder), jnp.int32(loser), jnp.int32(slam))
        over, win = game.game_result(jnp.array(scores), dealer, *args, n, rules)
        return bool(over), int(win)

    auction = ff.FortyFiveRules.auction_forty_fives()
    # the bidder's team (seat 2: team 0) wins when it is among those past 120, even counted
    # second (the eldest, seat 1, is team 1) and with the lower total
    assert result(auction, [125, 130], bidder=2) == (True, 0)
    assert result(auction, [110, 130], bidder=2) == (True, 1)  # bidder short: the other
    assert result(auction, [125, 130], bidder=1) == (True, 1)
    assert result(auction.replace(tie_break="higher_total"), [125, 130], bidder=2) == (True, 0)
    assert result(auction, [119, -40], bidder=2) == (False, -1)
    forty_five = ff.FortyFiveRules()
    assert result(forty_five, [50, 45]) == (True, 1)  # first counted: eldest seat 1's team
    assert result(forty_five, [50, 45], dealer=1) == (True, 0)  # eldest seat 2: team 0
    higher = forty_five.replace(tie_break="higher_total")
    assert result(higher, [50, 45]) == (True, 0)
    assert result(higher, [45, 45]) == (True, 1)  # equal totals: first counted
    # five individuals: a failed jink by seat 3 gives the game to the best of the others
    assert result(forty_five, [10, 20, 20, 40, 0], loser=3, n=5) == (True, 1)
    assert result(forty_five, [10, 20, 20, 40, 0], dealer=1, loser=3, n=5) == (True, 2)
    assert result(forty_five, [0, 0], slam=0) == (True, 0)


def test_stock_runs_out_with_ten_players():
    env = ff.AuctionFortyFives(10)
    deck = list(range(52))
    hands = [" ".join(ff.card_text(c) for c in deck[5 * s : 5 * s + 5]) for s in range(10)]
    t = Table45(env, hands)  # the stock: cards 50 and 51 (QS, KS)
    t.play("BID15 " + "PASS " * 9 + "TRUMP_C")
    assert t.phase == "discard" and t.player == 1
    t.play(hands[1].split()[:2])  # two cards laid away: the stock is spoken for
    assert t.legal() == {"PASS"}
    t.act("DONE")
    assert t.hand(1) >= {"QS", "KS"} and t.player == 2
    assert t.legal() == {"PASS"}  # nothing left to draw: no more discards
    t.play("PASS " * 9)
    assert t.phase == "play" and t.player == 2
    t.finish()
    assert bool(t.state.terminated) and int(np.asarray(t.state.stock_top)) == 2


def test_the_auctions_rules_are_one_function_each_for_both_engines():
    """``legal.bid_codes`` and ``legal.auction_turn`` (the rules the public step and the kernel
    both call) against the rules written out plainly, over every standing bid, bidder, seat,
    lowest bid and set of passed seats at 2 to 6 seats."""
    from spoilfive_jax.games.forty_five import legal

    for n in range(2, 7):
        cases = [
            (bid, bidder, cur, low)
            for bid in range(5)
            for bidder in range(-1, n)
            for cur in range(n)
            for low in (1, 2)
            if (bid == 0) == (bidder < 0)
        ]
        bid, bidder, cur, low = (jnp.asarray(x, jnp.int32) for x in zip(*cases, strict=True))
        got = np.asarray(legal.bid_codes(bid, bidder, cur, jnp.int32(0), low))
        for (b, holder, seat, lowest), codes in zip(cases, got, strict=True):
            forced = b == 0 and seat == 0  # the dealer, everybody else passed
            want = {lowest} if forced else {c for c in range(1, 5) if c > b and c >= lowest}
            if seat == 0 and b > 0 and holder != 0 and b >= lowest:
                want.add(legal.CODE_HOLD)
            if not forced:
                want.add(legal.CODE_PASS)
            assert {c for c in range(6) if codes >> c & 1} == want, (n, b, holder, seat, lowest)
        for passed in range(1 << n):
            for seat in range(n):
                for b in (0, 1):
                    over, following = legal.auction_turn(
                        jnp.int32(passed), jnp.int32(b), jnp.int32(seat), n
                    )
                    left = [s for s in range(n) if not passed >> s & 1]
                    assert bool(over) == (len(left) == 1 and b > 0)
                    if left:  # the next seat round the table still in
                        after = [(seat + k) % n for k in range(1, n + 1)]
                        assert int(following) == next(s for s in after if s in left)


def test_a_seat_draws_the_cards_from_the_top_of_the_stock():
    """``phases.stock_draw`` (the step's draw, read from a window of five cards) against the
    cards ``stock[top : top + count]`` written out, for every top and count that fit, on stocks
    of 2 (ten seats), 21 and 31 cards (four seats): near the stock's end the window moves back."""
    from spoilfive_jax.core import bits
    from spoilfive_jax.games.forty_five import phases

    rng = np.random.default_rng(7)
    for size in (2, 21, 31):
        stock = rng.permutation(52)[:size].astype(np.int32)
        cases = [(t, c) for t in range(size + 1) for c in range(6) if t + c <= size]
        top, count = (jnp.asarray(x, jnp.int32) for x in zip(*cases, strict=True))
        got = jax.vmap(phases.stock_draw, in_axes=(None, 0, 0))(jnp.asarray(stock), top, count)
        for i, (t, c) in enumerate(cases):
            want = bits.const(stock[t : t + c].tolist())
            assert (int(got.lo[i]), int(got.hi[i])) == (want.lo, want.hi), (size, t, c)
