"""Read-only queries for displays, exports and reports: what the screens, the report and its recipe read."""
