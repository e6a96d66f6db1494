/*
 * Replays a fuzz corpus without libFuzzer: every regular file under the
 * directories (or files) named on the command line goes once through the
 * harness's LLVMFuzzerTestOneInput. Built with the normal compiler, so that
 * ctest replays tests/fuzz/corpus/<parser>/ in every build, and under ASan
 * and UBSan in the sanitizer build. Exits non-zero when a path cannot be
 * read or holds no input at all; a harness that finds a bug aborts.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(stderr, "replay: out of memory reading %s\n", path);
                return 1;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "replay: read error on %s\n", path);
        return 1;
    }
    /* An exact-size copy, so that ASan sees a read past the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    (*count)++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path, count);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot open directory %s\n", path);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) {
                rc = 1;
                break;
            }
            names = nn;
        }
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        if (!names[n]) {
            rc = 1;
            break;
        }
        snprintf(names[n++], l, "%s/%s", path, e->d_name);
    }
    closedir(d);
    /* In name order, so that a failure repeats the same way. */
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat fs;
        if (rc == 0 && stat(names[i], &fs) == 0 && S_ISREG(fs.st_mode))
            rc = replay_file(names[i], count);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    size_t count = 0;
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            return 1;
    if (count == 0) {
        fprintf(stderr, "replay: no inputs under the paths given\n");
        return 1;
    }
    printf("replay: %zu inputs, no failure\n", count);
    return 0;
}
