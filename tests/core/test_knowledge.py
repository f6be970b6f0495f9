"""What a seat knows: the public record, perfect-recall information states and the observation
kinds (``core.record``, ``core.knowledge``); the world checks run in every game's ``api_test``
(``tools.knowledge_check``, tests/tools/test_conformance.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import knowledge, record
from spoilfive_jax.core.cards import parse_cards


def _played(env: sf.Env, seed: int, moves: int) -> object:
    state = env.init(jax.random.PRNGKey(seed))
    policy = env.builtin_policy("random")
    for t in range(moves):
        state = env.step(
            state, policy(jax.random.PRNGKey(100 * seed + t), state, state.current_player)
        )
    return state


def test_the_record_holds_every_decision_and_hides_a_rob_discard_from_the_others() -> None:
    env = sf.spoil_five.SpoilFive(3)
    hands = np.array(
        [parse_cards(h) for h in ("K♦ 10♣ 6♥ 4♥ 5♣", "4♣ 10♥ J♠ 2♥ A♦", "9♠ 9♥ 10♠ K♠ 6♠")]
    )
    state = env.init_from_deal(hands, parse_cards("Q♦")[0], dealer=2)
    assert env.phase_names[int(state.phase)] == "rob" and int(state.current_player) == 1
    for card in ("J♠", "6♥", "2♥", "9♥"):  # seat 1 robs, laying J♠ away
        state = env.checked_step(state, parse_cards(card)[0])
    moves = np.asarray(state.moves)
    assert record.count(moves) == 4 == int(state._step_count)
    assert np.asarray(record.actors(moves))[:4].tolist() == [1, 0, 1, 2]
    hidden = env.num_actions
    seen0 = np.asarray(record.seen_by(moves, 0, hidden))[:4].tolist()
    seen1 = np.asarray(record.seen_by(moves, 1, hidden))[:4].tolist()
    assert seen0[0] == hidden and seen1[0] == parse_cards("J♠")[0] and seen0[1:] == seen1[1:]
    text = env.information_state_string(state, 0)
    assert (
        text
        == "seat 0 | dealer 2, turnup Q♦, carried 0 | dealt 5♣ 10♣ K♦ 4♥ 6♥ | 1:? 0:6♥ 1:2♥ 2:9♥"
    )
    assert "1:J♠" in env.information_state_string(state, 1)  # its own discard
    assert "dealt 4♣ A♦ 2♥ 10♥ J♠" in env.information_state_string(state, 1)  # before the rob


def test_information_states_are_perfect_recall_and_refine_the_view() -> None:
    """From one deal, many random move orders: equal information states always mean equal
    views (the information state knows more), and some equal views hide different histories
    (the view forgets the order, the information state does not)."""
    env = sf.spoil_five.SpoilFive(2)
    start = env.init(jax.random.PRNGKey(5))
    policy = env.builtin_policy("random")

    def play(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        def step(s: object, k: jax.Array) -> tuple[object, None]:
            return env.step(s, policy(k, s, s.current_player)), None  # type: ignore[attr-defined]

        end, _ = jax.lax.scan(step, start, jax.random.split(key, 6))
        return env.information_state(end, 0), env.observe(end, 0)

    infos, views = jax.jit(jax.vmap(play))(jax.random.split(jax.random.PRNGKey(0), 512))
    infos, views = np.asarray(infos), np.asarray(views)
    by_info: dict[bytes, bytes] = {}
    by_view: dict[bytes, set[bytes]] = {}
    for i, v in zip(infos, views, strict=True):
        assert by_info.setdefault(i.tobytes(), v.tobytes()) == v.tobytes()
        by_view.setdefault(v.tobytes(), set()).add(i.tobytes())
    assert max(len(s) for s in by_view.values()) > 1


@pytest.mark.parametrize(  # (-m slow: Forty-Five; Auction's case runs the family's capability)
    "game",
    [
        "spoil_five",
        pytest.param("forty_five", marks=pytest.mark.slow),
        "auction_forty_fives",
        "oh_hell",
    ],
)
def test_the_kinds_have_their_shapes_and_the_strings_read(game: str) -> None:
    env = sf.make(game, 3)
    state = _played(env, 1, 7)
    sizes = knowledge.shapes(env)
    assert env.information_state(state, 1).shape == env.information_state_shape
    assert env.information_state_shape == sizes["information_state"]
    assert env.observe_public(state).shape == sizes["public"]
    assert env.observe_private(state, 2).shape == sizes["private"]
    text = env.information_state_string(state, 1)
    assert text.startswith("seat 1 | dealer ") and "dealt " in text and "view" not in text
    facts = knowledge.public_start_text(env, state)
    assert facts in text and knowledge.record_text(env, state, 1) in text
    assert knowledge.public_string(env, state).startswith(facts)


def test_a_seat_out_of_range_is_refused_on_the_host_and_sees_zeros_traced() -> None:
    env = sf.spoil_five.SpoilFive(3)
    state = _played(env, 2, 3)
    for bad in (3, -1):
        with pytest.raises(ValueError, match="player"):
            env.information_state(state, bad)
        with pytest.raises(ValueError, match="player"):
            env.observe_private(state, bad)
        with pytest.raises(ValueError, match="player"):
            env.information_state_string(state, bad)
    for bad in (3, -2):  # (-1: the public record)
        with pytest.raises(ValueError, match="player"):
            knowledge.record_text(env, state, bad)
    assert knowledge.public_string(env, state).endswith(
        " | " + knowledge.record_text(env, state, -1)
    )
    traced = jax.jit(env.information_state)(state, jnp.int32(7))
    assert not np.asarray(traced).any()
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    with pytest.raises(ValueError, match="one hand"):
        env.information_state_string(batch, 0)
    with pytest.raises(ValueError, match="state of"):
        env.information_state(sf.make("forty_five", 3).init(0), 0)


def test_a_game_without_knowledge_says_so() -> None:
    class Bare(sf.spoil_five.SpoilFive):
        capabilities: ClassVar[Mapping[type, object]] = {
            k: v for k, v in sf.spoil_five.SpoilFive.capabilities.items() if k is not caps.Knowledge
        }

    env = Bare(3)
    state = env.init(0)
    with pytest.raises(caps.MissingCapability, match="Knowledge"):
        env.information_state(state, 0)
    assert int(record.count(np.asarray(env.step(state, env.legal_actions(state)[0]).moves))) == 0


def test_an_auction_deal_rebuilt_after_the_stock_runs_out_holds_every_draw() -> None:
    """Six seats may draw more than the 22-card stock holds: the rebuilt first state's stock
    holds every card drawn, in the order the seats drew (a slot left -1 once wrote its -1
    over the last draw)."""
    env = sf.make("auction_forty_fives", 6)
    policy = env.builtin_policy("random")
    first = knowledge.hooks(env).dealt_state
    for seed in range(40):
        state = env.init(jax.random.PRNGKey(seed))
        for t in range(60):
            if bool(state.terminated) or env.phase_names[int(state.phase)] == "play":
                break
            state = env.step(state, policy(jax.random.PRNGKey(1000 * seed + t), state, 0))
        if int(state.stock_top) == state.stock.shape[0]:
            break
    else:
        pytest.fail("no hand drew the whole stock")
    stock = np.asarray(first(env, state).stock)
    assert (stock >= 0).all()
    drawn = np.asarray(sf.core.bits.to_bool(state.drawn, 64)).any(0)
    assert sorted(stock.tolist()) == np.flatnonzero(drawn).tolist()
