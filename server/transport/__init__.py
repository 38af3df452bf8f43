"""The transport floor: the gRPC servicer, errors as gRPC statuses, health, reflection, the
per-call log line and the HTTP pages. It translates; it holds no rules."""
