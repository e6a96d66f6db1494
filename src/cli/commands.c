/* The table of subcommands. */
#include <stddef.h>

#include "bench/bench.h"
#include "cli/cli.h"

const struct zp__cli_cmd zp__cli_cmds[] = {
    {"selftest", "check arithmetic, encodings and pairing against known answers", zp__cmd_selftest},
    {"bench", "measure: bench math | ntt | msm | field | batch | prove | verify | corun", zp__cmd_bench},
    {"prove", "make a Groth16 proof: .zkey/.zpk + .wtns -> proof.json, public.json, proof.bin", zp__cmd_prove},
    {"verify", "check a proof: KEY (vk.json, .vk, .zpk) public.json PROOF (json or 192 bytes)", zp__cmd_verify},
    {"setup", "make a TEST-ONLY key for a .r1cs or synth: circuit (.zkey, .zpk, .params)", zp__cmd_setup},
    {"witness", "write a synthetic circuit's witness as a .wtns", zp__cmd_witness},
    {"import", "convert a .zkey or bellperson .params into a checked .zpk", zp__cmd_import},
    {"serve", "run the daemon: keys stay loaded, jobs come over HTTP (unix socket or TCP)", zp__cmd_serve},
    {"submit", "queue a job on the daemon; prints its id", zp__cmd_submit},
    {"await", "wait for a job on the daemon and write its proof", zp__cmd_await},
    {"cancel", "cancel a job on the daemon", zp__cmd_cancel},
    {"status", "the daemon's queues, workers and keys", zp__cmd_status},
    {"request", "send one raw request to the daemon (scripts, debugging)", zp__cmd_request},
    {"trace", "draw an engine trace: trace svg TRACE.json (Gantt chart, busy fractions)", zp__cmd_trace},
    {"doctor", "check this machine (driver, GPUs, memory, CPU) and, given a key, how it fits", zp__cmd_doctor},
    {"version", "print the version and backends compiled in", zp__cmd_version},
    {NULL, NULL, NULL},
};
