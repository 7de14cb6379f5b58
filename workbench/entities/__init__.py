"""Names found in answers, and which of them are the same."""
