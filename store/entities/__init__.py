"""Entities: the names found in answers, their spellings, counts, regions and ranked lists, and the reviewers' decisions on them (merge, split, rename, forbid, undo)."""
