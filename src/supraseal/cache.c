/*
 * The key cache of the supraseal-c2 drop-ins (docs/supraseal-c2.md, The
 * SRS): a .params is parsed with every point checked once, and after the
 * first call with it, which brings the circuit's density maps, the checked
 * key is kept as a .zpk (those maps, no matrices: proving from a, b, c
 * needs none) in the folder zkpipe_supraseal_key_cache names; later loads
 * of the same .params load that file instead (checksums, no point checks). Off until a folder is given.
 *
 * An entry is named by the .params file's name and size (Filecoin's
 * parameter files are named by their contents' hash and never change);
 * it is written atomically, so a partial one never appears.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine_impl.h"
#include "io/zpk.h"
#include "supraseal/ss.h"

static pthread_mutex_t c_mu = PTHREAD_MUTEX_INITIALIZER;
static char c_dir[256];

int zkpipe_supraseal_key_cache(const char *dir)
{
    if (dir && strlen(dir) >= sizeof c_dir)
        return -1;
    pthread_mutex_lock(&c_mu);
    snprintf(c_dir, sizeof c_dir, "%s", dir ? dir : "");
    pthread_mutex_unlock(&c_mu);
    return 0;
}

bool zp__ss_cache_entry(char *out, size_t cap, const char *params_path)
{
    char dir[sizeof c_dir];
    pthread_mutex_lock(&c_mu);
    snprintf(dir, sizeof dir, "%s", c_dir);
    pthread_mutex_unlock(&c_mu);
    struct stat st;
    size_t n = strlen(params_path);
    if (!dir[0] || n < 7 || strcmp(params_path + n - 7, ".params") ||
        stat(params_path, &st) != 0)
        return false;
    const char *base = strrchr(params_path, '/');
    base = base ? base + 1 : params_path;
    int len = snprintf(out, cap, "%s/%.*s-%llu.zpk", dir, (int)(strlen(base) - 7), base,
                       (unsigned long long)st.st_size);
    return len > 0 && (size_t)len < cap;
}

bool zp__ss_cache_has(const char *entry)
{
    struct stat st;
    return stat(entry, &st) == 0 && S_ISREG(st.st_mode);
}

typedef struct cache_job {
    zp_engine *e;
    zp__key *k;
    char entry[320];
    zp__bitmap a, b;
} cache_job;

static void *write_main(void *arg)
{
    cache_job *j = arg;
    zp__pk view;
    zp__csr ma, mb;
    memset(&ma, 0, sizeof ma);
    memset(&mb, 0, sizeof mb);
    zp__ioerr why = {{0}};
    if (!zp__csr_alloc(&ma, 0, 0) && !zp__csr_alloc(&mb, 0, 0)) {
        zp__abc_view(&view, &j->k->pk, &j->a, &j->b);
        view.ma = ma;
        view.mb = mb;
        /* A failure leaves no entry: the .params is parsed again next
         * time. */
        (void)zp__zpk_save(j->entry, &view, 0, &why);
    }
    zp__csr_free(&ma);
    zp__csr_free(&mb);
    zp__key_release(j->e, j->k);
    zp__bitmap_free(&j->a);
    zp__bitmap_free(&j->b);
    free(j);
    return NULL;
}

void zp__ss_cache_write(zp_engine *e, const char *key, const char *entry,
                        const zp__abc_in *in)
{
    cache_job *j = calloc(1, sizeof *j);
    if (!j || strlen(entry) >= sizeof j->entry) {
        free(j);
        return;
    }
    j->e = e;
    snprintf(j->entry, sizeof j->entry, "%s", entry);
    pthread_mutex_lock(&e->mu);
    j->k = zp__key_find(e, key);
    pthread_mutex_unlock(&e->mu);
    zp__ioerr why = {{0}};
    pthread_t t;
    pthread_attr_t at;
    if (!j->k || zp__abc_density(&j->a, &j->b, in)) {
        free(j);
        return;
    }
    if (zp__key_acquire(e, j->k, &why)) { /* the key is held while it is written */
        zp__bitmap_free(&j->a);
        zp__bitmap_free(&j->b);
        free(j);
        return;
    }
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, write_main, j) != 0)
        write_main(j); /* no thread: here */
    pthread_attr_destroy(&at);
}
