"""Positions from text (placeholder, filled in below)."""
