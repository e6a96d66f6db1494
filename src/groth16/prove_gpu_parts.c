/*
 * The witness parts' plan (prove_gpu_stages.h): which run of parts a slot
 * sends first and sums the L MSM over while the other parts cross.
 *
 * Sending the run first leaves the device idle for its copy; its MSM then
 * overlaps the other parts' copies, and hides min(its time, theirs). The
 * rest of L runs later as one or two MSMs more than before, each costing
 * about what the cheapest part's MSM cost on its own (mostly fixed work:
 * the split's scan, the waits, the sums' reductions), so that is taken
 * off. A witness whose dense scalars sit together (synth:porep keeps its
 * Poseidon-like tail in the last eighth) gets the part that holds them; one
 * whose dense scalars are spread gets a run of about half the parts.
 *
 * The slot side: the parts wanted, the learning upload, the upload with
 * the run first, and L over the rest in the MSM stage.
 */
#include "groth16/prove_gpu_slot_impl.h"

bool zp__g16_parts_plan(const double *ms, unsigned parts, double up_ms, unsigned *from,
                        unsigned *to)
{
    if (parts < 2 || !(up_ms >= 0))
        return false;
    double cheapest = ms[0];
    for (unsigned j = 1; j < parts; j++)
        cheapest = ms[j] < cheapest ? ms[j] : cheapest;
    double best = 0;
    bool found = false;
    for (unsigned i = 0; i < parts; i++) {
        double run = 0;
        for (unsigned j = i + 1; j <= parts && j - i < parts; j++) {
            run += ms[j - 1];
            double others = up_ms * (double)(parts - (j - i));
            double gain = (run < others ? run : others) - cheapest;
            if (gain > best) {
                best = gain;
                *from = i;
                *to = j;
                found = true;
            }
        }
    }
    return found;
}

/* ------------------------------------------------------------- the slot */

/* The parts eval plans a witness's upload in: ZP_G16_PARTS for a witness
 * of at least ZP_G16_PARTS_FROM values in the slot's pinned buffer (from
 * pageable memory a copy holds the host thread, and nothing would
 * overlap) when the slot is alone on its device, else 1: beside other
 * slots the copy overlaps their work anyway, and the split L MSM costs
 * more device time than one. A lone porep:27 partition is faster in eight
 * parts, the last (the dense tail) first, than in one copy
 * (bench/RESULTS.md). The slot's options may fix the parts for any
 * witness (zp__g16_gpu_opts.upload_parts). */
#define ZP_G16_PARTS 8u
#define ZP_G16_PARTS_FROM ((uint64_t)1 << 23)

unsigned zp__g16_parts_wanted(const zp__g16_slot *s, const zp__pk *pk, const zp_fr *w)
{
    unsigned v = s->opts.upload_parts;
    if (v == ZP_G16_PARTS_AUTO)
        v = w == s->host_witness && pk->n_vars >= ZP_G16_PARTS_FROM && zp__gpu_slots(s->dev) == 1
                ? ZP_G16_PARTS
                : 1;
    return pk->n_vars >= v ? v : 1;
}

/* The L MSM over w[from, to) (Montgomery, where it lies) added to
 * s->l_head. */
static zp_err l_part(zp__g16_slot *s, const zp__g16_dkey *k, uint64_t from, uint64_t to)
{
    const uint64_t lo = k->pk->n_public + 1; /* w's first L scalar */
    from = max_u64(from, lo);
    if (from >= to)
        return ZP_OK;
    zp_g1_jac part, sum;
    zp_err e = zp__g16_slot_msm_g1_w(s, k, ZP_G16_P_L, &part, from - lo, s->witness.ptr, from, to);
    if (e)
        return e;
    zp_g1_jac_add(&sum, &s->l_head, &part);
    s->l_head = sum;
    return ZP_OK;
}

/* The learning upload for k in `parts` parts: w in one copy (timed), then
 * the L MSM over each part on its own (timed), all of L in eval; then the
 * plan (zp__g16_parts_plan) for the next witnesses of k. */
