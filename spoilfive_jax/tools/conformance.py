"""What ``testing.api_test`` checks of the capabilities a game declares (``core.capabilities``).

Each check runs the capability the way the tools do, on a few small random hands, and raises
``AssertionError`` naming the game, the capability and what broke:

- every declared implementation has every member of its capability (``check_implementation``);
- ``Rollouts``: a rollout's record holds ``rewards`` float32[N] and ``decisions`` int32 within
  ``max_decisions``, the same run split into other batches gives the same hands, and its
  summary streamed (``per_hand=False``: ``hand_values`` inside ``jit``) is the per-hand one's;
- ``RolloutKernel``: for every built-in policy but ``random``, the kernel plays the same hands
  as the public step does on the same deals (every record field both give);
- ``Analysis``: a world drawn for the seat to act looks, to that seat, exactly like the
  position (the same observation and legal actions), and ``playout`` gives one finite value
  per field and legal action, the same for an action tried alone;
- ``Inference``: on worlds drawn for the seat to act, a model that gives every action
  probability 1/2 charges each world ``k log 1/2`` for the same whole number ``k`` of weighed
  plays (none before any play, some later on), a model spread evenly over the legal actions
  finds every recorded play legal in every world (a finite log-likelihood <= 0), and
  ``trained_model`` is None or a distribution over the legal actions;
- ``Sessions``: a few sessions run; ``HandScoring``: two hands of random distinct cards are
  scored through ``score_hands`` (whose checks read the game's turn-up), and the score command's
  records and table render them;
- ``Presentation``, ``Rendering`` and ``AgentInfo``: their texts and records render for a
  rollout, a live hand and a finished one; ``TerminalPlay`` quits cleanly on ``q``;
- ``Teams`` (every game has it): teams are numbered from 0 and partners' rewards are equal in
  every hand of a random rollout;
- ``DeckDeals``: a hand dealt from an order of the pack is a live first state, the order of
  the cards past ``deal_length`` changes nothing, and legal hands end within ``reward_bounds``.
"""

from __future__ import annotations

import io
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, HandState, R, S
from spoilfive_jax.tools.analysis import legal_spread
from spoilfive_jax.tools.policies import lineup, play_deals, play_public
from spoilfive_jax.tools.rollout import rollout
from spoilfive_jax.tools.scorer import score_hands
from spoilfive_jax.tools.session import play_sessions


def check_capabilities(env: Env[S, R], states: list[S], seed: int) -> None:
    """Run every check that applies to ``env``'s declared capabilities; ``states`` are batched
    states of a random playout (one per decision), the last one finished."""
    declared = type(env).capabilities
    for kind, impl in declared.items():
        caps.check_implementation(env.id, kind, impl)
    _rollouts(env, seed)
    if caps.RolloutKernel in declared:
        _kernel(env, seed)
    if caps.Analysis in declared:
        _analysis(env, states, seed)
    if caps.Inference in declared:
        _inference(env, states, seed)
    if caps.Sessions in declared:
        play_sessions(seed, env, "random", 2)
    if caps.HandScoring in declared:
        _hand_scoring(env, seed)
    if caps.Presentation in declared:
        _presentation(env, seed)
    if caps.Rendering in declared:
        _rendering(env, states)
    if caps.TerminalPlay in declared:
        _terminal(env, seed)
    if caps.DeckDeals in declared:
        _deck_deals(env, states, seed)
    _agent_info(env, states)
    _teams(env, seed)


def _row(tree: Any, i: int) -> Any:
    return jax.tree.map(lambda x: jnp.asarray(x)[i], tree)


