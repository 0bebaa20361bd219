"""Concurrent clients, shared work and single-flight.

Expected values: Erickson 1996, Table 2 (Sowing 1^2 = *, 1^3 = 0, 1^6 = 0, 1^7 = *2, 1^8 = *,
1^9 = 0, 2^4 = *, 2^5 = 0), Table 1 (2202 = ↑) and §2 (312 = {0|-2}).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ruma.engine.cgt import UP, ZERO, Game, integer, nimber
from ruma.engine.errors import CancelledError, RumaInputError
from ruma.server.rpc.inflight import SingleFlight
from ruma.server.work.budget import Budget
from tests.support.grpc_harness import ascii_of, connect, running_server, switch

TABLE_2: dict[str, Game] = {
    "1^2": nimber(1), "1^3": ZERO, "1^6": ZERO, "1^7": nimber(2), "1^8": nimber(1), "1^9": ZERO,
    "2^4": nimber(1), "2^5": ZERO, "2202": UP, "312": switch(integer(0), integer(-2)),
}


def test_eight_clients_overlapping_positions(tmp_path: Path) -> None:
    positions = list(TABLE_2) + ["1^4", "1^5", "3^4", "31011"]

    def worker(seed: int) -> dict[str, str]:
        order = positions * 2
        random.Random(seed).shuffle(order)
        seen: dict[str, str] = {}
        with connect(address) as client:
            for position in order:
                value = client.evaluate("sowing", position).value.ascii
                assert seen.setdefault(position, value) == value
        return seen

    with running_server(tmp_path) as (_, address):
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(worker, range(8)))
        with connect(address) as client:
            stats = client.stats()
    assert all(result == results[0] for result in results)
    for position, expected in TABLE_2.items():
        assert results[0][position] == ascii_of(expected)
    assert stats.evaluations_total == 8 * 2 * len(positions)
    assert stats.hits + stats.shared > stats.misses  # most answers came from the store or a shared flight


def test_identical_requests_in_flight_are_computed_once(tmp_path: Path) -> None:
    barrier = threading.Barrier(4)

    def query(_: int) -> tuple[bool, bool, int]:
        with connect(address) as client:
            barrier.wait()
            result = client.evaluate("sowing", "1^9")
            return result.from_store, result.shared, result.stats.positions_valued

    with running_server(tmp_path) as (_, address):
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(query, range(4)))
        with connect(address) as client:
            stats = client.stats()
    computed = [r for r in results if not r[0] and not r[1]]
    assert len(computed) == 1 and computed[0][2] > 0
    assert stats.misses == 1 and stats.shared + stats.hits == 3


def test_single_flight_runs_once_and_shares() -> None:
    flight: SingleFlight[int] = SingleFlight()
    calls = []

    async def main() -> None:
        gate = asyncio.Event()

        async def compute() -> int:
            calls.append(1)
            await gate.wait()
            return 42

        tasks = [asyncio.ensure_future(flight.run("k", compute)) for _ in range(5)]
        await asyncio.sleep(0.2)
        assert flight.in_flight() == 1
        gate.set()
        results = await asyncio.gather(*tasks)
        assert sorted(shared for _, shared in results) == [False, True, True, True, True]
        assert all(value == 42 for value, _ in results) and flight.in_flight() == 0

    asyncio.run(main())
    assert len(calls) == 1


def test_single_flight_follower_retries_when_the_leader_is_cancelled() -> None:
    flight: SingleFlight[str] = SingleFlight()

    async def main() -> None:
        started = asyncio.Event()

        async def cancelled() -> str:
            started.set()
            await asyncio.sleep(0.2)
            raise CancelledError("leader's deadline")

        async def follower_computes() -> str:
            return "computed by the follower"

        leader = asyncio.ensure_future(flight.run("k", cancelled))
        await started.wait()
        follower = asyncio.ensure_future(flight.run("k", follower_computes))
        with pytest.raises(CancelledError):
            await leader
        assert await follower == ("computed by the follower", False)

    asyncio.run(main())


def test_single_flight_shares_input_errors_and_honours_follower_deadline() -> None:
    flight: SingleFlight[str] = SingleFlight()

    async def main() -> None:
        started = asyncio.Event()

        async def bad() -> str:
            started.set()
            await asyncio.sleep(0.3)
            raise RumaInputError("bad position '3x2'")

        async def never() -> str:
            return "never"

        leader = asyncio.ensure_future(flight.run("k", bad))
        await started.wait()
        follower = asyncio.ensure_future(flight.run("k", never))
        impatient = asyncio.ensure_future(flight.run("k", never, Budget(client_deadline=time.monotonic() + 0.05)))
        with pytest.raises(CancelledError, match="deadline"):
            await impatient
        for future in (leader, follower):
            with pytest.raises(RumaInputError, match="3x2"):
                await future

    asyncio.run(main())


def test_hot_value_cache_is_bounded_and_writes_through() -> None:
    from ruma.engine.memo import InMemoryMemo
    from ruma.server.work.cache import CachedMemo

    store = InMemoryMemo()
    cache = CachedMemo(store, size=3)
    for n in range(5):
        cache.insert(bytes([1, 1, n]), n)
    assert len(store) == 5 and len(cache.values) == 3  # every value stored, the 3 newest remembered
    assert bytes([1, 1, 0]) not in cache.values and cache.lookup(bytes([1, 1, 0])) == 0  # read through
    assert cache.lookup(bytes([1, 1, 9])) is None and len(cache.values) == 3
    assert cache.lookup(bytes([1, 1, 3])) == 3  # recently used: kept while others come in
    cache.insert(bytes([1, 1, 7]), 7)
    assert bytes([1, 1, 3]) in cache.values and len(cache.values) == 3


def test_hot_value_cache_under_threads() -> None:
    import threading

    from ruma.engine.memo import InMemoryMemo
    from ruma.server.work.cache import CachedMemo

    cache = CachedMemo(InMemoryMemo(), size=50)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for n in range(2000):
                key = bytes([1, 1]) + (offset * 2000 + n).to_bytes(4, "big")
                cache.insert(key, n)
                assert cache.lookup(key) == n
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(cache.values) == 50 and len(cache.store) == 16000  # type: ignore[arg-type]
