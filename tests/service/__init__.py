"""The gRPC service and its client over real sockets: every call, admission, auth, limits, faults, budgets, loading."""
