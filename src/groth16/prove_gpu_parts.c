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
 */
#include "groth16/prove_gpu_stages.h"

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
