"""``render_text`` / ``render_svg``: what each viewer may see, and SVG that parses.

One hand-built deal with a rob (4 players, dealer seat 3, the A♦ turned up, so the dealer robs
and discards 6♣ face down), played to the middle of trick 1:

- seat 0 (eldest) leads 2♣;
- seat 1 holds clubs (7♣ 8♣) and a trump (A♥): it follows with 7♣;
- seat 2 holds no club but a trump (6♦): under the seed rules it must trump with 6♦.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf

ENV = sf.spoil_five.SpoilFive(4)
DEAL = jax.jit(ENV.init_from_deal)
STEP = jax.jit(ENV.step)
HANDS = ["5H JH 2C 3S 4D", "AH 7C 8C 9S KH", "QH TH 6D 2S AS", "KC QC JC 5C 6C"]
SYMBOL = re.compile(r"(?:10|[A2-9JQK])[♣♦♥♠]")
SVG_NS = "{http://www.w3.org/2000/svg}"


def cards(text: str) -> set[int]:
    return set(sf.parse_cards(text))


def symbols(cards_: set[int]) -> set[str]:
    return {sf.card_symbol(c) for c in cards_}


def play(state: sf.spoil_five.State, *actions: str) -> sf.spoil_five.State:
    for a in actions:
        action = sf.spoil_five.PASS if a == "PASS" else sf.card_id(a)
        assert action in ENV.legal_actions(state), (a, ENV.legal_actions(state))
        state = STEP(state, jnp.int32(action))
    return state


@pytest.fixture(scope="module")
def mid_trick() -> sf.spoil_five.State:
    ids = np.array([sf.parse_cards(h) for h in HANDS], np.int32)
    state = DEAL(ids, jnp.int32(sf.card_id("AD")), jnp.int32(3), jnp.int32(2))
    # The dealer robs: discards 6♣ and takes A♦; then 2♣, 7♣, 6♦ to trick 1.
    return play(state, "6C", "2C", "7C", "6D")


def held(seat: int) -> set[int]:
    """Cards seat ``seat`` holds in ``mid_trick``."""
    return {
        0: cards("5H JH 3S 4D"),
        1: cards("AH 8C 9S KH"),
        2: cards("QH TH 2S AS"),
        3: cards("KC QC JC 5C AD"),
    }[seat]


TRICK = cards("2C 7C 6D")
TURNUP = sf.card_id("AD")
DISCARD = sf.card_id("6C")


def svg_cards(svg: str) -> tuple[list[str], set[str]]:
    """The data-card of every face-up card, and every text shown."""
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    shown = [
        g.attrib["data-card"]
        for g in root.iter(SVG_NS + "g")
        if "card" in g.attrib.get("class", "").split()
    ]
    texts = {t.text or "" for t in root.iter(SVG_NS + "text")}
    return shown, texts


def test_table_view_text_shows_everything(mid_trick: sf.spoil_five.State) -> None:
    text = sf.spoil_five.render_text(mid_trick)
    everything = set().union(*(held(s) for s in range(4))) | TRICK | {TURNUP, DISCARD}
    assert set(SYMBOL.findall(text)) == symbols(everything)
    assert "Rob discard (hidden from the players): 6♣" in text
    assert "turn-up A♦, taken by seat 3 in a rob" in text
    assert "Trick 1 so far (clubs led): seat 0 2♣, seat 1 7♣, seat 2 6♦" in text
    assert "best so far: seat 2" in text  # the trump
    assert "Seat 3 to play to trick 1" in text
    assert "Legal: A♦ K♣ Q♣ J♣ 5♣" in text  # trumps first, then clubs, strongest first
    assert "pot 6 chips (2 carried in)" in text


@pytest.mark.parametrize("seat", range(4))
def test_seat_view_text_hides_other_hands_and_the_discard(
    mid_trick: sf.spoil_five.State, seat: int
) -> None:
    text = sf.spoil_five.render_text(mid_trick, player=seat)
    visible = held(seat) | TRICK | {TURNUP}
    assert set(SYMBOL.findall(text)) <= symbols(visible)
    assert symbols(held(seat)) <= set(SYMBOL.findall(text))
    assert "6♣" not in text and "discard" not in text.lower()
    others = [s for s in range(4) if s != seat]
    for s in others:
        assert f"[{len(held(s))} cards]" in text
    assert ("Legal:" in text) == (seat == 3)


@pytest.mark.parametrize("seat", [None, 0, 3])
def test_svg_parses_and_shows_the_visible_cards(
    mid_trick: sf.spoil_five.State, seat: int | None
) -> None:
    svg = sf.spoil_five.render_svg(mid_trick, player=seat)
    shown, texts = svg_cards(svg)
    hands = set().union(*(held(s) for s in range(4))) if seat is None else held(seat)
    # The robbed turn-up A♦ shows twice: in the dealer's hand (when visible) and as the turn-up.
    expected = sorted(sf.card_str(c) for c in [*hands, *TRICK, TURNUP])
    assert sorted(shown) == expected
    assert symbols(hands | TRICK | {TURNUP}) <= texts
    backs = svg.count('class="back"')
    assert backs == (0 if seat is None else sum(len(held(s)) for s in range(4) if s != seat))
    if seat is None:
        assert any("6♣" in t for t in texts)  # the table view names the discard
    else:
        assert "6C" not in shown and not any("6♣" in t for t in texts)


def test_finished_trick_and_finished_hand() -> None:
    ids = np.array([sf.parse_cards(h) for h in HANDS], np.int32)
    state = DEAL(ids, jnp.int32(TURNUP), jnp.int32(3), jnp.int32(0))
    state = play(state, "PASS", "2C", "7C", "6D", "5C")  # dealer declines; 6♦ (trump) wins
    text = sf.spoil_five.render_text(state, player=2)
    assert "Trick 1 won by you with 6♦" in text
    assert "6♦ (won)" in text
    assert "You to lead to trick 2" in text
    while not bool(state.terminated):
        state = STEP(state, jnp.int32(ENV.legal_actions(state)[0]))
    text = sf.spoil_five.render_text(state)
    assert "hand over" in text
    assert re.search(r"won the pot of \d+ chips|Spoiled|jinked and failed", text)
    ET.fromstring(sf.spoil_five.render_svg(state))


def test_the_state_draws_nothing_and_batches_raise(mid_trick: sf.spoil_five.State) -> None:
    assert not hasattr(mid_trick, "_repr_svg_")  # data only: pictures come from ``render``
    assert sf.spoil_five.render_svg(mid_trick).startswith("<svg")
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), mid_trick)
    with pytest.raises(ValueError, match="batch of hands"):
        sf.spoil_five.render_text(batch)
    with pytest.raises(ValueError, match="batch of hands"):
        sf.spoil_five.render_svg(batch)


@pytest.mark.parametrize("player", [4, -1, "0", True])
def test_bad_player(mid_trick: sf.spoil_five.State, player: object) -> None:
    with pytest.raises(ValueError, match="player"):
        sf.spoil_five.render_text(mid_trick, player=player)  # type: ignore[arg-type]
