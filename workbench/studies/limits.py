"""Sizes a study may ask for. Far beyond any published audit, and small enough
that a typo (seeds = 1000000000) is refused instead of filling the memory."""

# The seeds' range is the engines' (workbench/engines/specs.py); a study's last seed (its seed plus
# its repetitions or prompts) must stay in it too: `last_seed_problem`.
from workbench.engines.specs import MAX_SEED  # noqa: F401  (studies import it from here)

MAX_REPETITIONS = 10_000


def last_seed_problem(seed: int, count: int, what: str) -> str | None:
    """Why a seed cannot start `count` consecutive seeds (one per `what`), or None."""
    last = seed + count - 1
    if last <= MAX_SEED:
        return None
    return (
        f"seed {seed:,} with {count:,} {what} would use seeds up to {last:,}, past {MAX_SEED:,} "
        f"(llama.cpp's range: 2^32 - 1); take a seed of at most {MAX_SEED - count + 1:,}"
    )


MAX_SEEDS = 10_000
MAX_PER_GROUP = 100_000
MAX_EXPERTS = 50
MAX_TOKENS = 1_000_000
MAX_TEMPERATURE = 10.0
# A prompt text a study writes (its system prompt, a question, the identity probe), in
# characters: some 25,000 tokens, far beyond any audit's prompts. Every request stores its
# prompt, so a 5 MB system prompt became 731 MB for 144 requests (and 50 MB never finished
# planning); refused at load instead, naming the key.
MAX_PROMPT_CHARS = 100_000


def check_last_seeds(where, seed: int, models: list, count: int, what: str) -> None:
    """Refuse (naming the key) a study seed, or a model's own `seed=`, that leaves no room for
    `count` consecutive seeds (one per repetition) within llama.cpp's range."""
    seeds = [(where.child("seed"), seed)]
    seeds += [
        (where.child("models").child(i), spec.options["seed"])
        for i, spec in enumerate(models)
        if isinstance(getattr(spec, "options", None), dict) and "seed" in spec.options
    ]
    for at, first in seeds:
        if why := last_seed_problem(first, count, what):
            raise at.error(why)
