"""What is asked and how answers read back: request keys, prompt templates, lists out of answers."""
