"""``api_test``: the conformance check every game environment must pass (pgx's ``api_test``).

``api_test(env, num=100)`` plays ``num`` random hands of ``env`` with random legal actions, all at
once under ``jax.jit(jax.vmap(...))``, and checks the interface the rest of the package relies on:

- the pgx surface: ``env.id`` is a registered game id, ``num_players``, ``num_actions``,
  ``observation_shape``, ``init(key)``, ``step(state, action, key=None)`` (the key changes
  nothing); ``env == make(env.id, env.num_players, rules=env.rules)`` with the same hash;
- the shared ``State`` fields (``core.env.HandState``): shapes and pinned dtypes (int32 seats and
  counters, float32 rewards, bool flags and masks);
- exactly one seat to act while a hand is live (``current_player`` in 0..N-1, -1 once over), a
  non-empty ``legal_action_mask`` while live and an all-True one once terminated, never
  ``truncated``, every hand over within ``env.max_decisions`` decisions;
- rewards (every float field named ``*rewards``) only on the step that ends a hand;
- a terminated state steps to itself with zero rewards; an illegal action (outside the mask, or
  outside ``0..num_actions-1``) ends a live hand with ``illegal`` set;
- the same hand played one at a time (``checked_step``, jit) and in the batch (jit of vmap), and
  its first decision without jit at all, give the same states;
- ``observe`` (of the seat to act, and of every seat) / ``observe_full``: shapes, float32,
  finite, and every seat's view its own (no two seats see the same thing in a live hand);
- ``legal_actions`` agrees with the mask, ``checked_step`` raises ``ValueError`` for an illegal
  action and for a finished hand, ``action_str`` names every legal action;
- what a seat knows (with ``capabilities``: ``tools.knowledge_check``): the public record
  ``state.moves``, the hand's deal replayed through it, the information states and observation
  kinds, and every world the game's resampler draws replayed from its own deal.

A failure raises ``AssertionError`` (or the game's own exception) with a message naming the game,
the check and the hand.  Each call compiles ``env``'s batched init and step once (plus the single
hand's step and the observation views), so it takes a few seconds per table.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.env import Env, R, S
from spoilfive_jax.core.transition import transition
from spoilfive_jax.registry import available_games, env_class, make
from spoilfive_jax.tools.conformance import check_capabilities
from spoilfive_jax.tools.knowledge_check import check_knowledge

__all__ = ["api_test"]

# Shared fields of every game's State (``core.env.HandState``): dtype and per-hand shape, where
# "N" is the number of seats and "A" the number of actions.
_FIELDS: dict[str, tuple[Any, tuple[str | int, ...]]] = {
    "current_player": (np.int32, ()),
    "terminated": (np.bool_, ()),
    "truncated": (np.bool_, ()),
    "rewards": (np.float32, ("N",)),
    "tricks_won": (np.int32, ("N",)),
    "phase": (np.int32, ()),
    "illegal": (np.bool_, ()),
    "_step_count": (np.int32, ()),
    "legal_action_mask": (np.bool_, ("A",)),
}


def api_test(
    env: Env[S, R],
    num: int = 100,
    *,
    seed: int = 0,
    no_jit: bool = True,
    capabilities: bool = True,
) -> None:
    """Check that ``env`` follows the game interface, over ``num`` random hands.

    ``seed`` picks the deals and the random actions; ``no_jit=False`` skips the comparison of
    one decision taken without ``jax.jit`` (the slowest part for big tables).
    ``capabilities``: also check what a seat knows (the record, the deal replayed through it,
    the worlds: ``tools.knowledge_check``) and every capability the game declares
    (``tools.conformance``).
    Raises ``AssertionError`` naming the first broken rule.
    """
    if not isinstance(env, Env):
        raise ValueError(f"api_test takes a spoilfive_jax Env, got {type(env).__name__}")
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"num must be a positive integer, got {num!r}")
    _check_surface(env)
    t = _Tester(env, num, seed)
    history, actions = t.play()
    t.check_terminal_step(history[-1])
    t.check_illegal(history)
    t.check_single_hand(history, actions, no_jit)
    if capabilities and caps.Knowledge in type(env).capabilities:
        check_knowledge(env, history, seed)
        check_capabilities(env, history, seed)


# ---------------------------------------------------------------------------- helpers


def _host(tree: Any) -> Any:
    return jax.tree.map(np.asarray, jax.device_get(tree))


def _row(tree: Any, i: int) -> Any:
    return jax.tree.map(lambda x: np.asarray(x)[i], tree)


def _leaves(tree: Any) -> list[tuple[str, np.ndarray]]:
    """(field path, value) of every array leaf, e.g. ``("hands.lo", ...)``."""
    out = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        name = ".".join(
            str(getattr(k, "name", getattr(k, "key", getattr(k, "idx", k)))) for k in path
        )
        out.append((name, np.asarray(leaf)))
    return out


def _reward_fields(state: Any) -> list[str]:
    """Float fields named ``...rewards`` (``rewards``, and e.g. the family's ``game_rewards``)."""
    if not dataclasses.is_dataclass(state):
        return ["rewards"]
    return [
        f.name
        for f in dataclasses.fields(state)
        if f.name.endswith("rewards")
        and np.issubdtype(np.asarray(getattr(state, f.name)).dtype, np.floating)
    ]


def _assert_same(a: Any, b: Any, what: str, skip: tuple[str, ...] = ()) -> None:
    ta: Any = jax.tree.structure(a)
    tb: Any = jax.tree.structure(b)
    assert ta == tb, f"{what}: the states differ in structure or static fields: {ta} vs {tb}"
    la, lb = _leaves(a), _leaves(b)
    assert [n for n, _ in la] == [n for n, _ in lb], f"{what}: the states have different fields"
    for (name, x), (_, y) in zip(la, lb, strict=True):
        if name.split(".")[0] in skip:
            continue
        assert x.dtype == y.dtype and x.shape == y.shape, (
            f"{what}: field {name} is {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        )
        assert np.array_equal(x, y), f"{what}: field {name} differs: {x} vs {y}"


def _check_surface(env: Env[S, R]) -> None:
    name = f"{env!r}"
    assert isinstance(env.id, str) and env.id in available_games(), (
        f"{name}: env.id {env.id!r} is not one of available_games() {available_games()}"
    )
    n = env.num_players
    assert isinstance(n, int) and n >= 2, f"{name}: num_players must be an int >= 2, got {n!r}"
    assert isinstance(env.num_actions, int) and env.num_actions > 0, (
        f"{name}: num_actions must be a positive int, got {env.num_actions!r}"
    )
    for attr in ("observation_shape", "full_observation_shape"):
        shape = getattr(env, attr)
        assert isinstance(shape, tuple) and all(isinstance(d, int) and d > 0 for d in shape), (
            f"{name}: {attr} must be a tuple of positive ints, got {shape!r}"
        )
    assert isinstance(env.max_decisions, int) and env.max_decisions > 0, (
        f"{name}: max_decisions must be a positive int, got {env.max_decisions!r}"
    )
    assert isinstance(env.phase_names, tuple) and env.phase_names, f"{name}: phase_names"
    names = env.policy_names
    assert isinstance(names, tuple) and names and all(isinstance(p, str) for p in names), (
        f"{name}: policy_names must be a non-empty tuple of names, got {names!r}"
    )
    again = make(env.id, n, rules=env.rules) if isinstance(env, env_class(env.id)) else None
    if type(again) is type(env):  # (not for another subclass, e.g. a test double)
        assert again == env, f"{name}: make({env.id!r}, {n}, rules=env.rules) gives {again!r}"
        assert hash(again) == hash(env), f"{name}: equal envs must hash alike"
    assert type(env)(n, env.rules) == env, f"{name}: the constructor gives another table"
    assert type(env).__name__ in repr(env), f"{name}: repr should name the class"


class _Tester:
    def __init__(self, env: Env[Any, Any], num: int, seed: int) -> None:
        self.env = env
        self.num = num
        self.name = f"api_test({env!r})"
        key = jax.random.PRNGKey(seed)
        self.deal_key, self.act_key = jax.random.split(key)
        self.init = jax.jit(jax.vmap(env.init))
        self.step = jax.jit(jax.vmap(env.step))
        self.views = jax.jit(jax.vmap(functools.partial(_views, env)))

    # -- one batched state
    def check_state(self, state: Any, label: str) -> None:
        env, name = self.env, self.name
        b, n, a = self.num, env.num_players, env.num_actions
        for field, (dtype, shape) in _FIELDS.items():
            value = getattr(state, field, None)
            assert value is not None, f"{name}: State has no field {field}"
            value = np.asarray(value)
            want = (b, *(n if d == "N" else a if d == "A" else d for d in shape))
            assert value.dtype == dtype, (
                f"{name} {label}: {field} has dtype {value.dtype}, expected {np.dtype(dtype)}"
            )
            assert value.shape == want, (
                f"{name} {label}: {field} has shape {value.shape}, expected {want}"
            )
        done = np.asarray(state.terminated)
        live = ~done
        cur = np.asarray(state.current_player)
        bad = np.flatnonzero(live & ((cur < 0) | (cur >= n)))
        assert bad.size == 0, (
            f"{name} {label}: hand {bad[0]} is live but current_player is {cur[bad[0]]} "
            f"(expected one seat in 0..{n - 1})"
        )
        bad = np.flatnonzero(done & (cur != -1))
        assert bad.size == 0, (
            f"{name} {label}: hand {bad[0]} is over but current_player is {cur[bad[0]]} (not -1)"
        )
        assert not np.asarray(state.truncated).any(), f"{name} {label}: a hand was truncated"
        mask = np.asarray(state.legal_action_mask)
        bad = np.flatnonzero(live & ~mask.any(axis=-1))
        assert bad.size == 0, f"{name} {label}: live hand {bad[0]} has no legal action"
        bad = np.flatnonzero(done & ~mask.all(axis=-1))
        assert bad.size == 0, (
            f"{name} {label}: terminated hand {bad[0]} must have every action legal (pgx)"
        )
        steps = np.asarray(state._step_count)
        assert (steps >= 0).all() and (steps <= env.max_decisions).all(), (
            f"{name} {label}: _step_count {steps.max()} beyond max_decisions {env.max_decisions}"
        )
        own, full, seat = (np.asarray(x) for x in self.views(state))
        for what, x, shape in (
            ("observe(state, p)", own, env.observation_shape),
            ("observe_full(state)", full, env.full_observation_shape),
            ("observe(state, seat)", seat, (n, *env.observation_shape)),
        ):
            assert x.dtype == np.float32, f"{name} {label}: {what} has dtype {x.dtype}"
            assert x.shape == (b, *shape), (
                f"{name} {label}: {what} has shape {x.shape[1:]}, expected {shape}"
            )
            assert np.isfinite(x).all(), f"{name} {label}: {what} is not finite"
        flat = seat.reshape(b, n, -1)
        same = (flat[:, :, None] == flat[:, None, :]).all(axis=-1).sum(axis=(1, 2)) != n
        bad = np.flatnonzero(live & same)
        assert bad.size == 0, (
            f"{name} {label}: hand {bad[0]}: two seats get the same observation (each seat "
            "sees its own cards)"
        )

    # -- random legal play of the whole batch
    def play(self) -> tuple[list[Any], list[np.ndarray]]:
        env, name = self.env, self.name
        state = self.init(jax.random.split(self.deal_key, self.num))
        self.check_state(state, "after init")
        for field in _reward_fields(state):
            assert (np.asarray(getattr(state, field)) == 0).all(), (
                f"{name}: {field} must be zero after init"
            )
        assert (np.asarray(state._step_count) == 0).all(), f"{name}: _step_count after init"
        history: list[Any] = [_host(state)]
        actions: list[np.ndarray] = []
        key = self.act_key
        while not np.asarray(state.terminated).all():
            assert len(actions) < env.max_decisions, (
                f"{name}: a hand is still live after max_decisions = {env.max_decisions}"
            )
            key, sub = jax.random.split(key)
            action = _act_randomly(sub, state.legal_action_mask)
            before = history[-1]
            state = self.step(state, action)
            after = _host(state)
            label = f"after decision {len(actions) + 1}"
            self.check_state(after, label)
            was_live = ~before.terminated
            grew = after._step_count - before._step_count
            bad = np.flatnonzero(grew != np.where(was_live, 1, 0))
            assert bad.size == 0, (
                f"{name} {label}: hand {bad[0]}: _step_count went "
                f"{before._step_count[bad[0]]} -> {after._step_count[bad[0]]}"
            )
            bad = np.flatnonzero(was_live & np.asarray(after.illegal))
            assert bad.size == 0, f"{name} {label}: hand {bad[0]}: a legal action set illegal"
            for field in _reward_fields(after):
                r = np.asarray(getattr(after, field)).reshape(self.num, -1)
                paid = (r != 0).any(axis=-1)
                bad = np.flatnonzero(paid & ~(was_live & after.terminated))
                assert bad.size == 0, (
                    f"{name} {label}: hand {bad[0]}: nonzero {field} {r[bad[0]]} on a step that "
                    "does not end the hand (rewards come only on the final step)"
                )
            history.append(after)
            actions.append(np.asarray(action))
        return history, actions

    # -- a terminated state steps to itself
    def check_terminal_step(self, final: Any) -> None:
        env, name = self.env, self.name
        for action in (0, env.num_actions - 1, -1, env.num_actions):
            again = _host(self.step(final, jnp.full(self.num, action, jnp.int32)))
            rewards = _reward_fields(final)
            for field in rewards:
                r = np.asarray(getattr(again, field))
                assert (r == 0).all(), (
                    f"{name}: stepping a terminated hand with action {action} gave {field} "
                    f"{r[np.flatnonzero((r != 0).reshape(self.num, -1).any(-1))[0]]}, not zero"
                )
            _assert_same(
                again,
                final,
                f"{name}: stepping a terminated hand with action {action}",
                skip=tuple(rewards),
            )

    # -- an illegal action ends a live hand
    def check_illegal(self, history: list[Any]) -> None:
        # the first decision (rob, bidding, ...) and the middle of the hands (play)
        for state in (history[0], history[len(history) // 2]):
            self._check_illegal(state)

    def _check_illegal(self, state: Any) -> None:
        env, name = self.env, self.name
        live = ~np.asarray(state.terminated)
        mask = np.asarray(state.legal_action_mask)
        # an action outside the mask where there is one, else one outside 0..num_actions-1
        outside = np.where(mask.all(axis=-1), env.num_actions, np.argmin(mask, axis=-1))
        for label, action in (
            ("an action outside the legal mask", outside),
            ("action -1", np.full(self.num, -1)),
            (f"action {env.num_actions} (out of range)", np.full(self.num, env.num_actions)),
        ):
            after = _host(self.step(state, jnp.asarray(action, jnp.int32)))
            self.check_state(after, f"after {label}")
            bad = np.flatnonzero(live & ~(after.terminated & after.illegal))
            assert bad.size == 0, (
                f"{name}: {label} ({int(action[bad[0]])}) in live hand {bad[0]} must end the "
                "hand with state.illegal set"
            )
            bad = np.flatnonzero(~live & after.illegal & ~state.illegal)
            assert bad.size == 0, f"{name}: {label} changed finished hand {bad[0]}"

    # -- one hand: checked_step (jit) and no jit against the batch
    def check_single_hand(
        self, history: list[Any], actions: list[np.ndarray], no_jit: bool
    ) -> None:
        env, name = self.env, self.name
        i = 0
        key = jax.random.split(self.deal_key, self.num)[i]
        state = env.init(key)
        _assert_same(_host(state), _row(history[0], i), f"{name}: init(key) vs vmap(init)")
        if no_jit:
            with jax.disable_jit():
                plain = env.init(key)
                _assert_same(_host(plain), _row(history[0], i), f"{name}: init without jit")
                if env.legal_actions(plain):
                    first = jnp.int32(int(actions[0][i]))
                    after = transition(env, plain, first)
                    _assert_same(
                        _host(after),
                        _row(history[1], i),
                        f"{name}: the first decision without jit vs jit(vmap(step))",
                    )
        for t, batch_action in enumerate(actions):
            legal = env.legal_actions(state)
            mask = np.asarray(state.legal_action_mask)
            if bool(state.terminated):
                assert legal == [], f"{name}: legal_actions of a finished hand must be []"
                with _raises(ValueError, f"{name}: checked_step on a finished hand"):
                    env.checked_step(state, 0)
                break
            assert legal == np.flatnonzero(mask).tolist(), (
                f"{name}: hand {i} decision {t + 1}: legal_actions {legal} disagree with the mask"
            )
            for a in legal:
                text = env.action_str(a)
                assert isinstance(text, str) and text, f"{name}: action_str({a}) = {text!r}"
            illegal = [a for a in range(env.num_actions) if not mask[a]]
            for bad in [*illegal[:1], -1, env.num_actions]:
                with _raises(ValueError, f"{name}: checked_step with illegal action {bad}"):
                    env.checked_step(state, bad)
            action = int(batch_action[i])
            assert action in legal, f"{name}: the random action {action} is not legal"
            keyed = env.step(state, jnp.int32(action), jax.random.PRNGKey(t))
            state = env.checked_step(state, action)
            where = f"{name}: hand {i} after decision {t + 1}"
            _assert_same(_host(keyed), _host(state), f"{where}: step(state, action, key)")
            _assert_same(_host(state), _row(history[t + 1], i), f"{where}: jit vs jit(vmap)")
        assert bool(state.terminated), f"{name}: hand {i} did not end"


def _views(env: Env[S, R], state: S) -> tuple[jax.Array, ...]:
    """One hand's observations: ``observe(state, current_player)`` (seat 0 once over),
    ``observe_full``, and ``observe`` of every seat."""
    player = jnp.maximum(state.current_player, 0)
    seats = jnp.arange(env.num_players)
    every = jax.vmap(env.observe, in_axes=(None, 0))(state, seats)
    return env.observe(state, player), env.observe_full(state), every


@jax.jit
def _act_randomly(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random legal action for each row of ``mask`` (any action once over)."""
    logits = jnp.where(mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits, axis=-1).astype(jnp.int32)


class _raises:
    """``with _raises(ValueError, what):`` -- like ``pytest.raises`` without pytest."""

    def __init__(self, exc: type[BaseException], what: str) -> None:
        self.exc, self.what = exc, what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, value: Any, tb: Any) -> bool:
        if kind is None:
            raise AssertionError(f"{self.what}: expected {self.exc.__name__}, nothing raised")
        return issubclass(kind, self.exc)
