"""Reports of ``twsrt check``: text, JSON, GitHub workflow commands, SARIF 2.1.0 and JUnit XML."""
