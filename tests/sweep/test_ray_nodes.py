"""A sweep on a Ray cluster of two nodes (two raylets on this machine, each with its own CPU and
resource) gives the same store as one process: the actors, placed on both nodes, reach the driver
only through packets, as on machines apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruma.client.sweep.driver import sweep_store
from ruma.engine.families.classes import Family, enumerate_family
from tests.support.stores import contents

pytestmark = pytest.mark.alone  # (it times what it runs)


def test_a_two_node_ray_cluster_gives_the_same_store_as_one_process(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")  # (kept on loopback by tests/conftest.py)
    from ray.cluster_utils import Cluster

    from ruma.client.sweep.ray import RayActors

    loopback = {"node_ip_address": "127.0.0.1", "num_cpus": 1, "include_dashboard": False}
    cluster = Cluster(initialize_head=True, head_node_args={**loopback, "resources": {"first": 1}})
    try:
        cluster.add_node(**loopback, resources={"second": 1})
        cluster.wait_for_nodes()
        with RayActors(2, address=cluster.address) as backend:
            assert not backend.local and not backend.shares_memory  # (joined, as a cluster elsewhere)
            assert len(set(backend.nodes())) == 2
            for n, family in enumerate([Family.of("sowing", (0, 8), (1, 8)),
                                        Family.of("impartial-sowing", (0, 9), (1, 9))]):
                one = sweep_store(family, str(tmp_path / f"one{n}"), workers=1)
                two = sweep_store(family, str(tmp_path / f"ray{n}"), backend=backend)
                assert (two.backend, two.workers) == ("ray", 2)
                assert one.classes == two.classes == len(enumerate_family(family))
                assert contents(tmp_path / f"one{n}") == contents(tmp_path / f"ray{n}")
    finally:
        ray.shutdown()
        cluster.shutdown()
