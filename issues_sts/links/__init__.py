"""links stage."""
