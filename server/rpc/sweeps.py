"""The ``ruma.v1.Sweeps`` servicer: uploads of precomputed values, key lookups, censuses, and the
documents the store keeps (``Documents``: what ``ruma tables`` computed, read as stored).

``add_sweeps_servicer(server, ruma_servicer, verify_fraction)`` registers it next to the
``Ruma`` servicer, sharing its store (through the same hot-value cache), limits, workers and
cancellation; ``Upload`` is declared a write method to ``ruma.server.rpc.auth``. An upload is
checked and stored on a thread of the server (its sample re-valued on an evaluation worker),
``Contains`` is a reader worker's lookup, a census an evaluation worker's task.

Upload checks, before anything is stored: at most ``max_batch_size`` entries; every value is
well formed (a nim value for an impartial ruleset, a game node for a partizan one) — else the
whole upload is refused (``INVALID_ARGUMENT``). Every key must be a canonical key of the named
ruleset (decoded, normalised and re-encoded to itself) within the pot and seed limits: an entry
whose key is not is rejected alone (``UploadResponse.rejected``, with its reason). Then a random
sample of ``max(1, ceil(fraction * n))`` of the other entries is re-valued with the server's own
evaluator (reading the store, writing only to a scratch memo) and compared: a sampled entry whose
check runs out of time or memory is rejected alone, and a value that differs rejects the whole
upload (``INVALID_ARGUMENT``, naming it: the sample vouches for the entries it does not check).
Every entry not rejected is then inserted (a key the store holds already keeps its value).
"""

from __future__ import annotations

import asyncio
import math
import random
from typing import Any, AsyncIterator

import grpc

from ruma.engine.cgt import format_value
from ruma.engine.errors import LimitExceededError, RumaInputError
from ruma.engine.families.census import BY
from ruma.engine.families.classes import Family, walk_count
from ruma.engine.families.packets import unpack
from ruma.engine.rulesets import get_ruleset
from ruma.server.rpc.auth import register_write_methods
from ruma.server.rpc.errors import from_wire, rpc_method, rpc_stream, status_of
from ruma.server.rpc.servicer import RumaServicer
from ruma.server.store.codec import CodecError
from ruma.server.store.keys import state_of_key
from ruma.server.work import convert
from ruma.server.work.budget import Budget
from ruma.server.work.disk import check_room
from ruma.v1 import ruma_pb2, sweep_pb2_grpc
from ruma.v1 import sweep_pb2 as pb

SERVICE = pb.DESCRIPTOR.services_by_name["Sweeps"].full_name
WRITE_METHODS = (f"/{SERVICE}/Upload",)
register_write_methods(*WRITE_METHODS)

#: the share of each upload the server re-values (``ruma serve --verify-fraction``)
DEFAULT_VERIFY_FRACTION = 0.01
#: the most bytes of documents one ``Documents`` reply carries (below gRPC's default 4 MB message)
MAX_DOCUMENTS_BYTES = 3 << 20
#: the most rows a census may walk (stripped rows, or boards) before it is refused
MAX_CENSUS_WALK = 20_000_000
_BY = {pb.CENSUS_GROUPING_UNSPECIFIED: "value", pb.CENSUS_BY_VALUE: "value", pb.CENSUS_BY_OUTCOME: "outcome",
       pb.CENSUS_BY_ATOMIC_WEIGHT: "atomic-weight", pb.CENSUS_BY_TEMPERATURE: "temperature"}


class UploadRejectedError(RumaInputError):
    """An upload with a malformed entry or a value the server computes differently."""


