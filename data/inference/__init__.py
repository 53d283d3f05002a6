"""A live table read against a model (`model inspect`), and a model drafted from one (`model
infer`)."""
