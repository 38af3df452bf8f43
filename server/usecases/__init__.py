"""The use-case floor: the table server's actions, one job a file (seats, the deal, play,
watch, matches, justice commands), with idempotency, timers and the hub beside them (the
limits read the call itself: transport/limits.py). It knows neither gRPC nor HTTP."""