class SweepsServicer(sweep_pb2_grpc.SweepsServicer):
    """Uploads, key lookups and censuses over the ``Ruma`` servicer's store and limits."""

    def __init__(self, ruma: RumaServicer, verify_fraction: float = DEFAULT_VERIFY_FRACTION,
                 rng: random.Random | None = None) -> None:
        if not 0.0 <= verify_fraction <= 1.0:
            raise RumaInputError(f"--verify-fraction must be between 0 and 1, not {verify_fraction}")
        self.ruma = ruma
        self.verify_fraction = verify_fraction
        self.rng = rng or random.SystemRandom()

    # -- Upload ---------------------------------------------------------------------------------
    def _check_key(self, rules: Any, key: bytes) -> Any:
        try:
            owner, state = state_of_key(key)
        except CodecError as error:
            raise UploadRejectedError(
                f"upload rejected: key {key.hex()} is not a stored-position key ({error})") from None
        if owner is not rules:
            raise UploadRejectedError(f"upload rejected: key {key.hex()} belongs to {owner.name}, not {rules.name}")
        canonical, _ = rules.normalise(state)
        if canonical != state:
            raise UploadRejectedError(f"upload rejected: key {key.hex()} ({rules.format(state)!r}) is not normalised")
        pots, seeds = rules.size(state)
        limits = self.ruma.limits
        if ((limits.max_pots is not None and pots > limits.max_pots)
                or (limits.max_seeds is not None and seeds > limits.max_seeds)):
            raise LimitExceededError(f"upload rejected: position {rules.format(state)!r} exceeds this server's limits "
                                     f"({limits.max_pots} pots, {limits.max_seeds} seeds)")
        return state

    @rpc_method
    async def Upload(self, request: pb.UploadRequest, context: Any) -> pb.UploadResponse:
        budget = self.ruma.budget(context)
        if self.ruma.data_dir is not None:
            check_room(self.ruma.data_dir)
        return await asyncio.get_running_loop().run_in_executor(None, self.upload, request, budget)

    def upload(self, request: pb.UploadRequest, budget: Budget) -> pb.UploadResponse:
        """Check, verify (a sample, on a worker) and store an upload (on a thread of the server)."""
        rules = get_ruleset(request.ruleset)
        n = len(request.keys)
        if n > self.ruma.limits.max_batch_size:
            raise LimitExceededError(f"upload of {n} entries; this server's limit is {self.ruma.limits.max_batch_size}")
        if len(request.values) != n:
            raise UploadRejectedError(f"upload rejected: {n} keys but {len(request.values)} values")
        if rules.impartial and request.games:
            raise UploadRejectedError("upload rejected: an impartial ruleset's values are nim values, not games")
        nodes = [(tuple(node.left), tuple(node.right)) for node in request.games]
        try:
            entries = unpack((list(request.keys), list(request.values), nodes), rules.impartial)
        except ValueError as error:
            raise UploadRejectedError(f"upload rejected: {error}") from None
        reply = pb.UploadResponse()
        states: dict[int, Any] = {}
        for i, (key, _) in enumerate(entries):  # a bad key is rejected alone
            try:
                states[i] = self._check_key(rules, key)
            except (UploadRejectedError, LimitExceededError) as error:
                _reject(reply, i, error)
        good = sorted(states)
        if good and self.verify_fraction > 0:
            count = min(len(good), max(1, math.ceil(self.verify_fraction * len(good))))
            sample = sorted(self.rng.sample(good, count))
            packet, unchecked = self.ruma.blocking(self.ruma.run(
                "sweep_verify", (rules.name, [entries[i][0] for i in sample]), budget))
            for j, wire in unchecked:  # a sampled entry whose check ran out of time or memory
                _reject(reply, sample[j], from_wire(*wire))
                states.pop(sample[j])
            checked = [i for j, i in enumerate(sample) if i in states]
            for i, (_, truth) in zip(checked, unpack(packet, rules.impartial)):
                claimed = entries[i][1]
                if truth != claimed:
                    raise UploadRejectedError(
                        f"upload rejected: {rules.name} position {rules.format(states[i])!r} was uploaded as "
                        f"{format_value(claimed)} but is {format_value(truth)}; nothing of the upload was stored")
                reply.verified += 1
            if not reply.verified:  # nothing vouches for the entries not sampled
                for i in sorted(states):
                    _reject(reply, i, LimitExceededError(
                        "not stored: no sampled entry of the upload could be checked within this server's limits"))
                states.clear()
        memo = self.ruma.memo
        kept = [entries[i] for i in sorted(states)]
        with self.ruma.busy():
            persistent = self.ruma.persistent
            if persistent is not None:  # stored marked unverified until the server re-values them (store.provenance)
                reply.stored = persistent.provenance.insert_unverified(kept)
                persistent.flush()  # an OK reply means the upload is on disk
            else:
                for key, value in kept:
                    if memo.lookup(key) is None:
                        memo.insert(key, value)
                        reply.stored += 1
        reply.already_stored = len(kept) - reply.stored
        return reply

    @rpc_method
    async def Contains(self, request: pb.ContainsRequest, context: Any) -> pb.ContainsResponse:
        get_ruleset(request.ruleset)
        if len(request.keys) > self.ruma.limits.max_batch_size:
            raise LimitExceededError(f"{len(request.keys)} keys; this server's limit is {self.ruma.limits.max_batch_size}")
        found = await self.ruma.read("contains", (list(request.keys),), self.ruma.budget(context))
        return pb.ContainsResponse(found=found)

    # -- Census ---------------------------------------------------------------------------------
    def family(self, request: pb.CensusRequest) -> Family:
        """The family asked for, within the server's limits."""
        pots = (request.pots_min or 1, request.pots_max or max(1, request.seeds_max))
        family = Family.of(request.ruleset, (request.seeds_min, request.seeds_max), pots)
        limits = self.ruma.limits
        if limits.max_seeds is not None and family.seeds_max > limits.max_seeds:
            raise LimitExceededError(f"census of up to {family.seeds_max} seeds; this server's limit is {limits.max_seeds}")
        if limits.max_pots is not None and family.pots_max > limits.max_pots:
            raise LimitExceededError(f"census of up to {family.pots_max} pots; this server's limit is {limits.max_pots}")
        walk = walk_count(family)
        if walk > MAX_CENSUS_WALK:
            raise LimitExceededError(f"census of {family.describe()} walks {walk} rows; this server's limit is {MAX_CENSUS_WALK}")
        return family

    @rpc_stream
    async def Census(self, request: pb.CensusRequest, context: Any) -> AsyncIterator[pb.CensusReply]:
        by = _BY.get(request.by)
        if by is None or by not in BY:
            raise RumaInputError(f"unknown census grouping {request.by}")
        family = self.family(request)
        args = (family.ruleset, (family.seeds_min, family.seeds_max), (family.pots_min, family.pots_max))
        replies = await self.ruma.run("census_replies", (args, by, request.simplest, request.compute_missing,
                                                         convert.styles(request.notations), tuple(request.values)),
                                      self.ruma.budget(context))
        for reply in replies:
            yield pb.CensusReply.FromString(reply)

    # -- Documents ------------------------------------------------------------------------------
    @rpc_method
    async def Documents(self, request: pb.DocumentsRequest, context: Any) -> pb.DocumentsReply:
        return await asyncio.get_running_loop().run_in_executor(None, self.documents, request.prefix)

    def documents(self, prefix: str) -> pb.DocumentsReply:
        """The store's documents named ``prefix``... as stored (read on a thread of the server)."""
        persistent = self.ruma.persistent
        if persistent is None:
            return pb.DocumentsReply()  # (a store that keeps no documents)
        kept = persistent.documents
        documents, size = [], 0
        for name in kept.names(prefix):
            content = kept.get(name)
            if content is None:
                continue
            size += len(content)
            if size > MAX_DOCUMENTS_BYTES:
                raise LimitExceededError(f"the documents named {prefix!r}... pass {MAX_DOCUMENTS_BYTES:,} bytes; "
                                         f"ask for fewer with a longer prefix")
            documents.append(pb.Document(name=name, content=content))
        return pb.DocumentsReply(documents=documents)


