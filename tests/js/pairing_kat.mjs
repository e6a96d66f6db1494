// Known answers for tests/test_pairing.c, from @noble/curves 2.4.0 (an
// implementation independent of zkpipe). Run from tests/js:
//   node pairing_kat.mjs
// and paste the printed lines into the KAT section of tests/test_pairing.c.
// Fp12 values are printed as noble's Fp12.toBytes: 576 bytes, hex.
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const { Fp12 } = bls.fields;
const hex = (u8) => Buffer.from(u8).toString('hex');
const G1 = bls.G1.Point.BASE;
const G2 = bls.G2.Point.BASE;

// e(G1, G2): the whole pipeline (Miller loop, final exponentiation, layout).
console.log('e_g1_g2 ' + hex(Fp12.toBytes(bls.pairing(G1, G2))));

// The final exponentiation alone, on an element with Fp coefficients
// 1, 2, ..., 12 in toBytes order: it does not depend on how a Miller loop
// scales its lines, so it pins the exponent (noble's hard part) exactly.
const be = new Uint8Array(576);
for (let i = 0; i < 12; i++) be[48 * i + 47] = i + 1;
const f = Fp12.fromBytes(be);
console.log('fe_in ' + hex(Fp12.toBytes(f)));
console.log('fe_out ' + hex(Fp12.toBytes(Fp12.finalExponentiate(f))));

// A pairing of non-generator points: e(5 G1, 7 G2) = e(G1, G2)^35.
console.log('e_5g1_7g2 ' + hex(Fp12.toBytes(bls.pairing(G1.multiply(5n), G2.multiply(7n)))));
// Sanity that the library agrees with itself before we trust the numbers.
const e1 = bls.pairing(G1, G2);
if (!Fp12.eql(bls.pairing(G1.multiply(5n), G2.multiply(7n)), Fp12.pow(e1, 35n)))
  throw new Error('noble not bilinear');
