"""The core: the small Env, its capabilities and the registry, the shared card mechanics and
the terminal table."""
