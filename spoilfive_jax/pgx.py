"""Every registered game as a real ``pgx.Env`` (the ``pgx`` extra: ``pip install
'spoilfive-jax[pgx]'``).

``make(game_id, **table)`` takes the arguments of ``spoilfive_jax.make`` (``num_players``,
``rules`` or rule options as keywords) and returns a ``CardGameEnv``, a subclass of
``pgx.Env``; its states are ``State``, a subclass of ``pgx.State``.  One episode is one hand,
dealt by a seat drawn from the key.  What a pgx pipeline reads is there: ``current_player``,
``observation`` (the view of the seat to act), ``rewards``, ``terminated``, ``truncated``,
``legal_action_mask``, ``_step_count`` and ``env_id``, with pgx's own ``init``, ``step`` and
``observe`` (``pgx.Env``'s methods, not rewritten here), so ``pgx.experimental.auto_reset`` and
pgx's ``api_test`` checks run on these environments as on pgx's games.

Where pgx's conventions and the games' differ (``docs/pgx.md`` has the details):

- **The seat at the end.**  A game's ``current_player`` is -1 once the hand is over; pgx asks
  for a valid seat at every step, so ``State.current_player`` keeps the seat that took the last
  action (and ``observation`` is that seat's view).  ``terminated`` tells that the hand is over.
- **Illegal actions.**  pgx ends the episode and charges the actor a penalty of its own; here
  the game's step has already ended the hand with the rules' penalty (``illegal_penalty``) and
  set ``state.hand.illegal``, and the adapter keeps that outcome.
- **Rewards** are the game's: chips in Spoil Five, a team's hand points in the Forty-Five
  family (partners get equal rewards), in those units (``reward_bounds``), not pgx's -1..1.

The game's own state is ``state.hand`` (a private field, so pgx's fixed list of public state
fields holds) and the game's table ``env.table``: any other seat's view is
``env.table.observe(state.hand, seat)``.  ``state.to_svg()`` draws one hand or a batch.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pgx
from pgx._src.struct import dataclass, field
from pgx._src.visualizer import global_config

from spoilfive_jax.core import capabilities as caps
from spoilfive_jax.core.bits import members
from spoilfive_jax.core.env import Env, R, S, action_id
from spoilfive_jax.core.validate import as_key
from spoilfive_jax.registry import make as make_table

__all__ = ["VERSION", "CardGameEnv", "State", "make"]

VERSION = "v0"
"""``env.version`` of every game here: raised when what the adapter does changes (a game's
rules and observations change with the package's own version)."""


@dataclass
class State(pgx.State):
    """A pgx state of one hand: pgx's fields, then the game's own state (``hand``) and table.

    ``current_player`` int32[] (the last actor once the hand is over), ``observation``
    float32[D] (the view of ``current_player``), ``rewards`` float32[N] (on the step that ends
    the hand), ``terminated`` / ``truncated`` bool[] (never truncated), ``legal_action_mask``
    bool[A] (all True once over, as in pgx), ``_step_count`` int32[] (steps taken)."""

    _hand: Any
    _table: Env[Any, Any] = field(pytree_node=False)

    @property
    def env_id(self) -> str:
        """The game's registry id (``spoilfive_jax.available_games()``)."""
        return self._table.id

    @property
    def hand(self) -> Any:
        """The game's own state (``spoilfive_jax.make(env_id).step`` takes it)."""
        return self._hand

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """An SVG picture of the hand with every card face up (a batch: one panel a hand, in a
        grid): the game's own picture where it has one (``Rendering``), else its state in text.
        ``color_theme`` ``"light"``/``"dark"`` and ``scale`` default to pgx's
        ``set_visualization_config``; a game's own picture keeps its colours."""
        return render_svg(self, color_theme=color_theme, scale=scale)

    def save_svg(
        self, filename: str | Path, *, color_theme: str | None = None, scale: float | None = None
    ) -> None:
        """Write ``to_svg`` to ``filename``, which must end with ``.svg``."""
        if not str(filename).endswith(".svg"):
            raise ValueError(f"save_svg writes an .svg file, got {str(filename)!r}")
        svg = self.to_svg(color_theme=color_theme, scale=scale)
        Path(filename).write_text(svg, encoding="utf-8")


class CardGameEnv(pgx.Env):
    """A game's table (a ``spoilfive_jax.Env``) as a ``pgx.Env``; ``make`` builds one by id."""

    def __init__(self, table: Env[Any, Any]) -> None:
        super().__init__()
        if not isinstance(table, Env):
            raise ValueError(
                f"CardGameEnv wraps a spoilfive_jax.Env (spoilfive_jax.make(...)), "
                f"got {type(table).__name__}"
            )
        self.table = table

    def __repr__(self) -> str:
        return f"CardGameEnv({self.table!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardGameEnv) and other.table == self.table

    def __hash__(self) -> int:
        return hash((CardGameEnv, self.table))

    @property
    def id(self) -> str:
        return self.table.id

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        return self.table.num_players

    @property
    def num_actions(self) -> int:
        return int(self.table.num_actions)

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return tuple(self.table.observation_shape)

    def init(self, key: jax.Array) -> State:
        """pgx's ``init``, ``key`` checked first: a PRNG key or an int seed, else a
        ``ValueError`` (``core.validate.as_key``)."""
        return super().init(as_key(key))

    def step(self, state: State, action: Any, key: jax.Array | None = None) -> State:
        """pgx's ``step``, its input checked first (in Python, when called or traced): one
        state of this table and one integer action id, else a ``ValueError`` naming the
        problem (a batch: ``jax.vmap(env.step)``).  An id outside ``0..A-1`` is an illegal
        action, as in the games."""
        if not isinstance(state, State) or state._table != self.table:
            kind = f"a {type(state).__module__}.{type(state).__qualname__}"
            got = f"a state of {state._table!r}" if isinstance(state, State) else kind
            raise ValueError(f"step takes a state of {self.table!r}, got {got}")
        if np.ndim(state.current_player) != 0:
            raise ValueError(
                f"step takes one state, not a batch of shape {np.shape(state.current_player)}; "
                "use jax.vmap(env.step)"
            )
        return super().step(state, action_id(self.table, action), key)

    def _init(self, key: jax.Array) -> State:
        dealer_key, deal_key = jax.random.split(key)
        dealer = jax.random.randint(dealer_key, (), 0, self.num_players, jnp.int32)
        hand = self.table.init(deal_key, dealer)
        return self._wrap(hand, jnp.int32(0), jnp.int32(0))

    def _step(self, state: State, action: jax.Array, key: jax.Array | None) -> State:
        del key  # a hand has no chance events after the deal
        hand = self.table.step(state._hand, jnp.asarray(action, jnp.int32))
        return self._wrap(hand, state._step_count, state.current_player)

    def _observe(self, state: State, player_id: jax.Array) -> jax.Array:
        return self.table.observe(state._hand, player_id)

    def _step_with_illegal_action(self, state: State, loser: jax.Array) -> State:
        """The game's step has already ended the hand with the rules' penalty for the actor
        (``state.hand.illegal``): that outcome stands, in place of pgx's own penalty."""
        del loser
        return state

    def _wrap(self, hand: Any, step_count: jax.Array, last_player: jax.Array) -> State:
        seat = jnp.asarray(hand.current_player, jnp.int32)
        return State(
            current_player=jnp.where(seat >= 0, seat, last_player).astype(jnp.int32),
            observation=jnp.zeros(self.observation_shape, jnp.float32),  # set by pgx's init/step
            rewards=jnp.asarray(hand.rewards, jnp.float32),
            terminated=jnp.asarray(hand.terminated, jnp.bool_),
            truncated=jnp.asarray(hand.truncated, jnp.bool_),
            legal_action_mask=jnp.asarray(hand.legal_action_mask, jnp.bool_),
            _step_count=jnp.asarray(step_count, jnp.int32),
            _hand=hand,
            _table=self.table,
        )


def make(game_id: str, **table: Any) -> CardGameEnv:
    """The pgx environment of ``game_id`` (``spoilfive_jax.available_games()``, plugins too).

    ``table``: the keywords of ``spoilfive_jax.make`` (``num_players=``, ``rules=`` or rule
    options such as ``renege="led"``).  An unknown id, table size or option is a
    ``ValueError`` naming it."""
    return CardGameEnv(make_table(game_id, **table))


# ---------------------------------------------------------------------------- pictures

_THEMES = {"light": ("white", "black", "#555555"), "dark": ("#1e1e1e", "#dddddd", "#999999")}
_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"')


def render_svg(state: State, *, color_theme: str | None = None, scale: float | None = None) -> str:
    """``State.to_svg``: one hand's picture, or a grid of a batch's (any leading axes)."""
    theme = global_config.color_theme if color_theme is None else color_theme
    if theme not in _THEMES:
        raise ValueError(f"color_theme must be 'light' or 'dark', got {theme!r}")
    factor = float(global_config.scale if scale is None else scale)
    if not factor > 0:
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    batch = np.shape(state.current_player)
    count = int(np.prod(batch)) if batch else 1
    flat = jax.tree.map(
        lambda x: np.reshape(np.asarray(x), (count, *np.shape(x)[len(batch) :])), state
    )
    panels = [
        _hand_svg(state._table, jax.tree.map(lambda x, i=i: x[i], flat._hand), theme)
        for i in range(count)
    ]
    return _grid(panels, theme, factor)


def _hand_svg(table: Env[S, R], hand: Any, theme: str) -> str:
    """One hand: the game's own picture (``Rendering``), else its state as lines of text."""
    rendering = caps.declared(table, caps.Rendering)
    if rendering is not None:
        return rendering.render_svg(table, hand)
    return _text_svg(_hand_lines(table, hand), theme)


def _hand_lines(table: Env[S, R], hand: Any) -> list[str]:
    """A hand for people: the game and table, its state text, each seat's cards, the rewards."""
    shown = table.capability(caps.Presentation, "pgx pictures")
    lines = [f"{shown.title(table)} · {shown.table_text(table)}"]
    lines += table.capability(caps.AgentInfo, "pgx pictures").state_text(table, hand).splitlines()
    held = getattr(hand, "hands", None)
    if held is not None and hasattr(held, "lo") and hasattr(held, "hi"):
        lo, hi = np.asarray(held.lo), np.asarray(held.hi)
        for seat in range(table.num_players):
            cards = " ".join(table.action_str(c) for c in members(lo[seat], hi[seat]))
            lines.append(f"seat {seat}: {cards or '-'}")
    if bool(hand.terminated):
        lines.append(f"over · rewards {np.asarray(hand.rewards).tolist()}")
    return lines


def _text_svg(lines: list[str], theme: str) -> str:
    back, ink, _ = _THEMES[theme]
    width = 24 + 8 * max(len(line) for line in lines)
    height = 16 + 20 * len(lines)
    rows = [
        f'<text x="12" y="{26 + 20 * i}" fill="{ink}">{html.escape(line)}</text>'
        for i, line in enumerate(lines)
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans Mono, monospace" '
        f'font-size="13"><rect width="{width}" height="{height}" fill="{back}"/>'
        + "".join(rows)
        + "</svg>"
    )


def _grid(panels: list[str], theme: str, factor: float) -> str:
    """The panels side by side in a near-square grid, each as a nested ``<svg>``."""
    sizes = []
    for panel in panels:
        found = _SIZE.match(panel)
        if found is None:
            raise ValueError("a game's render_svg must start with <svg width=... height=...>")
        sizes.append((float(found[1]), float(found[2])))
    columns = int(np.ceil(np.sqrt(len(panels))))
    cell_w, cell_h = max(w for w, _ in sizes) + 8, max(h for _, h in sizes) + 8
    rows = -(-len(panels) // columns)
    width, height = columns * cell_w, rows * cell_h
    back, _, edge = _THEMES[theme]
    inner = []
    for i, panel in enumerate(panels):
        x, y = (i % columns) * cell_w + 4, (i // columns) * cell_h + 4
        inner.append(panel.replace("<svg", f'<svg x="{x:g}" y="{y:g}"', 1))
        if len(panels) > 1:
            inner.append(
                f'<rect x="{x - 4:g}" y="{y - 4:g}" width="{cell_w:g}" height="{cell_h:g}" '
                f'fill="none" stroke="{edge}"/>'
            )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * factor:g}" '
        f'height="{height * factor:g}" viewBox="0 0 {width:g} {height:g}">'
        f'<rect width="{width:g}" height="{height:g}" fill="{back}"/>' + "".join(inner) + "</svg>"
    )
