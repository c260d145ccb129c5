"""A PettingZoo AEC environment: two agents, the action mask in the observation.

``player_0`` is South (moves first), ``player_1`` North. Each observation is a dict:
``"observation"`` holds the network's input features (float32, from the observing
player's view: his pits first) and ``"action_mask"`` (int8, 6) marks the legal actions,
all 0 for the agent not to move. The reward at the end is +1 / 0 / -1 (win, draw, loss).
An illegal action raises ``ValueError``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ._oware_zero import Game, Position

_ENCODING_DIMS = {"onehot": 354, "counts": 14}


def _view_of(position: Position, player: int) -> Position:
    """The same pits and stores with ``player`` to move: the encodings are mover-relative."""
    text = str(position)
    return Position(text[:-1] + ("S" if player == 0 else "N"))


class OwareAECEnv(AECEnv):
    """Oware for two agents under ``rules`` (any of ``oware_zero.RULE_SETS``)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "oware_v0", "is_parallelizable": False}

    def __init__(self, rules: str = "abapa", encoding: str = "onehot", render_mode: str | None = None):
        super().__init__()
        if encoding not in _ENCODING_DIMS:
            raise ValueError(f"unknown encoding '{encoding}': expected counts or onehot")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode '{render_mode}': expected ansi or human")
        Game(rules)  # checks the rule set's name
        self.rules = rules
        self.encoding = encoding
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        dim = _ENCODING_DIMS[encoding]
        self._observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, shape=(dim,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(6,), dtype=np.int8),
            })
            for a in self.possible_agents
        }
        self._action_spaces = {a: spaces.Discrete(6) for a in self.possible_agents}
        self.game = Game(rules)

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def observe(self, agent):
        player = self.possible_agents.index(agent)
        features = _view_of(self.game.position, player).encode(self.encoding)
        mask = np.zeros(6, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self.game.legal_moves()] = 1
        return {"observation": features, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None):
        # The game has no chance: `seed` only matters to the caller's action sampling.
        self.game = Game(self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_play]

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.game.play(int(action))
        self.rewards = {a: 0 for a in self.agents}
        if self.game.is_over:
            returns = self.game.outcome.returns
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = returns[i]
            self.terminations = {a: True for a in self.agents}
        # The mover moves again when the opponent was left without seeds (ouril).
        self.agent_selection = self.possible_agents[self.game.to_play]
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def render(self):
        text = self.game.position.diagram()
        return text if self.render_mode != "human" else text

    def close(self):
        pass


def env(**kwargs) -> OwareAECEnv:
    """The AEC environment (keyword arguments as ``OwareAECEnv``)."""
    return OwareAECEnv(**kwargs)
