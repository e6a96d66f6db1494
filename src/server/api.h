/* Helpers shared by the route handlers (api_*.c). */
#ifndef ZP_SERVER_API_H
#define ZP_SERVER_API_H

#include <cjson/cJSON.h>

#include "io/io.h"
#include "server/server.h"

/* 1..ZP_NAME_MAX of [A-Za-z0-9._-] (key names); job ids also allow ':' and
 * up to ZP_JOB_ID_MAX. */
bool zp__api_name_ok(const char *s, bool job_id);

/* The body as a JSON document (cJSON_Delete it), or NULL with a 400
 * "bad_json" reply saying where it broke. */
cJSON *zp__api_parse_json(const zp__srv_req *r, zp__srv_reply *out);

/* Prints and deletes o; NULL when o is NULL or printing ran out of memory. */
char *zp__api_print(cJSON *o);

/* Finds a key by name, and its index when index is not NULL; false when
 * there is none. */
bool zp__api_find_key(zp_engine *eng, const char *name, zp_key_info *out, size_t *index);

/* A key's plan on GPU gpu (resident): {"gpu", "resident": [arrays],
 * "streamed": {array: fraction streamed}, "pinned_bytes",
 * "ring_buffer_bytes", "slot_bytes", "slots", "device_bytes", "plan"}.
 * NULL on allocation failure. */
cJSON *zp__api_key_plan_json(int gpu, const zp_key_gpu_plan *p);

/* A GPU of the engine as /v1/status lists it. NULL on allocation failure. */
cJSON *zp__api_gpu_json(const zp_gpu_info *g);

/* A job as JSON; with res (a done job) also the proofs, encoded base64 or
 * hex, and the public inputs as decimal strings, one array per partition.
 * NULL on allocation failure. */
cJSON *zp__api_job_json(const zp_job_info *info, const zp_job_result *res, bool hex);

#endif
