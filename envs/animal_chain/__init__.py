"""animal_chain rules engine, observation encoder and renderer."""
