/* Prometheus text helpers and stage histograms (metrics.h). The engine's
 * own exposition is in engine_metrics.c. */
#include <string.h>

#include "engine/metrics.h"
#include "engine/util.h"

const double zp__hist_bounds[ZP__HIST_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1,     2.5,    5,     10,   25,    50,   100, 300,  600,
};

void zp__hist_observe(zp__hist *h, double v)
{
    unsigned i = 0;
    while (i < ZP__HIST_BUCKETS && v > zp__hist_bounds[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum += v;
}

void zp__prom_head(zp__sb *sb, const char *name, const char *type, const char *help)
{
    zp__sb_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void zp__prom_label(zp__sb *sb, const char *v)
{
    zp__sb_putc(sb, '"');
    for (; *v; v++) {
        if (*v == '\\')
            zp__sb_puts(sb, "\\\\");
        else if (*v == '"')
            zp__sb_puts(sb, "\\\"");
        else if (*v == '\n')
            zp__sb_puts(sb, "\\n");
        else
            zp__sb_putc(sb, *v);
    }
    zp__sb_putc(sb, '"');
}

void zp__prom_hist(zp__sb *sb, const char *name, const char *labels, const zp__hist *h)
{
    const char *sep = labels[0] ? "," : "";
    uint64_t cum = 0;
    for (unsigned i = 0; i <= ZP__HIST_BUCKETS; i++) {
        cum += h->bucket[i];
        if (i < ZP__HIST_BUCKETS)
            zp__sb_printf(sb, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep,
                          zp__hist_bounds[i], (unsigned long long)cum);
        else
            zp__sb_printf(sb, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep,
                          (unsigned long long)cum);
    }
    if (labels[0]) {
        zp__sb_printf(sb, "%s_sum{%s} %.6f\n", name, labels, h->sum);
        zp__sb_printf(sb, "%s_count{%s} %llu\n", name, labels, (unsigned long long)h->count);
    } else {
        zp__sb_printf(sb, "%s_sum %.6f\n", name, h->sum);
        zp__sb_printf(sb, "%s_count %llu\n", name, (unsigned long long)h->count);
    }
}
