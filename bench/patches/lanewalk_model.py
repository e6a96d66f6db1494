#!/usr/bin/env python3
"""A model of lanewalk.patch's add-kernel walk (src/gpu/msm_affine.cuh).

1. The walk's Montgomery bookkeeping as the patch writes it (the product
   before a slot kept at the slot, each lane visiting its own slots that add
   at a step): every inverse a step uses must be 1 / its denominator, over
   random threads of 1-40 slots and group lengths 1-8, in a 61-bit prime
   field.
2. Warp iterations a pass costs, today's walk (a slot j costs the warp a
   step when any lane's slot j adds) against the patch's (the busiest lane's
   count of slots that add), for Poisson runs of a mean number of entries a
   bucket dealt round robin into groups of at most 8, K slots a thread, 32
   lanes; round 2 over round 1's sums the same way.

usage: python3 bench/patches/lanewalk_model.py
"""
import math
import random

P = (1 << 61) - 1


def check_thread(lens, rng):
    ns = len(lens)
    d = [[rng.randrange(1, P) for _ in range(max(lens) + 1)] for _ in range(ns)]
    pre = [None] * ns
    prod, most = 1, 1
    for j in range(ns):  # step 0: the walk up of step 1
        most = max(most, lens[j])
        if lens[j] > 1:
            pre[j] = prod
            prod = prod * d[j][1] % P
    checked = 0
    for step in range(1, most):
        inv = pow(prod, P - 2, P)
        prod = 1
        dj = -1 if step & 1 else 1
        j = ns - 1 if dj < 0 else 0
        while True:
            while 0 <= j < ns and lens[j] <= step:
                j += dj
            if not 0 <= j < ns:
                break
            assert inv * pre[j] % P * d[j][step] % P == 1, (lens, step, j)
            checked += 1
            inv = inv * d[j][step] % P
            if lens[j] > step + 1:
                pre[j] = prod
                prod = prod * d[j][step + 1] % P
            j += dj
        assert inv == 1
    assert checked == sum(max(x - 1, 0) for x in lens)
    return checked


def poisson(rng, lam):
    # normal approximation with continuity; lam >= 5 here
    return max(0, int(round(rng.gauss(lam, math.sqrt(lam)))))


def groups(runs, gs=8):
    out = []
    for s in runs:
        if s >= 2:
            g = (s + gs - 1) // gs
            out.extend((s - 1 - q) // g + 1 for q in range(g))
    return out


def iterations(lens, K):
    w = 32 * K
    today = patch = useful = 0
    for base in range(0, len(lens) - w + 1, w):
        warp = lens[base:base + w]  # slot j of lane l at 32 j + l
        most = max(warp)
        for step in range(1, most):
            act = [[warp[32 * j + l] > step for j in range(K)] for l in range(32)]
            today += sum(any(act[l][j] for l in range(32)) for j in range(K))
            busiest = max(sum(a) for a in act)
            patch += busiest
            useful += sum(sum(a) for a in act) / 32
    return today, patch, useful


def main():
    rng = random.Random(7)
    n = sum(check_thread([rng.choice([1, 2, 3, 5, 7, 8, 8, 8])
                          for _ in range(rng.randint(1, 40))], rng) for _ in range(20000))
    print(f"bookkeeping: {n} inverses checked, all 1 / their denominators")
    cases = [("48 GiB's H chunks (c = 20, 44.7 M points)", 85.3, 286),
             ("32 GiB's H chunks (c = 20, 2.45 GiB)", 50.0, 286),
             ("the whole key's H (c = 20, 2^27 points)", 256.0, 512),
             ("24 GiB's H chunks (c = 17, 2 GiB)", 341.0, 286)]
    for name, lam, K in cases:
        runs = [poisson(rng, lam) for _ in range(int(48 * 32 * K * 8 / lam) + 1)]
        r1 = groups(runs)
        t, p, u = iterations(r1, K)
        r2 = groups([(s + 7) // 8 for s in runs if s >= 2])
        K2 = 64
        t2, p2, u2 = iterations(r2, K2)
        print(f"{name}: round 1 {p / t - 1:+.1%} (ideal {u / t - 1:+.1%}), "
              f"round 2 {p2 / t2 - 1:+.1%} (ideal {u2 / t2 - 1:+.1%})")


if __name__ == "__main__":
    main()
