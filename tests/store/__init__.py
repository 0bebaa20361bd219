"""The LMDB store: records, bulk paths, the writer process, checks, verify, repair, migration, compaction."""
