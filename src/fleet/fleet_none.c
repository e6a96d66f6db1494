/* The fleet in a build without libpq: --queue is refused, saying why. */
#include <stdio.h>

#include "fleet/fleet.h"

zp_err zp__fleet_open(zp__fleet **out, const zp__fleet_config *cfg, zp_engine *eng, char *why,
                      size_t why_len)
{
    (void)cfg;
    (void)eng;
    *out = NULL;
    snprintf(why, why_len, "this build has no PostgreSQL queue: it was compiled without libpq "
                           "(install libpq-dev, e.g. with scripts/deps.sh, and rebuild)");
    return ZP_E_UNSUPPORTED;
}

void zp__fleet_close(zp__fleet *f, double grace_s)
{
    (void)f;
    (void)grace_s;
}

zp_err zp__fleet_submit(zp__fleet *f, const zp_job_request *req, char id_out[ZP_JOB_ID_MAX + 1],
                        char *why, size_t why_len)
{
    (void)f, (void)req, (void)id_out;
    snprintf(why, why_len, "no PostgreSQL queue in this build");
    return ZP_E_UNSUPPORTED;
}

zp_err zp__fleet_await(zp__fleet *f, const char *id, double timeout_s, zp_job_info *info,
                       zp_job_result *res)
{
    (void)f, (void)id, (void)timeout_s, (void)info, (void)res;
    return ZP_E_UNSUPPORTED;
}

zp_err zp__fleet_cancel(zp__fleet *f, const char *id)
{
    (void)f, (void)id;
    return ZP_E_UNSUPPORTED;
}

char *zp__fleet_status_json(zp__fleet *f)
{
    (void)f;
    return NULL;
}

char *zp__fleet_metrics(zp__fleet *f)
{
    (void)f;
    return NULL;
}
