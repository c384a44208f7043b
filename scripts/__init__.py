"""kakurega command-line tools."""
