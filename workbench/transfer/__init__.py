"""Imports and exports by kind, for the command line and the app alike."""