def _rollouts(env: Env[S, R], seed: int) -> None:
    n = env.num_players
    # two batch sizes (two compiles): the streamed run shares the first one's program
    whole = rollout(seed, env, "random", num_hands=24, batch_size=16)
    split = rollout(seed, env, "random", num_hands=24, batch_size=8)
    assert whole.rewards.dtype == np.float32 and whole.rewards.shape == (24, n), (
        f"{env.id} Rollouts: rewards are {whole.rewards.dtype}{list(whole.rewards.shape)}, "
        f"expected float32[24, {n}]"
    )
    assert whole.decisions.dtype == np.int32 and (whole.decisions <= env.max_decisions).all(), (
        f"{env.id} Rollouts: decisions must be int32 within max_decisions {env.max_decisions}"
    )
    for name in whole.fields:
        a, b = np.asarray(getattr(whole, name)), np.asarray(getattr(split, name))
        assert np.array_equal(a, b), (
            f"{env.id} Rollouts: field {name} depends on the batch size (a hand's deal and "
            "decisions must depend only on the run's key and the hand's id)"
        )
    streamed = rollout(seed, env, "random", num_hands=24, batch_size=16, per_hand=False)
    differ = summary_differences(whole.summary(), streamed.summary())
    assert not differ, (
        f"{env.id} Rollouts: the summary streamed (per_hand=False: hand_values reduced in jit, "
        f"batch by batch) differs from the per-hand one in {', '.join(differ)}"
    )


def summary_differences(a: dict[str, Any], b: dict[str, Any], rtol: float = 1e-5) -> list[str]:
    """The keys of two summaries that differ (timings, ``*_per_s``, aside): ints, strings and
    flags exactly, floats to ``rtol`` (nan equal to nan): a per-hand and a streamed run of the
    same hands agree to float32 rounding."""
    out = []
    for k in sorted(set(a) | set(b)):
        if k.endswith("_per_s") or k == "seconds":
            continue
        if k not in a or k not in b:
            out.append(k)
            continue
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if x.shape != y.shape:
            out.append(k)
        elif np.issubdtype(x.dtype, np.floating):
            if not np.allclose(x, y, rtol=rtol, atol=1e-12, equal_nan=True):
                out.append(k)
        elif not np.array_equal(x, y):
            out.append(k)
    return out


def _kernel(env: Env[S, R], seed: int) -> None:
    rollouts = env.capability(caps.Rollouts)
    keys = rollouts.rollout_keys(env, jax.random.PRNGKey(seed))
    options = {k: jnp.full(16, v, jnp.int32) for k, v in rollouts.deal_options(env).items()}
    ids = jnp.arange(16, dtype=jnp.uint32)
    deal = rollouts.rollout_deal(env, keys, ids, options)
    play = jax.jit(play_deals, static_argnums=(0, 1))  # op by op, a kernel took seconds
    public = jax.jit(play_public, static_argnums=(0, 1))
    # Every non-random built-in seated at once (cycled over the seats; more lineups when there
    # are more built-ins than seats): one fast and one public-step program for all of them.
    names = [name for name in env.policy_names if name != "random"]  # (a kernel's random
    n = env.num_players  # player may draw its own numbers)
    for group in (names[i : i + n] for i in range(0, len(names), n)):
        seats = [group[s % len(group)] for s in range(n)]
        who, seat_policy = lineup(env, seats)
        fast = play(env, who, keys, ids, deal, jnp.asarray(seat_policy))
        slow = public(env, who, keys, ids, deal, jnp.asarray(seat_policy))
        # The same policies as callables: a game's kernel for any lineup, where it has one.
        callables = type(who)(who.policies, (None,) * len(who.names))
        called = play(env, callables, keys, ids, deal, jnp.asarray(seat_policy))
        for field in sorted(set(fast) & set(slow)):
            for path, got in (("kernel", fast), ("kernel for callables", called)):
                assert np.array_equal(np.asarray(got[field]), np.asarray(slow[field])), (
                    f"{env.id} RolloutKernel: with {', '.join(seats)} at the seats the "
                    f"{path}'s {field} differs from the public step's on the same deals"
                )


