/*
 * The engine's witness loader (src/engine/loader.c) on the host: a load
 * waited for gives the file's witness in the buffer it was given; one
 * polled with zp__loader_ready becomes ready; a witness of the wrong
 * length fails with its message and is never ready (its last step not
 * run); a load's last step runs once, with the witness, before the load
 * counts as done; closing waits for a load in progress. A GPU slot worker uses it for the witness it takes ahead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engine/loader.h"
#include "io/io.h"

#define N 4099

static zp_fr W[N], GOT[N + 1];
static char path[64];

/* A load's last step: counts its calls and checks the witness is whole. */
typedef struct then_seen {
    int calls;
    const zp_fr *wit;
    int whole;
} then_seen;

static void then_step(void *ctx, const zp_fr *wit)
{
    then_seen *t = ctx;
    t->calls++;
    t->wit = wit;
    t->whole = memcmp(wit, W, sizeof W) == 0;
}

/* A job of one partition whose witness is the file at `path`. */
static void file_job(zp__job *j, zp__wit *wit)
{
    memset(j, 0, sizeof *j);
    memset(wit, 0, sizeof *wit);
    wit->kind = ZP_WITNESS_FILE;
    wit->path = path;
    j->wit = wit;
    j->n_wit = 1;
    j->k = 1;
}

static void test_loads(void)
{
    zp_engine *e = calloc(1, sizeof *e); /* no witness cache: only cfg is read */
    zp__job j;
    zp__wit wit;
    file_job(&j, &wit);
    zp__loader *l = NULL;
    CHECK_EQ_INT(zp__loader_open(&l), ZP_OK);
    if (!l || !e)
        return;
    for (int round = 0; round < 3; round++) {
        memset(GOT, 0, sizeof GOT);
        const zp_fr *got = NULL;
        then_seen seen = {0, NULL, 0};
        zp__loader_start(l, e, &j, 0, NULL, GOT, N, round == 2 ? then_step : NULL, &seen);
        if (round == 1) { /* polled until ready, as a slot asks before B1 */
            int spins = 0;
            while (!zp__loader_ready(l, &got) && spins++ < 100000)
                usleep(100);
            CHECK(got == GOT);
        }
        zp__ioerr why = {{0}};
        CHECK_EQ_INT(zp__loader_wait(l, &got, &why), ZP_OK);
        CHECK(got == GOT);
        CHECK_MEM(GOT, W, sizeof W);
        CHECK(zp__loader_ready(l, &got) && got == GOT);
        CHECK_EQ_INT(seen.calls, round == 2 ? 1 : 0);
        if (round == 2)
            CHECK(seen.wit == GOT && seen.whole);
    }
    /* The key wants one value more than the file has. */
    then_seen seen = {0, NULL, 0};
    zp__loader_start(l, e, &j, 0, NULL, GOT, N + 1, then_step, &seen);
    const zp_fr *got = GOT;
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__loader_wait(l, &got, &why), ZP_E_WITNESS);
    CHECK(got == NULL);
    CHECK(strstr(why.msg, "values") != NULL);
    CHECK(!zp__loader_ready(l, &got) && got == NULL);
    CHECK_EQ_INT(seen.calls, 0);
    /* Closed with a load in progress (or just done): it waits for it. */
    zp__loader_start(l, e, &j, 0, NULL, GOT, N, NULL, NULL);
    zp__loader_close(l);
    zp__loader_close(NULL);
    free(e);
}

int main(void)
{
    for (size_t i = 0; i < N; i++)
        zp_fr_from_u64(&W[i], check_rand64());
    zp_fr_one(&W[0]); /* w[0] = ONE */
    snprintf(path, sizeof path, "/tmp/zp_test_loader_%d.wtns", (int)getpid());
    zp__ioerr why = {{0}};
    CHECK_EQ_INT(zp__wtns_save(path, W, N, &why), ZP_OK);
    RUN(test_loads);
    unlink(path);
    return FINISH();
}
