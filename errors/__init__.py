"""The product's error vocabulary, on the ground floor: every floor raises it (`vocabulary.py`)."""
