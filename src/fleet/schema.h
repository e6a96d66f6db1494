/* The fleet's versioned migrations (schema.c): entry i brings the schema
 * from version i to i + 1. */
#ifndef ZP_FLEET_SCHEMA_H
#define ZP_FLEET_SCHEMA_H

extern const char *const zp__fleet_migrations[];
extern const unsigned zp__fleet_n_migrations;

#endif
