"""Human review of what was extracted: verdicts per reviewer, versions, the blind validation sample, adjudication, and the corrections a method's review makes (probe labels, catalog matches)."""
