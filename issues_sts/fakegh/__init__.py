"""fakegh stage."""
