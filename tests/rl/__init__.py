"""The RL layer: PPO, saved agents, PettingZoo."""