static zp_err learn_parts(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                          unsigned parts)
{
    const uint64_t nv = k->pk->n_vars;
    double t0 = zp__g16_now(), ms[ZP_G16_PARTS_MAX];
    zp_err e = zp__g16_slot_put_w(s, k, w);
    if (!e)
        e = zp__gpu_stream_sync(s->stream);
    const double up_ms = 1e3 * (zp__g16_now() - t0) / parts;
    s->l_split = true;
    s->n_l_rest = 0;
    for (unsigned j = 0; j < parts && !e; j++) {
        double t = zp__g16_now();
        e = l_part(s, k, nv * j / parts, nv * (j + 1) / parts);
        ms[j] = 1e3 * (zp__g16_now() - t);
    }
    if (e)
        return e;
    s->took_parts = true;
    s->plan_key = k;
    s->plan_parts = parts;
    if (!zp__g16_parts_plan(ms, parts, up_ms, &s->run_from, &s->run_to))
        s->run_from = s->run_to = 0; /* none: one copy */
    return ZP_OK;
}

/* w up with the run of parts the plan chose first, then the rest (up to
 * two copies), all enqueued at once on the copy stream; the slot's stream
 * sums the L MSM over the run as soon as it is up, while the rest
 * crosses, and leaves the rest of L to zp__g16_slot_msm. The first
 * witness of a key in a slot goes as learn_parts says; one the plan
 * keeps whole goes in one copy. On return the slot's stream waits for
 * the whole copy. */
zp_err zp__g16_parts_put(zp__g16_slot *s, const zp__g16_dkey *k, const zp_fr *w,
                         unsigned parts)
{
    const uint64_t nv = k->pk->n_vars;
    zp_g1_jac_inf(&s->l_head);
    s->l_split = false;
    if (s->plan_key != k || s->plan_parts != parts)
        return learn_parts(s, k, w, parts);
    const unsigned head = s->opts.upload_head;
    if (head < parts) {
        s->run_from = head;
        s->run_to = head + 1;
    }
    if (s->run_from == s->run_to)
        return zp__g16_slot_put_w(s, k, w);
    const uint64_t from = nv * s->run_from / parts, to = nv * s->run_to / parts;
    s->n_l_rest = 0;
    if (from > 0) {
        s->l_rest[s->n_l_rest][0] = 0;
        s->l_rest[s->n_l_rest++][1] = from;
    }
    if (to < nv) {
        s->l_rest[s->n_l_rest][0] = to;
        s->l_rest[s->n_l_rest++][1] = nv;
    }
    zp_fr *dw = s->witness.ptr;
    zp_err e = zp__gpu_stream_after(s->copy_stream, s->stream); /* after the last reads of w */
    if (!e)
        e = zp__gpu_upload(s->copy_stream, dw + from, w + from, (to - from) * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_stream_mark(s->copy_stream);
    for (unsigned i = 0; i < s->n_l_rest && !e; i++)
        e = zp__gpu_upload(s->copy_stream, dw + s->l_rest[i][0], w + s->l_rest[i][0],
                           (s->l_rest[i][1] - s->l_rest[i][0]) * sizeof(zp_fr));
    if (!e)
        e = zp__gpu_stream_after_mark(s->stream, s->copy_stream);
    if (!e)
        e = l_part(s, k, from, to);
    zp_err ea = zp__gpu_stream_after(s->stream, s->copy_stream);
    if (e || ea) {
        zp__gpu_stream_sync(s->copy_stream); /* no copy may still read w */
        return e ? e : ea;
    }
    s->l_split = true;
    s->took_parts = true;
    return ZP_OK;
}

/* L over what zp__g16_parts_put left, plus the sum it made. */
zp_err zp__g16_parts_msm_l(zp__g16_slot *s, const zp__g16_dkey *k, zp_g1_jac *out)
{
    zp_err e = ZP_OK;
    s->l_split = false;
    for (unsigned i = 0; i < s->n_l_rest && !e; i++)
        e = l_part(s, k, s->l_rest[i][0], s->l_rest[i][1]);
    if (!e)
        *out = s->l_head;
    return e;
}

bool zp__g16_slot_took_parts(const zp__g16_slot *s) { return s->took_parts; }

unsigned zp__g16_slot_parts_run(const zp__g16_slot *s, unsigned *from, unsigned *to)
{
    if (!s->plan_key)
        return 0;
    *from = s->run_from;
    *to = s->run_to;
    return s->plan_parts;
}
