"""Reading results across models and studies: comparisons, study sizing, the answers behind a number."""
