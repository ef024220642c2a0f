"""Train and evaluate AnglE text embeddings (AnglE-BERT, AnglE-RAN) on GitHub issue pairs."""
