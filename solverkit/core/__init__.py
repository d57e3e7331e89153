"""Plugin-agnostic core: hookspecs, registry, config, solver loop, store and transports API."""
