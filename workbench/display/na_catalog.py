"""The catalog of why a number is n/a: every reason the metrics and `workbench compare` give,
each with how it reads in a cell, the pattern that recognises its text, its cause and its remedy.
workbench/display/na_reasons.py reads it; docs/methods.md ("When a number is n/a") lists the same rows,
and a test holds the two together."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reason:
    key: str  # stable: the docs table and the tests name it
    shown: str  # how it reads where the number would be (a pattern's words in capitals)
    pattern: str  # a regular expression matching the reason's text from its start
    cause: str
    remedy: str


REASONS: tuple[Reason, ...] = (
    # ChoiceEval: the log-odds, its test and its interval (methods/choice/logodds.py)
    Reason(
        "no-lists",
        "no answers",
        r"no answers$",
        "the topic has no ranked list of this model: its answers are not in yet, or none was extracted",
        "finish the run (`workbench run STUDY.toml` resumes) or `workbench import mentions FILE.csv`",
    ),
    Reason(
        "no-regions",
        "no regions imported",
        r"no regions imported",
        "no entity in the store has a region, so no slot belongs to either region",
        "give entities regions: `workbench import entities FILE.csv` (columns name, region) or "
        "`workbench entities region NAME --region REGION`",
    ),
    Reason(
        "rare-regions",
        "the entities with a region are each in fewer than 5% of the answers",
        r"the entities with a region are each in fewer than",
        "the entities that have a region are too rare to count: the log-odds counts only those in "
        "`[metrics] min_share` of the answers",
        "give regions to the names most often named (`workbench entities list`), or lower `min_share`",
    ),
    Reason(
        "unmatched-names",
        "no extracted name has a region: top unmatched names: ...",
        r"no extracted name has a region",
        "regions were imported, but none of the names the answers gave is among them",
        "give the names listed a region (`workbench entities region NAME --region REGION`), or merge "
        "their spellings into entities that have one (`workbench entities merge`)",
    ),
    Reason(
        "no-slot-either",
        "no slot of either region",
        r"no slot of either region",
        "no answer named an entity of either region of the pair",
        "a finding, not a fault: the model named neither; check the named entities' regions "
        "(`workbench entities list`) or compare other regions (`[metrics] region_pairs`)",
    ),
    Reason(
        "no-slot-one",
        "no REGION slot: N vs 0 slots",
        r"no (?!cluster )(?!slot of either).+ slot: \d+ vs \d+ slots",
        "the answers named entities of one region of the pair and never one of the other: a ratio "
        "against no slot would be the smoothing's, not the model's",
        "more answers (`repetitions`, more questions), or `--convention original`, which counts a "
        "missing region as 0.5",
    ),
    Reason(
        "no-shared-cluster",
        "no cluster has slots of both regions: N vs M slots",
        r"no cluster has slots of both regions",
        "both regions were named, but never within one cluster, and the log-odds is taken per cluster",
        "more answers per cluster (`repetitions`, more questions per cluster), or `--convention original`",
    ),
    Reason(
        "few-clusters",
        "only K of N clusters has slots of both regions",
        r"only \d+ of \d+ clusters? ha(s|ve) slots of both regions",
        "a mean over clusters needs two clusters with a log-odds (one cluster's would speak for it "
        "alone; its own value is in the per-cluster rows), and the paper's t-test over clusters two "
        "as well; the others have no slot of one region",
        "more answers per cluster (`repetitions`, more questions), or `--convention original`",
    ),
    Reason(
        "no-unit-spread",
        "no spread between questions",
        r"no spread between (questions|answers)",
        "every question (answer) moves the log-odds alike, so the spread of another draw of them "
        "cannot be read from these: an interval would be zero-width, a claim of certainty",
        "more questions per cluster; a log-odds from identical questions is read as it is, without an interval or p",
    ),
    Reason(
        "few-slots",
        "N REGION slots, fewer than 5",
        r"\d+ .+ slots, fewer than \d+$",
        "the log-odds' interval and test rest on a handful of one region's slots in the clusters that carry it (Cochran's rule of "
        "five for counts): 1 slot against 1 in two clusters read 0.00 [-8.47, 8.47]",
        "more answers where the rarer region is named (`repetitions`, more questions)",
    ),
    Reason(
        "one-repetition",
        "one repetition: stability needs two or more",
        r"one repetition",
        "stability compares repetitions of the same questions, and there is one",
        "`repetitions = 2` or more in the study file; `workbench run` then asks only the new ones",
    ),
    Reason(
        "no-entity-named",
        "no answer named an entity",
        r"no answer named an entity",
        "every list of this model and topic is empty: no answer named anything the extraction kept",
        "read the answers and their lists (`workbench review`); ask for names in the questions, or "
        'extract with `[extraction] method = "gazetteer"`',
    ),
    Reason(
        "one-entity-named",
        "only one entity named",
        r"only one entity named",
        "every answer that names an entity names the same one: the preferred entity has no runner-up "
        "and no rival to lose its place to",
        "a finding, not a fault: the model named one entity; read the answers and their lists "
        "(`workbench review`) to check that the extraction kept every name",
    ),
    # Cold-start (methods/coldstart/metrics.py)
    Reason(
        "no-neutral-items",
        "the neutral list names no catalog item",
        r"the neutral list names no catalog item",
        "every divergence is taken against the neutral user's list, and it matched nothing in the catalog",
        "correct catalog matches (`workbench review`, c), or use a catalog holding what the model names",
    ),
    # Identity (methods/identity/data.py)
    Reason(
        "no-references",
        "no reference shares imported",
        r"no reference shares imported",
        "Mean Share weighs each recommended item by the group's share of it, from a reference table",
        "`workbench import references FILE.csv --db DB --study STUDY` (columns item, group, share)",
    ),
    Reason(
        "no-parsed-answer",
        "no answer parsed",
        r"no answer parsed",
        "none of the cell's answers could be read as a list of recommendations",
        "`structured = true` in the study (answers constrained to JSON), or a larger model",
    ),
    Reason(
        "unknown-items",
        "no recommended item is in the reference shares",
        r"no recommended item is in the reference shares",
        "the answers were read, but no item they name is in the group's reference table",
        "compare the names (`workbench export --what identity`) with the table's items and import "
        "the missing ones (`workbench import references`)",
    ),
    Reason(
        "same-shares",
        "every share is the same",
        r"every share is the same",
        "the condition's and the baseline's answers all have one mean share: no spread for an interval "
        "or its p, and the paper's rank test is undefined",
        "nothing to fix; more answers (`per_group`) give the test something to rank",
    ),
    Reason(
        "no-baseline",
        "the baseline has no mean share",
        r"the baseline has no mean share",
        "a difference needs the group's baseline cell, which has no mean share",
        "the baseline's own reason says why (usually the references: `workbench import references`)",
    ),
    # An interval over fewer than 2 units (metrics/intervals.py): one per unit
    Reason(
        "one-seed",
        "1 seed",
        r"[01] seeds?$",
        "the interval and the standard deviation are over seeds and there is one (one seed's spread is 0 "
        "by construction, not a finding)",
        "more seeds (`seeds = 5` in the study file)",
    ),
    Reason(
        "one-answer",
        "1 answer",
        r"[01] answers?$",
        "the interval resamples answers and there is one",
        "more answers (`per_group`, `repetitions` or more questions)",
    ),
    Reason(
        "one-template",
        "1 template",
        r"[01] templates?$",
        "the interval resamples templates and there is one",
        "more templates in the task",
    ),
    Reason(
        "one-question-unit",
        "1 question",
        r"[01] questions?$",
        "the interval resamples questions and this cell has one",
        "more questions in the cell's cluster, or `--ci-unit answer` (an interval about these questions only)",
    ),
    Reason(
        "one-prompt",
        "1 prompt",
        r"[01] prompts?$",
        "the interval resamples the cell's prompts (each drawn from the template, with its answers) and there is one",
        "more prompts per cell (`per_group` in the study file)",
    ),
    Reason(
        "few-prompts",
        "K prompts, fewer than 8",
        r"\d+ prompts, fewer than \d+$",
        "the interval resamples the cell's prompts, and from so few the simulated cells' intervals covered "
        "the population value less often than 95% (87-93% at 5 prompts)",
        "more prompts per cell: `per_group` in the study file is shared by the four conditions (32 or more)",
    ),
    # Minimum support (workbench/metrics/support.py; docs/methods.md, "Minimum support")
    Reason(
        "few-seeds",
        "K seeds, fewer than 3",
        r"\d+ seeds, fewer than \d+$",
        "a mean's interval over 2 seeds would be their range (the bootstrap's percentiles fall on the "
        "seeds themselves), which holds the population's median half the time; Student's t needs 3",
        "more seeds (`seeds = 5` in the study file); the mean and the standard deviation stand without it",
    ),
    Reason(
        "few-templates",
        "K templates, fewer than 3",
        r"\d+ templates, fewer than \d+$",
        "Delta's interval over 2 templates would be their range, which holds the population's median "
        "half the time; Student's t needs 3",
        "more templates in the task; Delta stands without it",
    ),
    Reason(
        "same-units",
        "every UNIT gives the same value",
        r"every (seed|template|prompt) gives the same value$",
        "the number does not move from one unit to another, so the spread of another draw of units "
        "cannot be read from these: an interval would be zero-width, a claim of certainty (and its p, "
        "where it has one, n/a too)",
        "nothing to fix: the number stands as it is; more units (seeds, templates, `per_group`) show a "
        "spread if there is one",
    ),
    Reason(
        "coverage-alike",
        "no prompt alone moves coverage",
        r"no prompt alone moves coverage",
        "coverage's interval is the jackknife's: each prompt left out takes away the items only it named, "
        "and here leaving out any one prompt changes coverage alike (usually: every item was named by two "
        "prompts or more), so it shows no spread and an interval would be zero-width",
        "more prompts per cell (`per_group`); coverage itself stands",
    ),
    Reason(
        "rank-test-floor",
        "the smallest p TEST could give with SIZES is P",
        r"the smallest p .+ could give with .+ is \d",
        "with so few entities (or pairs, or counts) no arrangement of them could give p < 0.05: a group of "
        "one entity against 29 is at best 0.067, 5 pairs at best 0.062, a rank correlation of 4 at best "
        "0.083; the test could find nothing, so it is kept out of the Holm family",
        "more entities in the smaller group (`--entities`, another `--group-by`), more entities scored in "
        "both conditions, or more entities named (`top_n`); the numbers beside it stand",
    ),
    # Label probabilities: tests between entities, conditions and studies (methods/entity/metrics.py)
    Reason(
        "no-intended",
        "no prompt has an intended label",
        r"no prompt has an intended label",
        "macro-F1 compares each prompt's most probable label with its intended one, and no scored prompt names one",
        "an `intended` column in the imported scores (`workbench import scores`), or a task whose "
        "templates give their intended label",
    ),
    Reason(
        "no-outside-group",
        "no entity outside this group",
        r"no entity outside this group",
        "the group test compares the group's entities with the condition's others, and every entity is in this group",
        "entities of more than one value in the `--entities` file's column, or another `--group-by` column",
    ),
    Reason(
        "few-paired-entities",
        "fewer than 2 entities in both conditions",
        r"fewer than 2 entities in both conditions",
        "the Wilcoxon test pairs each entity's Delta in the two conditions, and fewer than 2 entities "
        "have a Delta in both",
        "score the same entities (2 or more) in both conditions",
    ),
    Reason(
        "same-deltas",
        "every entity has the same Delta in both conditions",
        r"every entity has the same Delta in both conditions",
        "no entity's Delta differs between the two conditions, so the signed-rank test is undefined",
        "nothing to fix: the two conditions agree on every entity",
    ),
    Reason(
        "few-shared-entities",
        "fewer than 3 entities in both studies",
        r"fewer than 3 entities in both studies",
        "Pearson's r between two studies' Deltas needs 3 entities with a Delta in both",
        "score the same entities (3 or more) in both studies",
    ),
    Reason(
        "flat-deltas",
        "one study gives every entity the same Delta",
        r"one study gives every entity the same Delta",
        "Pearson's r is undefined when one study's Deltas do not vary",
        "nothing to fix: that study's templates do not tell its entities apart",
    ),
    # `workbench compare`: two models' differences (methods/choice/paired.py, workbench/analysis/compare.py)
    Reason(
        "compare-no-common",
        "no question both answered (N by A, M by B)",
        r"no question both answered \(",
        "the two models answered no question of this topic in common (each was asked others, or one "
        "has not answered yet), and a difference is taken over the questions both answered",
        "run both models on the same study file (`workbench run STUDY.toml` resumes), or import both "
        "models' lists of the same questions",
    ),
    Reason(
        "compare-a-names-nothing",
        "A named no entity on these questions",
        r".+ named no entity on these questions$",
        "the difference is in the share of answers naming A's preferred entity, and A's answers name none",
        "read A's answers and lists (`workbench review lists`), or compare the other way round (`--models B A`)",
    ),
    Reason(
        "compare-no-slot",
        "MODEL: no recommendation slot",
        r".+: no recommendation slot$",
        "a region's share of slots needs slots, and this model's answers on these questions give none",
        "read that model's answers and lists (`workbench review lists`)",
    ),
    Reason(
        "compare-no-region",
        "no entity named has a region",
        r"no entity named has a region",
        "no name these answers give has a region, so no slot belongs to either region of the pair",
        "give entities regions: `workbench import entities FILE.csv` (columns name, region) or "
        "`workbench entities region NAME --region REGION`",
    ),
    Reason(
        "compare-no-shared-cluster",
        "no cluster where both models give both regions slots",
        r"no cluster where both models give both regions slots",
        "the log-odds is compared over the clusters where both models give both regions slots, and none does",
        "more answers per cluster (`repetitions`, more questions per cluster), regions for more of the names "
        "(`workbench entities list`), or a lower `[metrics] min_share`",
    ),
    Reason(
        "compare-unreached",
        "no resample reaches the estimate: too few questions per cluster",
        r"no resample reaches the estimate",
        "the log-odds' difference takes its interval to first order in each question's weight, checked "
        "against resamples of the questions (k - 1 of a cluster's k): with two or three questions it can be "
        "one number for each question drawn alone and another for the questions together, and an interval "
        "that holds no resample, beside an estimate no resample reaches, would say nothing about it",
        "more questions per cluster (`workbench plan` says how many), or read the regions' shares, whose "
        "differences are compared over the same questions",
    ),
    Reason(
        "compare-one-unit",
        "1 UNIT both answered",
        r"1 \w+ both answered$",
        "the interval is over the units both models answered (questions; prompts or templates with a number "
        "from both), from their spread, and there is one",
        "ask both models more of them (more questions, `per_group` or templates)",
    ),
    Reason(
        "compare-no-spread",
        "B - A is the same on every UNIT",
        r"B - A is the same on every \w+$",
        "the interval and p are read from how the difference varies between the units (questions, prompts "
        "or templates) both models answered, and it does not vary: an interval would be zero-width, a "
        "certainty no finite data gives (a difference of two shares takes Newcombe's interval instead)",
        "more questions (prompts, templates); read the two models' own numbers (`workbench metrics`)",
    ),
    Reason(
        "compare-no-number",
        "no UNIT both answered with a number",
        r"no \w+ both answered with a number",
        "no prompt (template) has a number from both models: for identity, the group has no reference "
        "share, or one model's answers could not be read",
        "the models' own numbers say why (`workbench metrics`); for identity usually the references "
        "(`workbench import references FILE.csv`)",
    ),
)
