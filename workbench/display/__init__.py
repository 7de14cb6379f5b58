"""Metric records as people read them: panels, filters, tables, and why a number is n/a."""
