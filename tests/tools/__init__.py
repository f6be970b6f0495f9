"""The generic tools (rollout, scorer, tournaments, pimc, conformance), written once for every
game."""
