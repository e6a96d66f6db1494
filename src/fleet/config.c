/* The fleet's default settings, in every build (fleet.h). */
#include "fleet/fleet.h"

void zp__fleet_config_default(zp__fleet_config *c)
{
    *c = (zp__fleet_config){.heartbeat_s = 1, .claim_timeout_s = 30, .poll_s = 2, .max_attempts = 3,
                            .backoff_s = 1, .ahead = ZP__FLEET_AHEAD_AUTO,
                            .inline_max = (uint64_t)64 << 20};
}
