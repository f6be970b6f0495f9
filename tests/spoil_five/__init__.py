"""Spoil Five: its rules, state, observations, rendering, analysis and rollout kernel."""
