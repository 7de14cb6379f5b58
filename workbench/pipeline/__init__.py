"""The pipeline: a study file to a request queue to answers, and what a run reports."""
