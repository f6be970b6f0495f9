"""A custom policy of the wrong kind is one ``ValueError`` saying what a policy must be, raised
when it is traced, from every loop that plays hands with it: not JAX's
``TracerBoolConversionError`` or ``cond branches must have equal output types``."""

from __future__ import annotations

import jax.numpy as jnp
import pytest

import spoilfive_jax as sf

ENV = sf.make("spoil_five", 3)
CONTRACT = "a policy is a jittable policy(key, state, player) -> one integer action id"


def python_if(key, state, player):
    if state.phase == 0:  # a Python ``if`` on a traced value
        return jnp.int32(52)
    return jnp.argmax(state.legal_action_mask).astype(jnp.int32)


BAD = {
    "python-if": (python_if, "policy 'python_if' cannot be traced"),
    "int()": (lambda k, s, p: int(s.phase), "use jnp.where(cond, a, b) or jax.lax.cond"),
    "a pair": (lambda k, s, p: jnp.zeros(2, jnp.int32), "returned an array int32[2]"),
    "a float": (lambda k, s, p: jnp.float32(1.0), "returned an array float32[]"),
    "a bool": (lambda k, s, p: s.terminated, "returned an array bool[]"),
    "None": (lambda k, s, p: None, "returned None"),
}
RUNS = {
    "rollout": lambda pol: sf.rollout(0, ENV, pol, 8),
    "mixed seats": lambda pol: sf.rollout(0, ENV, [pol, "random", "heuristic"], 8),
    "evaluate": lambda pol: sf.evaluate(0, ENV, {"mine": pol, "random": "random"}, num_hands=4),
    "analyze": lambda pol: sf.analyze(0, ENV, ENV.init(0), num_samples=2, policy=pol),
}


# By default every wrong kind in a rollout, and in each other loop one that cannot be traced
# and one traced to the wrong output (the two ways the check is reached); -m slow: every pair.
DEFAULT = {("python-if", run) for run in RUNS} | {("a pair", run) for run in RUNS}


@pytest.mark.parametrize(
    ("bad", "run"),
    [
        pytest.param(
            bad,
            run,
            id=f"{bad}-{run}",
            marks=[] if run == "rollout" or (bad, run) in DEFAULT else pytest.mark.slow,
        )
        for run in RUNS
        for bad in BAD
    ],
)
def test_a_policy_of_the_wrong_kind_is_one_line_saying_what_a_policy_is(bad: str, run: str):
    policy, words = BAD[bad]
    with pytest.raises(ValueError) as e:
        RUNS[run](policy)
    text = str(e.value)
    assert words in text and CONTRACT in text and "\n" not in text, text


def test_policies_of_the_right_kind_still_play() -> None:
    def lowest(key, state, player):  # jnp.where, not a Python ``if``
        first = jnp.argmax(state.legal_action_mask)
        return jnp.where(state.phase == 0, first, first).astype(jnp.int32)

    out = sf.rollout(0, ENV, [lowest, lambda k, s, p: 0, "random"], 8)  # a constant: illegal
    assert out.rewards.shape == (8, 3)
