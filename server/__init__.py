"""ruma.server: the gRPC service, the LMDB store and the catalog."""
