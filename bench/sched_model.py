#!/usr/bin/env python3
"""The streaming schedule's copies and waits, modelled from a debug log.

`zkpipe bench batch ... --log-level debug` logs one `sched.chunk` line per
chunk of each partition's MSM schedule: the MSM, whether it streamed, how
many ring buffers it took, its points, how long it waited for its copies and
how long it ran on the GPU. This replays a partition's chunks against a
model of the copy stream -- copies one buffer at a time, in schedule order,
at RATE GB/s; a buffer refilled only once the chunk that used it has run;
the ring's four buffers filled while h ran; a lean slot's witness sent
again first; the next eval's rows sent in pieces before H's chunks (LOW
GB, the sched.eval_low line's bytes) -- and prints the modelled waits next
to the logged ones. Where the two agree, the model can rank other orders
of the same chunks (their GPU times taken from the log): here the witness
MSMs spread over a share (SPAN) of the schedule, as the scheduler places
them, and H's chunks spread over all of it.

usage: python3 bench/sched_model.py LOG [--run N] [--rate GBPS]
           [--witness-gb GB] [--low-gb GB] [--span S ...]
"""
import argparse
import collections
import re
import sys

RING = 4  # the ring's buffers (ZP_G16_RING_BUFS)


def load(path):
    runs = collections.defaultdict(list)
    for line in open(path, encoding="utf-8", errors="replace"):
        if "sched.chunk" not in line:
            continue
        d = dict(re.findall(r"(\w+)=([\w.]+)", line))
        runs[int(d["run"])].append({
            "msm": d["msm"], "streamed": d["streamed"] == "1",
            "buffers": int(d["buffers"]), "points": int(d["points"]),
            "wait": float(d["wait_ms"]), "ms": float(d["sum_ms"])})
    return runs


def buffer_gb(chunks):
    """A buffer's bytes: the largest one-buffer chunk of G1 points (96 bytes
    each) or of B2's G2 points (192)."""
    most = 0
    for c in chunks:
        if c["streamed"] and c["buffers"] == 1:
            most = max(most, c["points"] * (192 if c["msm"] == "B2" else 96))
    return most / 1e9


def replay(chunks, rate, buf_gb, witness_gb, low_gb=0.0):
    """The modelled wait before each chunk and the schedule's end (ms)."""
    copy_ms = buf_gb / rate * 1e3
    bus = witness_gb / rate * 1e3  # a lean slot's witness, sent again first
    owner = [i for i, c in enumerate(chunks) for _ in range(c["buffers"])]
    done = [0.0] * min(RING, len(owner)) + [None] * max(0, len(owner) - RING)
    ended = {}
    nxt, at, now, waits = min(RING, len(owner)), 0, 0.0, []
    # The next eval's rows below r_lo: before each H chunk after the first,
    # a piece of one H chunk's scalars (32 bytes a point) joins the copies.
    piece = max((c["points"] for c in chunks if c["msm"] == "H"), default=0) * 32 / 1e9
    h_seen = 0
    for i, c in enumerate(chunks):
        if c["msm"] == "H":
            if h_seen and low_gb > 0:
                p = min(piece, low_gb)
                low_gb -= p
                bus = max(bus, now) + p / rate * 1e3
            h_seen += 1
        need = max([done[at + b] for b in range(c["buffers"])] or [0.0])
        wait = max(0.0, need - now)
        waits.append(wait)
        now += wait + c["ms"]
        ended[i] = now
        at += c["buffers"]
        while nxt < len(owner) and owner[nxt - RING] in ended:
            bus = max(bus, ended[owner[nxt - RING]]) + copy_ms
            done[nxt] = bus
            nxt += 1
    return waits, now


def spread(chunks, span):
    """The chunks in the scheduler's order for a witness span: H's chunk j
    of nh at j / nh, the witness MSMs' units (a pair counts two) in turn
    over [0, span), half a place late."""
    hs = [c for c in chunks if c["msm"] == "H"]
    ws = [c for c in chunks if c["msm"] != "H"]
    nw = sum(2 if c["streamed"] and c["buffers"] == 2 else 1 for c in ws)
    items = [(j / len(hs), 0, j, c) for j, c in enumerate(hs)]
    k = 0
    for c in ws:
        items.append(((k + 0.5) / nw * span, 1, k, c))
        k += 2 if c["streamed"] and c["buffers"] == 2 else 1
    items.sort(key=lambda x: (x[0], x[1], x[2]))
    return [x[3] for x in items]


def letters(chunks):
    return "".join(c["msm"][0] if c["msm"] != "B2" else "b" for c in chunks)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--run", type=int, help="the partition (run=N); default the middle one")
    ap.add_argument("--rate", type=float, default=55.0, help="copy GB/s (bench copy's)")
    ap.add_argument("--witness-gb", type=float, default=0.0,
                    help="a lean slot's second witness send, GB (0: none or packed small)")
    ap.add_argument("--low-gb", type=float, default=0.0,
                    help="the next eval's rows sent before H's chunks, GB (sched.eval_low bytes)")
    ap.add_argument("--span", type=float, nargs="*", default=[0.75, 0.8, 0.85, 0.9, 0.95])
    a = ap.parse_args()
    runs = load(a.log)
    if not runs:
        sys.exit(f"{a.log}: no sched.chunk lines (run bench batch with --log-level debug)")
    run = a.run if a.run is not None else sorted(runs)[len(runs) // 2]
    if run not in runs:
        sys.exit(f"{a.log}: no run {run} (runs {min(runs)}..{max(runs)})")
    chunks = runs[run]
    buf = buffer_gb(chunks)
    waits, end = replay(chunks, a.rate, buf, a.witness_gb, a.low_gb)
    gpu = sum(c["ms"] for c in chunks)
    logged = sum(c["wait"] for c in chunks)
    off = sum(abs(x - c["wait"]) for x, c in zip(waits, chunks))
    print(f"run {run}: {len(chunks)} chunks, buffers of {buf:.3f} GB at {a.rate:g} GB/s, "
          f"{gpu:.1f} ms on the GPU")
    print(f"logged order {letters(chunks)}: waits {logged:.1f} ms logged, {sum(waits):.1f} "
          f"modelled ({off:.1f} apart chunk by chunk), end {end:.1f}")
    for s in a.span:
        order = spread(chunks, s)
        w, e = replay(order, a.rate, buf, a.witness_gb, a.low_gb)
        print(f"span {s:.2f} {letters(order)}: waits {sum(w):.1f} ms, end {e:.1f}")


if __name__ == "__main__":
    main()
