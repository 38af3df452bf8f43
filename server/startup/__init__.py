"""Start-up and operations: settings, metrics, ``main`` (``tabletop-server``) and the
PostgreSQL migration command. Nothing below imports this floor."""
