"""hub stage."""
