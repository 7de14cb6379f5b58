"""How words and numbers read wherever they are shown, and untrusted text shown literally."""
