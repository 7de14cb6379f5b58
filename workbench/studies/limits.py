"""Sizes a study may ask for. Far beyond any published audit, and small enough
that a typo (seeds = 1000000000) is refused instead of filling the memory."""

MAX_REPETITIONS = 10_000
# Seeds: from 0 (llama.cpp reads -1 as "a random seed", which would make answers unrepeatable)
# to 2^53 - 1, so a seed plus a repetition or prompt index stays exact in JSON and in SQLite's
# 64-bit integers (a seed of 2^63 - 1 overflowed the store at its second repetition).
MAX_SEED = 2**53 - 1
MAX_SEEDS = 10_000
MAX_PER_GROUP = 100_000
MAX_EXPERTS = 50
MAX_TOKENS = 1_000_000
MAX_TEMPERATURE = 10.0
