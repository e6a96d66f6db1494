/* --tune NAME=VALUE (tune.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/tune.h"

void zp__cli_tune_default(zp__cli_tune *t)
{
    zp_gpu_tuning_default(&t->gpu);
    t->cpu_ifma = true;
}

/* on / off (and their usual spellings) into *out; false for anything else. */
static bool parse_switch(const char *v, bool *out)
{
    static const char *const on[] = {"on", "true", "yes", "1"}, *const off[] = {"off", "false",
                                                                                "no", "0"};
    for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
        if (!strcmp(v, on[i]) || !strcmp(v, off[i])) {
            *out = !strcmp(v, on[i]);
            return true;
        }
    }
    return false;
}

/* auto, off, or C-bit windows (2..ZP_GPU_H_TABLE_MAX; 0 and 1 as off and auto). */
static bool parse_h_table(const char *v, unsigned *out)
{
    if (!strcmp(v, "auto") || !strcmp(v, "off")) {
        *out = !strcmp(v, "auto") ? ZP_GPU_H_TABLE_AUTO : ZP_GPU_H_TABLE_OFF;
        return true;
    }
    char *end;
    long c = strtol(v, &end, 10);
    if (end == v || *end || v[0] == '-' || v[0] == '+' || c > (long)ZP_GPU_H_TABLE_MAX)
        return false;
    *out = (unsigned)c;
    return true;
}

static int bad_value(const char *cmd, const char *arg, const char *want)
{
    fprintf(stderr, "zkpipe %s: --tune %s: the value must be %s\n", cmd, arg, want);
    return 2;
}

int zp__cli_tune_parse(zp__cli_tune *t, unsigned which, const char *cmd, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) {
        fprintf(stderr, "zkpipe %s: --tune wants NAME=VALUE, not '%s'\n", cmd, arg);
        return 2;
    }
    const size_t n = (size_t)(eq - arg);
    const char *v = eq + 1;
    bool on;
    if ((which & ZP__TUNE_GPU) && n == 9 && !strncmp(arg, "ntt_twist", n)) {
        if (!parse_switch(v, &on))
            return bad_value(cmd, arg, "on or off");
        t->gpu.ntt_twist = on;
    } else if ((which & ZP__TUNE_GPU) && n == 10 && !strncmp(arg, "ring_share", n)) {
        if (!parse_switch(v, &on))
            return bad_value(cmd, arg, "on or off");
        t->gpu.ring_share = on;
    } else if ((which & ZP__TUNE_GPU) && n == 7 && !strncmp(arg, "h_table", n)) {
        if (!parse_h_table(v, &t->gpu.h_table))
            return bad_value(cmd, arg, "auto, off or a window size from 2 to 22");
    } else if ((which & ZP__TUNE_CPU) && n == 8 && !strncmp(arg, "cpu_ifma", n)) {
        if (!strcmp(v, "auto"))
            t->cpu_ifma = true;
        else if (!strcmp(v, "off"))
            t->cpu_ifma = false;
        else
            return bad_value(cmd, arg, "auto or off");
    } else {
        fprintf(stderr, "zkpipe %s: --tune: unknown name '%.*s' (this command takes %s%s%s)\n",
                cmd, (int)n, arg, which & ZP__TUNE_GPU ? "ntt_twist, h_table, ring_share" : "",
                (which & ZP__TUNE_GPU) && (which & ZP__TUNE_CPU) ? ", " : "",
                which & ZP__TUNE_CPU ? "cpu_ifma" : "");
        return 2;
    }
    return 0;
}

void zp__cli_tune_apply(const zp__cli_tune *t)
{
    if (!t->cpu_ifma)
        zp_cpu_set_ifma(false);
}

void zp__cli_tune_describe(char *buf, size_t n, const zp__cli_tune *t)
{
    char h[16];
    if (t->gpu.h_table == ZP_GPU_H_TABLE_AUTO || t->gpu.h_table == ZP_GPU_H_TABLE_OFF)
        snprintf(h, sizeof h, "%s", t->gpu.h_table == ZP_GPU_H_TABLE_AUTO ? "auto" : "off");
    else
        snprintf(h, sizeof h, "%u", t->gpu.h_table);
    snprintf(buf, n, "ntt_twist=%s h_table=%s ring_share=%s cpu_ifma=%s",
             t->gpu.ntt_twist ? "on" : "off", h, t->gpu.ring_share ? "on" : "off",
             t->cpu_ifma ? "auto" : "off");
}
