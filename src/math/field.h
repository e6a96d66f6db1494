/*
 * Field entry points beyond the public header, for the library's own use.
 */
#ifndef ZP_MATH_FIELD_H
#define ZP_MATH_FIELD_H

#include "zkpipe.h"

/*
 * out = a^-1 (0 for a = 0), like zp_fp_inv / zp_fr_inv but faster and in
 * time that depends on a: only for public values (key points, batch
 * conversions of public points), never for the proof's blinding factors.
 */
void zp__fp_inv_vartime(zp_fp *out, const zp_fp *a);
void zp__fr_inv_vartime(zp_fr *out, const zp_fr *a);

#endif
