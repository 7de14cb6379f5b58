"""Every human decision in one log, and making them again in another store (`workbench import decisions`)."""
