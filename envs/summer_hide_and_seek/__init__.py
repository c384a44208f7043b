"""summer_hide_and_seek rules engine, observation encoder and renderer."""
