/* search_shared.c — a search's claims in a sweep's SharedValues table (shared.c).
 *
 * Why. The worker processes of a sweep publish every value the moment they find it, but a value
 * is published only once its whole subtree is searched: meanwhile another worker meeting the same
 * component searched it too, and two workers valued 10-24 % more positions than one. Now a search
 * claims a component in the shared table when it descends into it, and another worker finding the
 * claim searches the frame's other components first (a frame's value does not depend on their
 * order). When every component left is claimed by others it searches the first anyway, at once:
 * duplicated work, never a wrong value (values are facts) and never a wait on a claimant that is
 * slow or gone. (Sleeping up to 0.2 ms for the claimant instead removed the last duplicates, 0.5 %
 * of the positions, but made the sweep slower: docs/benchmarks.md, "Sweeps".)
 *
 * A claim is settled with its frame's value, or given up, when the frame leaves the path
 * (pop_frame, unwind_settled, an interrupted search), so a process holds claims only on its path.
 */
#include "search.h"

/* Claim the key of record rec: SV_KNOWN (its value is now in the search's table), SV_MINE (*claim
 * set), SV_THEIRS, or -1 (no room: search it unclaimed, *claim 0). */
static int claim_record(SearchObject *s, uint32_t rec, uint32_t *claim) {
    size_t len;
    const uint8_t *body = table_body(s->t, rec, &len, s->scratch);
    int32_t v;
    uint32_t at;
    *claim = 0;
    int rc = shared_claim(s->shared, body, len, table_hash(body, len), &v, &at);
    if (rc == SV_KNOWN) {
        if (table_set(s->t, rec, v) < 0) { /* (no memory for a large value: searched again instead) */
            *claim = 0;
            return SV_THEIRS;
        }
        s->shared_hits++;
    } else if (rc == SV_MINE) {
        *claim = at + 1;
    }
    return rc;
}

int shared_next(SearchObject *s, Frame *f, uint32_t *claim) {
    Comp *first = &s->comps[f->cursor];
    int rc = claim_record(s, first->rec, claim);
    if (rc != SV_THEIRS) return rc == SV_KNOWN;
    /* another process is searching it: a later component of this frame first */
    for (size_t j = f->cursor + 1; j < f->comps_end; j++) {
        Comp *c = &s->comps[j];
        int32_t v = table_value(s->t, c->rec);
        if (v != UNKNOWN && v != LOOKUP) continue; /* (valued, or met on the path: left to the cursor) */
        rc = claim_record(s, c->rec, claim);
        if (rc == SV_THEIRS || rc == SV_KNOWN) continue;
        Comp swap = *first;
        *first = *c;
        *c = swap;
        s->shared_deferred++;
        return 0;
    }
    s->shared_overlaps++; /* every component left is another process's: the first, unclaimed */
    return 0;
}

int shared_root(SearchObject *s, uint32_t rec, uint32_t *claim) {
    int rc = claim_record(s, rec, claim);
    if (rc == SV_THEIRS) s->shared_overlaps++;
    return rc == SV_KNOWN;
}

void shared_release(SearchObject *s, Frame *f) {
    if (!f->claim) return;
    int32_t v = table_value(s->t, f->rec);
    if (v >= 0)
        shared_settle(s->shared, f->claim - 1, v);
    else
        shared_abandon(s->shared, f->claim - 1);
    f->claim = 0;
}
