"""Generated protobuf/gRPC stubs of the ruma.v1 contract (kept in sync by tests/service/test_proto_sync.py).

May import: protobuf, grpc and the stubs here (``ruma.v1``) — nothing else of ruma.
"""
