"""What is built on scores: breakdowns, per-turn explanations, the self-check, held-out domains."""