def _reject(reply: pb.UploadResponse, index: int, error: BaseException) -> None:
    """Add entry ``index`` to ``reply.rejected`` with the status of ``error``."""
    code, message = status_of(error)
    reply.rejected.add(index=index, status=ruma_pb2.Status(code=code.value[0], message=message))


def start_upload_verifier(ruma: RumaServicer, pause: float = 0.5) -> Any:
    """Start the thread that re-values unverified uploads while the server is idle
    (``store.provenance.UploadVerifier``), on the evaluation workers as ``Upload``'s sample is;
    ``None`` for a store without provenance. A value found wrong is replaced, forgotten by the
    hot-value cache, logged and counted (``Stats.uploads_corrected``)."""
    from ruma.server.store.provenance import Correction, UploadVerifier
    from ruma.server.work.budget import Budget

    persistent = ruma.persistent
    if persistent is None:
        return None

    def revalue(keys: list[bytes]) -> tuple[int, list[Correction]]:
        settled: tuple[int, list[Correction]] = ruma.blocking(ruma.run(
            "revalue_uploads", (keys,), Budget(max_seconds=ruma.limits.max_seconds)))
        return settled

    def corrected(correction: Correction) -> None:
        ruma.memo.forget(correction.key)
        with ruma.counters.lock:
            ruma.counters.corrected += 1

    return UploadVerifier(persistent, revalue, ruma.idle, corrected, pause=pause).start()


def add_sweeps_servicer(server: grpc.aio.Server, ruma: RumaServicer,
                        verify_fraction: float = DEFAULT_VERIFY_FRACTION) -> SweepsServicer:
    """Register the ``Sweeps`` service on ``server``; returns the servicer."""
    servicer = SweepsServicer(ruma, verify_fraction)
    sweep_pb2_grpc.add_SweepsServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]  # generated, unannotated
    return servicer
