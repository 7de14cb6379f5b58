"""This machine: its usable cores, and where the workbench keeps things."""
