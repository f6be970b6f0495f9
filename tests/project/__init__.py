"""The project's own checks: import boundaries, function length, the benchmark and example
scripts, the behaviour fingerprint."""
