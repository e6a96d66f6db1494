// Checks a bellperson-style 192-byte Groth16 proof made by zkpipe with
// @noble/curves 2.4.0, an implementation independent of zkpipe:
//   node proof192_noble.mjs DIR
// DIR holds (from `test_params --bp-out DIR`, see bellperson.test.sh):
//   proof.bin    A (G1 compressed 48) ‖ B (G2 compressed 96) ‖ C (G1 compressed 48)
//   proof.json   the same proof as zkpipe prints it (snarkjs layout, decimal affine)
//   public.json  the public inputs
//   k.vk         the bellperson verifying key: alpha1 beta1 (G1) beta2 gamma2 (G2)
//                delta1 (G1) delta2 (G2), u32 BE count, IC (G1), all uncompressed
// It decodes the proof and the key with noble, compares the points with
// zkpipe's JSON, re-encodes them (the bytes must come back exactly), and
// runs the Groth16 pairing check itself; a tampered proof must fail it.
// Exit status 0 when everything holds, 1 otherwise.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const { Fp12 } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const dir = process.argv[2];
if (!dir) {
  console.error('usage: node proof192_noble.mjs DIR');
  process.exit(2);
}

let failures = 0;
function check(cond, what) {
  if (!cond) {
    console.error('FAIL ' + what);
    failures++;
  } else {
    console.log('ok   ' + what);
  }
}

const hex = (u8) => Buffer.from(u8).toString('hex');

// -------------------------------------------------------------- the proof
const bin = new Uint8Array(readFileSync(join(dir, 'proof.bin')));
check(bin.length === 192, 'proof.bin is 192 bytes');
const A = G1.fromBytes(bin.subarray(0, 48));
const B = G2.fromBytes(bin.subarray(48, 144));
const C = G1.fromBytes(bin.subarray(144, 192));
for (const [name, p] of [['A', A], ['B', B], ['C', C]]) {
  p.assertValidity(); // on the curve and in the prime-order subgroup
  check(!p.equals(p.constructor.ZERO), `${name} is not infinity`);
}
// Compression flag set on each point; the sort bit is noble's choice too.
check((bin[0] & 0x80) && (bin[48] & 0x80) && (bin[144] & 0x80), 'compression flags set');
check(hex(A.toBytes(true)) === hex(bin.subarray(0, 48)), 'A re-encodes to the same 48 bytes');
check(hex(B.toBytes(true)) === hex(bin.subarray(48, 144)), 'B re-encodes to the same 96 bytes');
check(hex(C.toBytes(true)) === hex(bin.subarray(144, 192)), 'C re-encodes to the same 48 bytes');

// The points zkpipe reports for the same proof (snarkjs JSON, decimal).
const pj = JSON.parse(readFileSync(join(dir, 'proof.json'), 'utf8'));
const a = A.toAffine(), b = B.toAffine(), c = C.toAffine();
check(BigInt(pj.pi_a[0]) === a.x && BigInt(pj.pi_a[1]) === a.y && pj.pi_a[2] === '1',
  'A equals pi_a of proof.json');
check(BigInt(pj.pi_b[0][0]) === b.x.c0 && BigInt(pj.pi_b[0][1]) === b.x.c1 &&
  BigInt(pj.pi_b[1][0]) === b.y.c0 && BigInt(pj.pi_b[1][1]) === b.y.c1,
  'B equals pi_b of proof.json');
check(BigInt(pj.pi_c[0]) === c.x && BigInt(pj.pi_c[1]) === c.y, 'C equals pi_c of proof.json');

// ------------------------------------------------------ the bellperson vk
const vkb = new Uint8Array(readFileSync(join(dir, 'k.vk')));
let pos = 0;
function take(n) {
  if (pos + n > vkb.length) throw new Error('k.vk is truncated');
  const s = vkb.subarray(pos, pos + n);
  pos += n;
  return s;
}
const g1u = () => { const p = G1.fromBytes(take(96)); p.assertValidity(); return p; };
const g2u = () => { const p = G2.fromBytes(take(192)); p.assertValidity(); return p; };
const alpha1 = g1u(), beta1 = g1u(), beta2 = g2u(), gamma2 = g2u(), delta1 = g1u(), delta2 = g2u();
const cnt = take(4);
const nIc = ((cnt[0] << 24) | (cnt[1] << 16) | (cnt[2] << 8) | cnt[3]) >>> 0;
const ic = [];
for (let i = 0; i < nIc; i++) ic.push(g1u());
check(pos === vkb.length, `k.vk holds exactly the 7 fields (${nIc} IC points)`);
check(!beta1.equals(G1.ZERO) && !delta1.equals(G1.ZERO), 'beta1 and delta1 are present');

const pub = JSON.parse(readFileSync(join(dir, 'public.json'), 'utf8')).map(BigInt);
check(pub.length === nIc - 1, `public.json has ${nIc - 1} inputs`);

// --------------------------------------------------- the pairing equation
// e(A, B) = e(alpha1, beta2) · e(IC0 + Σ pub_i IC_i, gamma2) · e(C, delta2)
function verify(pA, pB, pC, inputs) {
  let acc = ic[0];
  inputs.forEach((x, i) => {
    if (x !== 0n) acc = acc.add(ic[i + 1].multiply(x));
  });
  const lhs = bls.pairing(pA, pB);
  const rhs = Fp12.mul(Fp12.mul(bls.pairing(alpha1, beta2), bls.pairing(acc, gamma2)),
    bls.pairing(pC, delta2));
  return Fp12.eql(lhs, rhs);
}
check(verify(A, B, C, pub), 'the proof verifies against k.vk (noble pairings)');
check(!verify(A, B, C.add(G1.BASE), pub), 'C + G fails');
check(!verify(A, B.negate(), C, pub), '-B fails');
const pub2 = pub.slice();
pub2[0] = (pub2[0] + 1n) % bls.fields.Fr.ORDER;
check(!verify(A, B, C, pub2), 'a changed public input fails');

console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
