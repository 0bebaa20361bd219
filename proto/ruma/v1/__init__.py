"""Generated protobuf/gRPC stubs of the ruma.v1 contract (kept in sync by tests/service/test_proto_sync.py)."""
