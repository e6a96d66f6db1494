/* zp_engine_config.key_progress: a synthetic key's setup and a .zpk's
 * checksums report their steps with the key's name, each ending once at
 * done == total; without the callback the engine reports nothing (it is
 * NULL by default). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "groth16/groth16.h"
#include "io/zpk.h"
#include "r1cs/synth.h"
#include "zkpipe.h"

typedef struct seen {
    pthread_mutex_t mu;
    int calls, ends, bad;
    char key[32], step[64];
    unsigned long long last_done;
} seen;

static void note(void *ctx, const char *key, const char *step, uint64_t done, uint64_t total)
{
    seen *s = ctx;
    pthread_mutex_lock(&s->mu);
    s->calls++;
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->step, sizeof s->step, "%s", step);
    if (done > total)
        s->bad++;
    if (done == total)
        s->ends++;
    s->last_done = done;
    pthread_mutex_unlock(&s->mu);
}

static zp_engine *open_with(seen *s)
{
    zp_engine_config c;
    zp_engine_config_default(&c);
    CHECK(c.key_progress == NULL);
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    c.key_progress = note;
    c.key_progress_ctx = s;
    zp_engine *e = NULL;
    CHECK_EQ_INT(zp_engine_open(&e, &c), ZP_OK);
    return e;
}

/* One load seen: its steps ended once, with the key's name and step. */
static void check_seen(const seen *s, const char *key, const char *step)
{
    CHECK(s->calls >= 2);
    CHECK_EQ_INT(s->ends, 1);
    CHECK_EQ_INT(s->bad, 0);
    CHECK(!strcmp(s->key, key));
    CHECK(!strcmp(s->step, step));
    CHECK(s->last_done > 0);
}

static void test_synth(void)
{
    seen s;
    zp_engine *e = open_with(&s);
    CHECK_EQ_INT(zp_engine_add_key(e, "syn", "synth:chain:10"), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "syn"), ZP_OK);
    zp_engine_close(e);
    check_seen(&s, "syn", "making key points");
}

static void test_zpk(void)
{
    char path[] = "/tmp/zp_key_progress_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char zpk[64];
    snprintf(zpk, sizeof zpk, "%s.zpk", path);
    zp__synth_spec sp;
    CHECK_EQ_INT(zp__synth_parse(&sp, "synth:chain:10"), ZP_OK);
    zp__r1cs cs;
    zp__pk pk;
    CHECK_EQ_INT(zp__synth_circuit(&cs, &sp), ZP_OK);
    CHECK_EQ_INT(zp__setup(&pk, &cs, ZP_H_COSET, 1, NULL), ZP_OK);
    CHECK_EQ_INT(zp__zpk_save(zpk, &pk, 1, NULL), ZP_OK);
    zp__pk_free(&pk);
    zp__r1cs_free(&cs);

    seen s;
    zp_engine *e = open_with(&s);
    CHECK_EQ_INT(zp_engine_add_key(e, "file", zpk), ZP_OK);
    CHECK_EQ_INT(zp_engine_preload_key(e, "file"), ZP_OK);
    zp_engine_close(e);
    check_seen(&s, "file", "checking key checksums");
    remove(zpk);
    remove(path);
}

int main(void)
{
    RUN(test_synth);
    RUN(test_zpk);
    return FINISH();
}
