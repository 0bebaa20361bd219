"""ruma.client: the typed gRPC client, the bulk loader and the ruma command line."""
