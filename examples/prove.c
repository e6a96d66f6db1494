/*
 * One Groth16 proof through the C library: open an engine, add a key, prove
 * a witness, wait for the (verified) proof and print it in hex.
 *
 *   cc prove.c $(pkg-config --cflags --libs zkpipe) -o prove
 *   ./prove circuit.zkey w.wtns
 *
 * The key is a snarkjs .zkey or a zkpipe .zpk; the witness a .wtns.
 */
#include <stdio.h>

#include "zkpipe.h"

static void print_hex(const char *label, const uint8_t *b, size_t n)
{
    printf("%s ", label);
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s KEY WITNESS.wtns\n", argv[0]);
        return 2;
    }
    zp_engine_config cfg;
    zp_engine_config_default(&cfg); /* one CPU worker; cfg.gpus = -1 adds every GPU */
    zp_engine *e = NULL;
    zp_err err = zp_engine_open(&e, &cfg);
    if (!err)
        err = zp_engine_add_key(e, "k", argv[1]);
    zp_witness w = {.kind = ZP_WITNESS_FILE, .path = argv[2]};
    zp_job_request req = {.id = "example-1", .key = "k", .priority = ZP_PRIO_HIGH,
                          .partitions = 1, .witnesses = &w, .n_witnesses = 1};
    char id[ZP_JOB_ID_MAX + 1];
    zp_job_info info = {0};
    zp_job_result res = {0};
    if (!err)
        err = zp_engine_submit(e, &req, id);
    if (!err) /* waits for the job: every proof in it has been verified */
        err = zp_engine_await(e, id, -1, &info, &res);
    if (err) {
        fprintf(stderr, "%s: %s\n", zp_errname(err),
                info.message[0] ? info.message : zp_strerror(err));
    } else {
        /* A ‖ B ‖ C, zcash-compressed; then the public inputs, 32 bytes each. */
        print_hex("proof", res.proofs, res.proofs_len);
        for (uint32_t i = 0; i < res.n_public; i++)
            print_hex("public", res.public_inputs + 32 * (size_t)i, 32);
    }
    zp_job_result_free(&res);
    zp_engine_close(e);
    return err ? 1 : 0;
}
