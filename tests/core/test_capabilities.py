"""The small core Env, its declared capabilities and the open registry."""

from __future__ import annotations

import ast
import inspect
import types
import warnings
from collections.abc import Mapping
from typing import ClassVar

import jax
import numpy as np
import pytest

import spoilfive_jax as sf
from spoilfive_jax import registry
from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core import env as core_env
from spoilfive_jax.core import generic
from spoilfive_jax.games.spoil_five import infer, rollouts


def _members(cls: type) -> list[str]:
    """What a class body defines (dunders aside), and the attributes ``__init__`` sets."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    names = []
    for node in body:
        if isinstance(node, ast.FunctionDef):
            names.append(node.name)
            if node.name == "__init__":
                names += [
                    t.attr
                    for sub in ast.walk(node)
                    if isinstance(sub, (ast.Assign, ast.AnnAssign))
                    for t in (sub.targets if isinstance(sub, ast.Assign) else [sub.target])
                    if isinstance(t, ast.Attribute)
                ]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]


def test_the_core_env_is_small() -> None:
    members = _members(sf.Env)
    # 24, and what a seat knows written once: information_state (its string, its shape),
    # observe_public, observe_private (the game's side is the Knowledge capability)
    assert len(members) <= 29, members
    assert "capability" in members and "capabilities" in members


def test_a_game_need_not_write_its_observation_shapes_or_full_view() -> None:
    """``observation_shape``, ``full_observation_shape`` and ``observe_full`` have defaults
    (the shapes read off a deal by ``jax.eval_shape``; every seat's ``observe`` side by side):
    the tiny test game writes none of them, and the derived shapes are every registered game's
    own declared ones."""
    from tests.tiny_game import HighCard

    abstract = sf.Env.__abstractmethods__
    assert not {"observation_shape", "full_observation_shape", "observe_full"} & abstract
    env = HighCard(3)
    assert not {"observation_shape", "full_observation_shape", "observe_full"} & set(vars(HighCard))
    state = env.init(jax.random.PRNGKey(1))
    seats = [np.asarray(env.observe(state, p)) for p in range(3)]
    full = np.asarray(env.observe_full(state))
    assert env.observation_shape == seats[0].shape and full.dtype == np.float32
    np.testing.assert_array_equal(full, np.concatenate(seats))
    assert env.full_observation_shape == full.shape == (3 * seats[0].size,)
    for game in sf.available_games():
        own = sf.make(game)
        derived = (core_env._shape_of(own, "observe"), core_env._shape_of(own, "observe_full"))
        assert derived == (own.observation_shape, own.full_observation_shape), game


def test_no_module_is_found_by_name() -> None:
    # only the registry's entry-point discovery loads code by name
    import pathlib

    root = pathlib.Path(sf.__file__).parent
    hits = [p for p in root.rglob("*.py") if "import_module" in p.read_text(encoding="utf-8")]
    assert hits == [], hits


def test_a_missing_capability_is_one_error_naming_game_and_capability() -> None:
    env = sf.make("spoil_five", 3)

    class Bare(type(env)):  # type: ignore[misc]
        capabilities: ClassVar[Mapping[type, object]] = dict(sf.Env.capabilities)

    bare = Bare(3)
    with pytest.raises(caps.MissingCapability, match="does not declare the HandScoring") as e:
        sf.score_hands(0, [[0, 1, 2, 3, 4]], 5, 1, env=bare, num_rollouts=4)
    assert "score_hands" in str(e.value) and isinstance(e.value, ValueError)
    with pytest.raises(ValueError, match=r"Analysis capability \(analyze needs it\)"):
        sf.analyze(0, bare, bare.init(np.zeros(2, np.uint32)))
    with pytest.raises(ValueError, match="Sessions"):
        sf.play_sessions(0, bare, "random", 2)
    # the base's own capabilities still serve it: rollouts through the public step
    assert sf.rollout(0, bare, "random", num_hands=8).num_hands == 8


def test_a_misspelt_implementation_is_refused_when_the_class_is_defined() -> None:
    broken = types.SimpleNamespace(**{n: getattr(infer, n) for n in caps.members(caps.Analysis)})
    del broken.playout
    broken.play_out = infer.playout
    with pytest.raises(TypeError, match="lacks playout"):

        class Broken(sf.spoil_five.SpoilFive):
            capabilities: ClassVar[Mapping[type, object]] = {
                **sf.spoil_five.SpoilFive.capabilities,
                caps.Analysis: broken,
            }

    class WrongArity:
        def score_unit(self) -> str:  # the env is missing
            return "chips"

    with pytest.raises(TypeError):
        caps.check_implementation("test", caps.Rollouts, WrongArity())

    class Extra:
        observation_low = staticmethod(generic.observation_low)
        final_info = staticmethod(generic.final_info)
        state_text = staticmethod(generic.state_text)

        def final_infos(self) -> None:  # misspelt: would leave the inherited one in force
            pass

    with pytest.raises(TypeError, match="final_infos"):
        caps.check_implementation("test", caps.AgentInfo, Extra())
    with pytest.raises(TypeError, match="not a capability"):
        caps.check_implementation("test", dict, rollouts)


def test_declared_capabilities_of_the_games() -> None:
    sf5 = type(sf.make("spoil_five"))
    family = type(sf.make("forty_five"))
    assert set(sf5.capabilities) == set(caps.CAPABILITIES) - {caps.Inference}
    assert set(family.capabilities) == set(caps.CAPABILITIES) - {caps.Rendering}
    env = sf.make("twenty_five")
    assert env.capability(caps.Rollouts).score_unit(env) == "points"
    assert sf.make("spoil_five").capability(caps.Rollouts) is rollouts


def test_register_a_game_and_remove_it() -> None:
    def factory(num_players=None, rules=None, **options):
        return sf.spoil_five.SpoilFive(3 if num_players is None else num_players, rules)

    with pytest.raises(ValueError, match="taken"):
        sf.register("spoil_five", factory)
    with pytest.raises(ValueError, match="identifier"):
        sf.register("my game", factory)
    with pytest.raises(ValueError, match=r"not a spoilfive_jax\.Env"):
        sf.register("thing", dict)
    with pytest.raises(ValueError, match="no preset"):
        sf.register("thing", sf.forty_five.FortyFive, preset="nope")
    sf.register("three_handed", factory)
    try:
        assert "three_handed" in sf.available_games()
        # the factory's env says it is spoil_five: make refuses the mismatch, naming both
        with pytest.raises(ValueError, match=r"spoil_five.*three_handed"):
            sf.make("three_handed")
    finally:
        sf.unregister("three_handed")
    assert "three_handed" not in sf.available_games()
    with pytest.raises(ValueError, match="unknown game"):
        sf.unregister("three_handed")


def test_plugins_come_from_the_entry_point_group(monkeypatch: pytest.MonkeyPatch) -> None:
    class Plugin(sf.spoil_five.SpoilFive):
        @property
        def id(self) -> str:
            return "plugin_five"

    class Point:
        name, value = "plugin_five", "some_package:Plugin"

        def load(self) -> type:
            return Plugin

    seen: list[str] = []

    def entry_points(group: str) -> list[Point]:
        seen.append(group)
        return [Point()]

    monkeypatch.setattr(registry, "entry_points", entry_points)
    monkeypatch.setattr(registry, "_discovered", False)
    try:
        assert "plugin_five" in sf.available_games() and seen == ["spoilfive_jax.games"]
        env = sf.make("plugin_five", 4)
        assert isinstance(env, Plugin) and env.id == "plugin_five"
        sf.testing.api_test(env, 4, no_jit=False, capabilities=False)  # (its game: conformance)
        assert sf.rollout(0, env, "heuristic", num_hands=8).game == "plugin_five"
    finally:
        sf.unregister("plugin_five")


def test_a_broken_plugin_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    class Point:
        name, value = "broken_game", "nowhere:Nothing"

        def load(self) -> type:
            raise ModuleNotFoundError("No module named 'nowhere'")

    monkeypatch.setattr(registry, "entry_points", lambda group: [Point()])
    monkeypatch.setattr(registry, "_discovered", False)
    with pytest.warns(RuntimeWarning, match="broken_game = nowhere:Nothing failed to load"):
        games = sf.available_games()
    assert "broken_game" not in games and "spoil_five" in games
    with pytest.raises(ValueError, match="unknown game 'broken_game'"):
        sf.make("broken_game")


def test_old_top_level_names_warn_and_still_work() -> None:
    with pytest.warns(DeprecationWarning, match="spoilfive_jax.spoil_five.State"):
        state_cls = sf.State  # type: ignore[attr-defined]
    assert state_cls is sf.spoil_five.State
    with pytest.warns(DeprecationWarning, match="forty_five.FortyFive"):
        assert sf.FortyFive is sf.forty_five.FortyFive  # type: ignore[attr-defined]
    with pytest.warns(DeprecationWarning):
        assert sf.observe is sf.spoil_five.observe.observe  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = sf.no_such_name  # type: ignore[attr-defined]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in sf.__all__:  # the generic names do not warn
            getattr(sf, name)
    game_specific = {"State", "PASS", "JINK", "CLAIM", "SpoilFive", "FortyFive", "NUM_ACTIONS"}
    assert not game_specific & set(sf.__all__)


def test_results_speak_generically() -> None:
    res = sf.evaluate(0, sf.make("forty_five"), {"a": "random", "b": "random"}, num_hands=8)
    assert res.unit == "points" and res.mean_reward.shape == (2,)
    with pytest.warns(DeprecationWarning, match="mean_reward"):
        np.testing.assert_array_equal(res.mean_chips, res.mean_reward)
    env = sf.make("spoil_five", 3)
    state = env.init(np.zeros(2, np.uint32))
    res = sf.analyze(0, env, state, num_samples=4)
    assert res.labels == {"expected_chips": "chips", "win_prob": "win %", "spoil_prob": "spoil %"}
    out = sf.rollout(0, sf.make("forty_five"), "random", num_hands=4)
    assert "winner" not in out.fields and "carried_out" not in out.fields
    with pytest.warns(DeprecationWarning, match="env="):
        sf.score_hands(0, [[0, 1, 2, 3, 4]], 5, 1, num_rollouts=4)


def test_the_step_is_written_once() -> None:
    env = sf.make("spoil_five", 3)
    state = env.init(np.zeros(2, np.uint32))
    a = int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])
    via_env = env.step(state, a)
    by_hand = core_env.transition(env, state, np.int32(a))
    for x, y in zip(jax.tree.leaves(via_env), jax.tree.leaves(by_hand), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.parametrize(
    "package,old,new",
    [
        ("spoil_five", "provider", "rollouts"),
        ("spoil_five", "report", "presentation"),
        ("forty_five", "provider", "rollouts"),
        ("forty_five", "games", "session"),
        ("forty_five", "report", "presentation"),
    ],
)
def test_a_game_modules_old_name_is_the_renamed_module_with_a_warning(package, old, new):
    """Each game module is named for the capabilities it holds; the old names still reach it,
    deprecated (the suite makes the warning an error, so it is caught here)."""
    from spoilfive_jax.core.deprecation import SpoilFiveDeprecationWarning

    games = getattr(sf, package)
    with pytest.warns(SpoilFiveDeprecationWarning, match=f"{package}.{old} is now .*{new}"):
        assert getattr(games, old) is getattr(games, new)
    with pytest.raises(AttributeError, match="no attribute 'fast_play_out'"):
        games.fast_play_out  # noqa: B018


def test_a_game_overrides_one_member_of_a_default_by_naming_it_alone() -> None:
    """``caps.override``: the base's members with the named ones replaced, checked when the
    game's class is defined like any implementation; a misspelt or missing member is a
    ``ValueError`` saying which."""
    from spoilfive_jax.core import plain
    from tests.tiny_game import BareHighCard

    def title(env: sf.Env) -> str:
        return "High Card, highest wins"

    class Titled(BareHighCard):
        capabilities: ClassVar[Mapping[type, object]] = {
            **BareHighCard.capabilities,
            caps.Presentation: caps.override(caps.Presentation, plain, title=title),
        }

    env = Titled(3)
    shown = env.capability(caps.Presentation)
    assert shown.title(env) == "High Card, highest wins"
    assert shown.table_text(env) == plain.table_text(env) == "3 players"  # the rest: plain's
    assert shown.rules_in_force is plain.rules_in_force
    assert "Presentation of spoilfive_jax.core.plain, with its own title" in repr(shown)
    caps.check_implementation("titled", caps.Presentation, shown)

    with pytest.raises(ValueError, match=r"no member 'titel'; its members: title, "):
        caps.override(caps.Presentation, plain, titel=title)
    with pytest.raises(ValueError, match=r"Presentation\.title must be callable"):
        caps.override(caps.Presentation, plain, title="High Card")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lacks Rollouts's score_unit"):
        caps.override(caps.Rollouts, plain)
    with pytest.raises(ValueError, match="not a capability"):
        caps.override(dict, plain)
    # a base of the game's own is overridden the same way, and the result can be again
    once = caps.override(caps.Rollouts, generic, score_unit=lambda env: "tricks")
    twice = caps.override(caps.Rollouts, once, outcome=generic.outcome)
    assert twice.score_unit(env) == "tricks" and twice.hand_keys is generic.hand_keys
    # an optional member a tool reads with getattr is the base's too (Twenty-Five's
    # DeckDeals.utility_sum makes its OpenSpiel game constant-sum)
    from spoilfive_jax.games.forty_five import deck_deals

    dealt = caps.override(caps.DeckDeals, deck_deals, deck_size=deck_deals.deck_size)
    assert dealt.utility_sum is deck_deals.utility_sum
    with pytest.raises(AttributeError):
        dealt.no_such_member  # noqa: B018
