"""Rule-based heuristic players, one module per game."""
