"""hidden_rooms rules engine, observation encoder and renderer."""
