"""The per-turn diff and tally, the figures' formulas and their registry."""
