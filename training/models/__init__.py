"""Encoders sharing one contract (see `base.Encoder`)."""
