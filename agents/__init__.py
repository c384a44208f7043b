"""kakurega agents: players that see only their own observation and return a legal action id."""
