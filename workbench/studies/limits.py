"""Sizes a study may ask for. Far beyond any published audit, and small enough
that a typo (seeds = 1000000000) is refused instead of filling the memory."""

MAX_REPETITIONS = 10_000
MAX_SEEDS = 10_000
MAX_PER_GROUP = 100_000
MAX_EXPERTS = 50
MAX_TOKENS = 1_000_000
MAX_TEMPERATURE = 10.0
