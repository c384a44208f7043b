"""kakurenbo rules engine, observation encoder and renderer."""
