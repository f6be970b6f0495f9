"""The spoilfive command line."""