def _analysis(env: Env[S, R], states: list[S], seed: int) -> None:
    analysis = env.capability(caps.Analysis)
    fields = analysis.analysis_fields(env)
    labels = analysis.analysis_labels(env)
    assert fields and all(f in labels for f in fields), f"{env.id} Analysis: a field lacks a label"
    width = analysis.max_legal_actions(env)
    key = jax.random.PRNGKey(seed)
    # one compile for every position (called op by op, each position took seconds)
    resample = jax.jit(analysis.resample_hidden_many, static_argnums=(0, 4))
    observe = jax.jit(env.observe)
    for t, batch in enumerate(states[:: max(1, len(states) // 4)]):
        live = np.flatnonzero(~np.asarray(batch.terminated))[:3]
        for i in live.tolist():
            state = _row(batch, i)
            p = int(state.current_player)
            assert int(np.asarray(state.legal_action_mask).sum()) <= width, (
                f"{env.id} Analysis: more legal actions than max_legal_actions {width}"
            )
            worlds = resample(env, jax.random.fold_in(key, t), state, jnp.int32(p), 4)
            for w in range(4):
                world = _row(worlds, w)
                same = np.array_equal(
                    np.asarray(observe(world, jnp.int32(p))),
                    np.asarray(observe(state, jnp.int32(p))),
                )
                assert same, (
                    f"{env.id} Analysis: a resampled world changes what seat {p} observes "
                    f"(decision {t}, hand {i})"
                )
                assert np.array_equal(
                    np.asarray(world.legal_action_mask), np.asarray(state.legal_action_mask)
                ), f"{env.id} Analysis: a resampled world changes the legal actions"
    batch = states[0]
    state = _row(batch, 0)
    legal = np.flatnonzero(np.asarray(state.legal_action_mask))
    actions = jnp.asarray(legal[None, :], jnp.int32)
    policy = env.builtin_policy("random")
    one = jax.tree.map(lambda x: x[None], state)
    player = jnp.asarray([int(state.current_player)], jnp.int32)
    playout = jax.jit(analysis.playout, static_argnums=(0, 5))
    values = playout(env, key[None], one, actions, player, policy)
    for f in fields:
        v = np.asarray(values[f])
        assert v.shape == (1, legal.size), f"{env.id} Analysis: playout's {f} is {v.shape}"
    alone = playout(env, key[None], one, actions[:, -1:], player, policy)  # (a chunk 1 wide)
    for f in fields:
        same = np.array_equal(alone[f][:, 0], values[f][:, -1], equal_nan=True)  # (NaN: none)
        assert same, (
            f"{env.id} Analysis: playout's {f} of an action depends on the other actions tried"
        )


def _inference(env: Env[S, R], states: list[S], seed: int) -> None:
    inference = env.capability(caps.Inference)
    analysis = env.capability(caps.Analysis, "Inference")

    def halves(state: HandState, seat: jax.Array) -> jax.Array:
        return jnp.full((env.num_actions,), 0.5, jnp.float32)

    @jax.jit
    def weigh(key: jax.Array, state: S) -> tuple[jax.Array, jax.Array]:
        player = state.current_player
        worlds = analysis.resample_hidden_many(env, key, state, player, 4)
        return (
            inference.play_log_likelihood(env, worlds, player, halves),
            inference.play_log_likelihood(env, worlds, player, legal_spread),
        )

    weighed = []
    key = jax.random.PRNGKey(seed)
    for t, batch in enumerate(states):
        live = np.flatnonzero(~np.asarray(batch.terminated))
        if not live.size:
            continue
        position = _row(batch, live[0])
        half, even = (np.asarray(x) for x in weigh(jax.random.fold_in(key, t), position))
        assert np.isfinite(even).all() and (even <= 1e-6).all() and (even > -1e6).all(), (
            f"{env.id} Inference: a recorded play is impossible in a resampled world {even}"
        )
        k = half / np.log(0.5)
        assert half.shape == (4,) and np.allclose(k, np.round(k[0]), atol=1e-3), (
            f"{env.id} Inference: worlds of one position weigh different numbers of plays {k}"
        )
        weighed.append(round(float(k[0])))
    assert weighed and weighed[0] == 0, f"{env.id} Inference: plays weighed before any play"
    assert max(weighed) > 0, f"{env.id} Inference: no play was ever weighed"
    model = inference.trained_model(env)
    if model is not None:
        state = _row(states[0], 0)
        probs = np.asarray(model.action_probs(state, state.current_player), np.float64)
        legal = np.asarray(state.legal_action_mask)
        assert probs.shape == (env.num_actions,) and abs(probs[legal].sum() - 1) < 1e-4, (
            f"{env.id} Inference: trained_model's action_probs is not a distribution"
        )
        assert np.allclose(probs[~legal], 0, atol=1e-6), (
            f"{env.id} Inference: trained_model gives an illegal action probability"
        )


class _Query(NamedTuple):
    """A scored hand as the score command holds one (``hand``, ``turnup``, ``seat``)."""

    hand: list[int]
    turnup: int
    seat: int


def _hand_scoring(env: Env[S, R], seed: int) -> None:
    scoring = env.capability(caps.HandScoring)
    threshold = scoring.score_threshold(env)
    assert threshold is None or isinstance(threshold, int), (
        f"{env.id} HandScoring: score_threshold gave {threshold!r}"
    )
    turnup = scoring.has_turnup(env)
    assert isinstance(turnup, bool), f"{env.id} HandScoring: has_turnup gave {turnup!r}"
    cards = np.random.default_rng(seed).permutation(52)[:12].astype(np.int32)
    queries = [_Query(cards[:5].tolist(), int(cards[10]) if turnup else -1, 1),
               _Query(cards[5:10].tolist(), int(cards[11]) if turnup else -1, 0)]  # fmt: skip
    extra: dict[str, Any] = {} if threshold is None else {"threshold": threshold}
    scores = score_hands(
        seed,
        np.array([q.hand for q in queries]),
        np.array([q.turnup for q in queries]) if turnup else None,
        np.array([q.seat for q in queries]),
        policy="random",
        num_rollouts=4,
        batch_size=8,
        env=env,
        **extra,
    )
    records = scoring.score_records(env, queries, scores)
    assert len(records) == 2 and all(isinstance(r, dict) for r in records), (
        f"{env.id} HandScoring: score_records gave {records!r} for two hands"
    )
    assert scoring.score_report(env, queries, scores, "conformance", threshold) is not None


def _presentation(env: Env[S, R], seed: int) -> None:
    words = env.capability(caps.Presentation)
    for name in ("title", "table_text", "rules_line", "tournament_note", "default_policy"):
        text = getattr(words, name)(env)
        assert isinstance(text, str), f"{env.id} Presentation: {name} gave {text!r}"
    assert words.default_policy(env) in env.policy_names, (
        f"{env.id} Presentation: default_policy is not a built-in policy"
    )
    assert isinstance(words.rules_in_force(env), dict), f"{env.id}: rules_in_force"
    assert isinstance(words.rule_options(), tuple), f"{env.id}: rule_options"
    assert isinstance(words.rules_text(env, None), str), f"{env.id}: rules_text"
    result = rollout(seed, env, "random", num_hands=8)
    names = ["random"] * env.num_players
    summary = result.summary()
    assert words.rollout_report(env, summary, names, 1.0) is not None
    header, rows = words.summary_rows(env, summary, names)
    assert header and rows and all(len(r) == len(header) for r in rows), (
        f"{env.id} Presentation: summary_rows gives rows of another width than the header"
    )
    fields, block, _, _ = words.per_hand_columns(env, result)
    assert all(hasattr(result, f) for f in fields) and np.shape(block)[0] == 8, (
        f"{env.id} Presentation: per_hand_columns names fields the result lacks"
    )


def _rendering(env: Env[S, R], states: list[S]) -> None:
    pictures = env.capability(caps.Rendering)
    for batch in (states[0], states[len(states) // 2], states[-1]):
        state = _row(batch, 0)
        text = pictures.render_text(env, state)
        assert isinstance(text, str) and text, f"{env.id} Rendering: render_text is empty"
        svg = pictures.render_svg(env, state)
        assert svg.lstrip().startswith("<svg"), f"{env.id} Rendering: render_svg is no SVG"


def _deck_deals(env: Env[S, R], states: list[S], seed: int) -> None:
    """A hand dealt from an order of the pack is a live first state, the order of the cards
    past ``deal_length`` changes nothing, and the random playout's hands (that ended on legal
    actions) end within ``reward_bounds``."""
    deals = env.capability(caps.DeckDeals)
    low, high = deals.reward_bounds(env)
    totals = np.sum([np.asarray(s.rewards, np.float64) for s in states], axis=0)
    legal = ~np.asarray(states[-1].illegal)
    assert legal.any(), f"{env.id} DeckDeals: every random hand ended on an illegal action"
    assert low <= totals[legal].min() and totals[legal].max() <= high, (
        f"{env.id} DeckDeals: a hand's rewards {totals[legal].min()}..{totals[legal].max()} "
        f"lie outside reward_bounds ({low}, {high})"
    )
    size, length = deals.deck_size(env), deals.deal_length(env)
    assert 0 < length <= size, f"{env.id} DeckDeals: deal_length {length} of a {size}-card pack"
    rng = np.random.default_rng(seed)
    deck = rng.permutation(size)
    tail = np.concatenate([deck[:length], rng.permutation(deck[length:])])
    for dealer in (0, env.num_players - 1):
        first = deals.init_from_deck(env, deck, dealer)
        assert not bool(first.terminated), f"{env.id} DeckDeals: the first state has ended"
        assert 0 <= int(first.current_player) < env.num_players
        again = deals.init_from_deck(env, tail, dealer)
        same = jax.tree.map(lambda a, b: bool(np.array_equal(a, b)), first, again)
        assert all(jax.tree.leaves(same)), (
            f"{env.id} DeckDeals: the cards past deal_length ({length}) changed the hand"
        )


def _terminal(env: Env[S, R], seed: int) -> None:
    out = io.StringIO()
    env.capability(caps.TerminalPlay).play_terminal(
        env,
        io.StringIO("q\n"),
        out,
        human=0,
        bots=env.builtin_policy("random"),
        bots_name="random",
        hands=1,
        dealer=0,
        seed=seed,
    )
    assert out.getvalue(), f"{env.id} TerminalPlay: nothing was written"


def _teams(env: Env[S, R], seed: int) -> None:
    team = np.asarray(env.capability(caps.Teams).team_of(env))
    n = env.num_players
    assert team.shape == (n,) and np.issubdtype(team.dtype, np.integer), f"{env.id}: team_of"
    assert set(team.tolist()) == set(range(team.max() + 1)), f"{env.id}: teams numbered from 0"
    # (the batch of ``_rollouts``' first run: its compiled program serves this one too)
    rewards = rollout(seed + 1, env, "random", num_hands=48, batch_size=16).rewards
    for t in range(team.max() + 1):
        mine = rewards[:, team == t]
        assert (mine == mine[:, :1]).all(), f"{env.id} Teams: partners' rewards differ"


def _agent_info(env: Env[S, R], states: list[S]) -> None:
    info = env.capability(caps.AgentInfo)
    low = info.observation_low(env)
    for batch in (states[0], states[-1]):
        state = _row(batch, 0)
        seen = float(np.asarray(env.observe(state, 0)).min())
        assert seen >= low, f"{env.id} AgentInfo: an observation is below observation_low"
        assert isinstance(info.state_text(env, state), str), f"{env.id}: state_text"
    final = _row(states[-1], 0)
    assert isinstance(info.final_info(env, final), dict), f"{env.id}: final_info"
