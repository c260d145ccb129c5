"""A Gymnasium single-agent environment: one side against a built-in opponent.

Registered as ``oware_zero/Oware-v0`` when ``oware_zero`` is imported with gymnasium
installed. The agent plays ``agent_side`` (0 South, who moves first; 1 North; or
"random", drawn at each reset); the opponent answers inside ``step``. The observation
is the network's input features from the agent's view (float32); ``info["action_mask"]``
(int8, 6) marks the legal actions. The reward is +1 / 0 / -1 at the end of the game,
0 before. An illegal action, or a step after the end without ``reset``, raises
``ValueError``.

Opponents: ``"random"`` (uniform over the legal moves, from the environment's seeded
generator), ``"alphabeta:N"`` (the engine's alpha-beta at depth N), or any callable
taking a ``Game`` and returning an action.
"""

from __future__ import annotations

from typing import Callable, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ._oware_zero import Game
from .pettingzoo_env import _ENCODING_DIMS, _view_of

Opponent = Union[str, Callable[[Game], int]]


class OwareEnv(gym.Env):
    """Oware against a built-in opponent."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        opponent: Opponent = "random",
        rules: str = "abapa",
        agent_side: Union[int, str] = 0,
        encoding: str = "onehot",
        render_mode: str | None = None,
    ):
        if encoding not in _ENCODING_DIMS:
            raise ValueError(f"unknown encoding '{encoding}': expected counts or onehot")
        if agent_side not in (0, 1, "random"):
            raise ValueError(f"agent_side must be 0, 1 or 'random', got {agent_side!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode '{render_mode}': expected ansi")
        Game(rules)  # checks the rule set's name
        self.rules = rules
        self.encoding = encoding
        self.agent_side_option = agent_side
        self.render_mode = render_mode
        self._opponent = _make_opponent(opponent, rules)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(_ENCODING_DIMS[encoding],), dtype=np.float32)
        self.action_space = spaces.Discrete(6)
        self.game: Game | None = None
        self.agent_side = 0

    def _observation(self):
        return _view_of(self.game.position, self.agent_side).encode(self.encoding)

    def _info(self):
        mask = np.zeros(6, dtype=np.int8)
        if not self.game.is_over and self.game.to_play == self.agent_side:
            mask[self.game.legal_moves()] = 1
        info = {"action_mask": mask, "position": str(self.game.position)}
        if self.game.is_over:
            info["final_scores"] = self.game.outcome.scores
        return info

    def _opponent_moves(self):
        while not self.game.is_over and self.game.to_play != self.agent_side:
            self.game.play(int(self._opponent(self.game, self.np_random)))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.agent_side_option == "random":
            self.agent_side = int(self.np_random.integers(2))
        else:
            self.agent_side = self.agent_side_option
        self.game = Game(self.rules)
        self._opponent_moves()
        return self._observation(), self._info()

    def step(self, action):
        if self.game is None:
            raise ValueError("step() before reset(): call reset() first")
        if self.game.is_over:
            raise ValueError("the game is over: call reset() before stepping again")
        self.game.play(int(action))
        self._opponent_moves()
        reward = 0.0
        if self.game.is_over:
            reward = float(self.game.outcome.returns[self.agent_side])
        return self._observation(), reward, self.game.is_over, False, self._info()

    def render(self):
        if self.game is None:
            return None
        return self.game.position.diagram()


def _random_opponent(game: Game, rng: np.random.Generator) -> int:
    moves = game.legal_moves()
    return moves[int(rng.integers(len(moves)))]


def _make_opponent(opponent: Opponent, rules: str):
    if callable(opponent):
        return lambda game, rng: opponent(game)
    if opponent == "random":
        return _random_opponent
    if isinstance(opponent, str) and opponent.startswith("alphabeta:"):
        try:
            depth = int(opponent.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"opponent '{opponent}': expected alphabeta:DEPTH with an integer depth") from None
        from . import alphabeta

        return lambda game, rng: alphabeta(game, depth=depth).move
    raise ValueError(f"unknown opponent {opponent!r}: expected 'random', 'alphabeta:N' or a callable")
