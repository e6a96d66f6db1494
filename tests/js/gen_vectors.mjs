// Writes the known-answer vectors under tests/vectors/ from @noble/curves
// (an independent BLS12-381 implementation), so that tests/test_vectors.c can
// check zkpipe's field, curve, encoding and pairing code against it.
//
// Deterministic: every random value comes from a seeded splitmix64, so
// running this again reproduces the same files byte for byte.
//
//   cd tests/js && node gen_vectors.mjs        (writes ../vectors/*.txt)
//
// Formats are described in tests/vectors/README.md.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'vectors');
const { Fp, Fp2, Fp6, Fp12, Fr } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const P = Fp.ORDER;
const R = Fr.ORDER;

// ---------------------------------------------------------------- helpers

function fail(msg) {
  throw new Error('gen_vectors: ' + msg);
}

// splitmix64: tiny, well-mixed, and trivially reproducible.
let seed = 0x7a6b70697065n; // "zkpipe"
const M64 = (1n << 64n) - 1n;
function rand64() {
  seed = (seed + 0x9e3779b97f4a7c15n) & M64;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
function randBits(bits) {
  let v = 0n;
  for (let i = 0; i < bits; i += 64) v = (v << 64n) | rand64();
  return v & ((1n << BigInt(bits)) - 1n);
}
function randBelow(m) {
  const bits = m.toString(2).length;
  for (;;) {
    const v = randBits(bits);
    if (v < m) return v;
  }
}
function randInt(n) {
  return Number(rand64() % BigInt(n));
}

const hexN = (x, bytes) => {
  if (x < 0n || x >= 1n << BigInt(8 * bytes)) fail('value does not fit ' + bytes + ' bytes');
  return x.toString(16).padStart(2 * bytes, '0');
};
// Any-length exponent or scalar: big-endian hex with an even digit count.
const hexAny = (x) => {
  const h = x.toString(16);
  return h.length % 2 ? '0' + h : h;
};
const bytesHex = (b) => Buffer.from(b).toString('hex');
const fpHex = (x) => hexN(x, 48);
const frHex = (x) => hexN(x, 32);
const fp2Hex = (a) => fpHex(a.c0) + fpHex(a.c1);
const fp6Hex = (a) => fp2Hex(a.c0) + fp2Hex(a.c1) + fp2Hex(a.c2);
const fp12Hex = (a) => {
  // zkpipe's zp_fp12_to_bytes promises noble's order; check our hand-made
  // order against noble's own serializer so that the files say the same.
  const h = fp6Hex(a.c0) + fp6Hex(a.c1);
  if (h !== bytesHex(Fp12.toBytes(a))) fail('Fp12.toBytes order differs from c0.c0.c0 ... c1.c2.c1');
  return h;
};

function tryOr(f, dflt) {
  try {
    return f();
  } catch {
    return dflt;
  }
}

const uniq = (xs) => [...new Set(xs)];

function writeVectors(name, header, lines) {
  const text = header.map((h) => '# ' + h).join('\n') + '\n' + lines.join('\n') + '\n';
  writeFileSync(join(OUT, name), text);
  console.log(`${name}: ${lines.length} vectors, ${text.length} bytes`);
}

// ---------------------------------------------------------- prime fields

// Values where limb carries, the final subtraction and the top limb are
// exercised: small numbers, the modulus neighbourhood, limb boundaries and
// the Montgomery constants themselves.
function edgeValues(m, bytes) {
  const v = [0n, 1n, 2n, 3n, m - 1n, m - 2n, m - 3n, (m - 1n) / 2n, (m + 1n) / 2n];
  for (const k of [64n, 128n, 192n, 256n, 320n, 376n, 380n]) {
    v.push((1n << k) - 1n, 1n << k, (1n << k) + 1n);
  }
  const rbits = BigInt(8 * bytes);
  const mont = (1n << rbits) % m; // R mod m
  v.push(mont, (mont * mont) % m, m - mont, m - (1n << 64n), m - (1n << 64n) + 1n);
  // All-ones limbs below the modulus' top limb.
  v.push(m & ~M64, (((m >> 64n) - 1n) << 64n) | M64);
  return uniq(v.filter((x) => x >= 0n && x < m)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function legendre(F, a) {
  if (a === 0n) return 0;
  const t = F.pow(a, (F.ORDER - 1n) / 2n);
  return t === 1n ? 1 : -1;
}

function fieldVectors(F, name, bytes, nRandom) {
  const m = F.ORDER;
  const hx = (x) => hexN(x, bytes);
  const edges = edgeValues(m, bytes);
  const rnd = () => randBelow(m);
  const lines = [];
  // Binary ops: edges against a core set of edges, plus random pairs.
  const core = [0n, 1n, m - 1n, m - 2n, (m + 1n) / 2n, M64, 1n << 64n,
    (1n << 64n * BigInt(bytes / 8 - 1)) - 1n].filter((x) => x < m);
  const pairs = [];
  for (const a of edges) for (const b of uniq(core)) pairs.push([a, b]);
  for (let i = 0; i < nRandom; i++) pairs.push([rnd(), rnd()]);
  for (const a of edges) pairs.push([a, rnd()]);
  for (const [a, b] of pairs) {
    lines.push(`add ${hx(a)} ${hx(b)} -> ${hx(F.add(a, b))}`);
    lines.push(`sub ${hx(a)} ${hx(b)} -> ${hx(F.sub(a, b))}`);
    lines.push(`mul ${hx(a)} ${hx(b)} -> ${hx(F.mul(a, b))}`);
  }
  const singles = [...edges];
  for (let i = 0; i < nRandom; i++) singles.push(rnd());
  for (const a of singles) {
    lines.push(`sqr ${hx(a)} -> ${hx(F.sqr(a))}`);
    lines.push(`dbl ${hx(a)} -> ${hx(F.add(a, a))}`);
    lines.push(`neg ${hx(a)} -> ${hx(F.neg(a))}`);
    // zkpipe defines inv(0) = 0 (zkpipe.h); noble refuses it.
    lines.push(`inv ${hx(a)} -> ${hx(a === 0n ? 0n : F.inv(a))}`);
    lines.push(`legendre ${hx(a)} -> ${legendre(F, a)}`);
    const s = tryOr(() => F.sqrt(a), null);
    if ((s === null) !== (legendre(F, a) === -1)) fail(`${name} sqrt/legendre disagree`);
    if (s !== null && F.sqr(s) !== a) fail(`${name} sqrt wrong`);
    lines.push(`sqrt ${hx(a)} -> ${s === null ? 'none' : hx(s)}`);
  }
  // Exponents: small, limb-sized, Fermat-related, long, and with leading
  // zero limbs (zp_*_pow takes a limb count that may exceed the value).
  const exps = [0n, 1n, 2n, 3n, M64, 1n << 64n, m - 1n, m - 2n, m, (m + 1n) / 4n, R, P,
    (1n << 512n) - 1n];
  for (let i = 0; i < 12; i++) exps.push(randBits(1 + randInt(600)));
  const bases = [0n, 1n, m - 1n, 2n];
  for (let i = 0; i < exps.length; i++) {
    const e = exps[i];
    for (const a of i < 4 ? bases.concat([rnd()]) : [rnd()]) {
      lines.push(`pow ${hx(a)} ${hexAny(e)} -> ${hx(F.pow(a, e))}`);
    }
  }
  const a0 = rnd();
  lines.push(`pow ${hx(a0)} ${'00'.repeat(16)}${hexN(5n, 8)} -> ${hx(F.pow(a0, 5n))}`);
  lines.push(`pow ${hx(a0)} ${'00'.repeat(24)} -> ${hx(1n)}`);
  // Canonical bytes in both byte orders: values below the modulus round-trip,
  // values at or above it are refused.
  const over = [m, m + 1n, m + M64, (1n << BigInt(8 * bytes)) - 1n, 1n << BigInt(8 * bytes - 1)]
    .filter((x) => x >= m && x < 1n << BigInt(8 * bytes));
  for (const x of over) {
    if (F === Fp && tryOr(() => (F.fromBytes(Buffer.from(hx(x), 'hex')), true), false))
      fail('noble accepts a non-canonical Fp');
  }
  const le = (h) => Buffer.from(h, 'hex').reverse().toString('hex');
  for (const x of singles.slice(0, edges.length + 8)) {
    if (F === Fp && F.fromBytes(Buffer.from(hx(x), 'hex')) !== x) fail('noble Fp bytes');
    lines.push(`from_be ${hx(x)} -> ok`);
    lines.push(`from_le ${le(hx(x))} -> ok`);
  }
  for (const x of uniq(over)) {
    lines.push(`from_be ${hx(x)} -> ZP_E_NOT_CANONICAL`);
    lines.push(`from_le ${le(hx(x))} -> ZP_E_NOT_CANONICAL`);
  }
  if (F === Fp) {
    for (const a of singles) lines.push(`lex ${hx(a)} -> ${a > (m - 1n) / 2n ? 1 : 0}`);
  }
  return lines;
}

// ------------------------------------------------------------ extensions

const randFp2 = () => Fp2.create({ c0: randBelow(P), c1: randBelow(P) });
const randFp6 = () => Fp6.create({ c0: randFp2(), c1: randFp2(), c2: randFp2() });
const randFp12 = () => Fp12.create({ c0: randFp6(), c1: randFp6() });

function fp2Vectors(nRandom) {
  const mk = (c0, c1) => Fp2.create({ c0, c1 });
  const edges = [mk(0n, 0n), mk(1n, 0n), mk(0n, 1n), mk(P - 1n, 0n), mk(0n, P - 1n),
    mk(P - 1n, P - 1n), mk(1n, 1n), mk(M64, 1n << 64n), mk((P - 1n) / 2n, (P + 1n) / 2n),
    mk(2n, 0n), mk(P - 2n, 3n), mk(4n, 4n)];
  const vals = [...edges];
  for (let i = 0; i < nRandom; i++) vals.push(randFp2());
  // Squares too, so that sqrt has something to find beyond chance.
  for (let i = 0; i < 16; i++) vals.push(Fp2.sqr(randFp2()));
  const h = fp2Hex;
  const lines = [];
  for (let i = 0; i < vals.length; i++) {
    const a = vals[i];
    const b = i < edges.length ? edges[(i * 5 + 3) % edges.length] : vals[(i * 7 + 1) % vals.length];
    lines.push(`add ${h(a)} ${h(b)} -> ${h(Fp2.add(a, b))}`);
    lines.push(`sub ${h(a)} ${h(b)} -> ${h(Fp2.sub(a, b))}`);
    lines.push(`mul ${h(a)} ${h(b)} -> ${h(Fp2.mul(a, b))}`);
    lines.push(`sqr ${h(a)} -> ${h(Fp2.sqr(a))}`);
    lines.push(`neg ${h(a)} -> ${h(Fp2.neg(a))}`);
    lines.push(`conj ${h(a)} -> ${h(Fp2.frobeniusMap(a, 1))}`);
    lines.push(`mul_nr ${h(a)} -> ${h(Fp2.mul(a, Fp2.NONRESIDUE))}`);
    lines.push(`inv ${h(a)} -> ${h(Fp2.is0(a) ? Fp2.ZERO : Fp2.inv(a))}`);
    const s = tryOr(() => Fp2.sqrt(a), null);
    if (s !== null && !Fp2.eql(Fp2.sqr(s), a)) fail('Fp2 sqrt wrong');
    // Fp2 is a square iff its norm is a square in Fp.
    const norm = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
    if ((s === null) !== (legendre(Fp, norm) === -1)) fail('Fp2 sqrt/norm disagree');
    lines.push(`sqrt ${h(a)} -> ${s === null ? 'none' : h(s)}`);
    const lex = a.c1 !== 0n ? a.c1 > (P - 1n) / 2n : a.c0 > (P - 1n) / 2n;
    lines.push(`lex ${h(a)} -> ${lex ? 1 : 0}`);
  }
  for (const e of [0n, 1n, 2n, P - 1n, P * P - 2n, (1n << 500n) + 12345n, randBits(300)]) {
    const a = randFp2();
    lines.push(`pow ${h(a)} ${hexAny(e)} -> ${h(Fp2.pow(a, e))}`);
  }
  return lines;
}

function towerVectors(n) {
  const lines = [];
  const f6 = [Fp6.ZERO, Fp6.ONE];
  for (let i = 0; i < n; i++) f6.push(randFp6());
  for (let i = 0; i < f6.length; i++) {
    const a = f6[i];
    const b = f6[(i + 3) % f6.length];
    lines.push(`fp6_mul ${fp6Hex(a)} ${fp6Hex(b)} -> ${fp6Hex(Fp6.mul(a, b))}`);
    lines.push(`fp6_sqr ${fp6Hex(a)} -> ${fp6Hex(Fp6.sqr(a))}`);
    lines.push(`fp6_inv ${fp6Hex(a)} -> ${fp6Hex(Fp6.is0(a) ? Fp6.ZERO : Fp6.inv(a))}`);
    lines.push(`fp6_mul_nr ${fp6Hex(a)} -> ${fp6Hex(Fp6.mulByNonresidue(a))}`);
  }
  for (let k = 0; k < 6; k++) {
    const a = randFp6();
    // Definition, not noble's table: x^(q^k), cross-checked with noble's map.
    const want = Fp6.pow(a, P ** BigInt(k));
    if (!Fp6.eql(want, Fp6.frobeniusMap(a, k))) fail('Fp6 frobenius');
    lines.push(`fp6_frob ${fp6Hex(a)} ${k} -> ${fp6Hex(want)}`);
  }
  const f12 = [Fp12.ONE];
  for (let i = 0; i < n; i++) f12.push(randFp12());
  for (let i = 0; i < f12.length; i++) {
    const a = f12[i];
    const b = f12[(i + 1) % f12.length];
    lines.push(`fp12_mul ${fp12Hex(a)} ${fp12Hex(b)} -> ${fp12Hex(Fp12.mul(a, b))}`);
    lines.push(`fp12_sqr ${fp12Hex(a)} -> ${fp12Hex(Fp12.sqr(a))}`);
    lines.push(`fp12_inv ${fp12Hex(a)} -> ${fp12Hex(Fp12.inv(a))}`);
    lines.push(`fp12_conj ${fp12Hex(a)} -> ${fp12Hex(Fp12.conjugate(a))}`);
  }
  for (let k = 0; k < 12; k++) {
    const a = randFp12();
    const want = Fp12.pow(a, P ** BigInt(k));
    if (!Fp12.eql(want, Fp12.frobeniusMap(a, k))) fail('Fp12 frobenius');
    lines.push(`fp12_frob ${fp12Hex(a)} ${k} -> ${fp12Hex(want)}`);
  }
  for (const e of [0n, 1n, 5n, R, randBits(256)]) {
    const a = randFp12();
    lines.push(`fp12_pow ${fp12Hex(a)} ${hexAny(e)} -> ${fp12Hex(Fp12.pow(a, e))}`);
  }
  return lines;
}

// ---------------------------------------------------------------- curves

// noble refuses scalars >= r; the generators have order r, so k*G = (k mod r)*G.
const mulG = (Pt, k) => Pt.BASE.multiplyUnsafe(k % R);

function scalarList() {
  const ks = [];
  for (let k = 0n; k <= 16n; k++) ks.push(k);
  ks.push(R - 1n, R - 2n, (R - 1n) / 2n, (R + 1n) / 2n, M64, 1n << 64n, (1n << 128n) - 1n,
    1n << 254n, (1n << 255n) - 1n);
  // At and beyond r: zp_*_jac_mul_vartime takes any limb count.
  ks.push(R, R + 1n, 2n * R + 5n, (1n << 256n) - 1n, (1n << 384n) + 7n, (1n << 512n) - 1n);
  for (let i = 0; i < 24; i++) ks.push(randBelow(R));
  for (let i = 0; i < 4; i++) ks.push(randBits(8 + randInt(120)));
  return ks;
}

// Encoding built by hand from the flag rules of docs/formats.md, Constants and point encoding, so that a bad
// encoding can be assembled from parts that noble's encoder would refuse.
function enc(xHexParts, yHexParts, { compressed = false, infinity = false, sort = false } = {}) {
  const b = Buffer.from(xHexParts.join('') + (compressed ? '' : yHexParts.join('')), 'hex');
  b[0] |= (compressed ? 0x80 : 0) | (infinity ? 0x40 : 0) | (sort ? 0x20 : 0);
  return b.toString('hex');
}

// noble's toHex refuses the identity, whose zcash encoding is fixed: the
// infinity flag, plus the compression flag when compressed, and zeros.
function ptHex(pt, compressed) {
  if (!pt.is0()) return pt.toHex(compressed);
  const w = pt instanceof G1 ? 48 : 96;
  return compressed ? 'c0' + '00'.repeat(w - 1) : '40' + '00'.repeat(2 * w - 1);
}

function checkRoundTrip(Pt, pt) {
  for (const c of [true, false]) {
    if (!Pt.fromHex(ptHex(pt, c)).equals(pt)) fail('noble round trip');
  }
}

function mustReject(Pt, hx, why) {
  let ok = false;
  try {
    Pt.fromHex(hx);
    ok = true;
  } catch {
    /* expected */
  }
  if (ok) fail('noble accepts the invalid encoding: ' + why + ' ' + hx);
}

// Generic over G1 (Fp) and G2 (Fp2): what differs is the coordinate field.
function curveVectors(g) {
  const { Pt, W, coordHex } = g;
  const lines = [];
  for (const k of scalarList()) {
    const pt = mulG(Pt, k);
    checkRoundTrip(Pt, pt);
    lines.push(`mul ${hexAny(k)} -> ${ptHex(pt, false)} ${ptHex(pt, true)}`);
  }
  // Additions: generic, doubling, inverse pairs, and the identity.
  const pts = [Pt.ZERO, Pt.BASE, Pt.BASE.negate()];
  for (let i = 0; i < 10; i++) pts.push(mulG(Pt, randBelow(R)));
  const pairs = [];
  for (let i = 0; i < pts.length; i++) pairs.push([pts[i], pts[(i + 4) % pts.length]]);
  for (const p of pts) pairs.push([p, p], [p, p.negate()], [p, Pt.ZERO], [Pt.ZERO, p]);
  for (const [p, q] of pairs) {
    lines.push(`add ${ptHex(p, false)} ${ptHex(q, false)} -> ${ptHex(p.add(q), false)}`);
  }

  // ---- invalid encodings, one defect each, labelled with zkpipe's code.
  const bad = [];
  const G = Pt.BASE;
  const gc = ptHex(G, true);
  const gu = ptHex(G, false);
  const zeros = (n) => '00'.repeat(n);
  const add = (hx, code, why) => {
    mustReject(Pt, hx, why);
    bad.push(`bad ${hx === '' ? '-' : hx} -> ${code} ${why}`);
  };
  // Lengths: none of them is W or 2W.
  for (const n of [0, 1, W - 1, W + 1, 2 * W - 1, 2 * W + 1, 3 * W, 4 * W]) {
    const src = (gu + gu + gu + gu).slice(0, 2 * n);
    add(src, 'ZP_E_BAD_LENGTH', `length_${n}`);
  }
  add(gc.slice(0, 2 * (W - 1)), 'ZP_E_BAD_LENGTH', 'compressed_generator_truncated');
  add(gu + '00', 'ZP_E_BAD_LENGTH', 'uncompressed_generator_plus_a_byte');
  // Flags that disagree with the length or with each other.
  add(gc + zeros(W), 'ZP_E_BAD_FLAGS', 'compressed_flag_with_uncompressed_length');
  {
    const u = Buffer.from(gu, 'hex');
    u[0] |= 0x80;
    add(u.toString('hex'), 'ZP_E_BAD_FLAGS', 'compressed_flag_on_full_uncompressed_point');
    const c = Buffer.from(gc, 'hex');
    c[0] &= 0x1f;
    add(c.toString('hex'), 'ZP_E_BAD_FLAGS', 'uncompressed_flags_with_compressed_length');
    const s = Buffer.from(gu, 'hex');
    s[0] |= 0x20;
    add(s.toString('hex'), 'ZP_E_BAD_FLAGS', 'sort_bit_on_uncompressed');
  }
  add('c0' + zeros(2 * W - 1), 'ZP_E_BAD_FLAGS', 'compressed_infinity_with_uncompressed_length');
  add('40' + zeros(W - 1), 'ZP_E_BAD_FLAGS', 'uncompressed_infinity_with_compressed_length');
  add('e0' + zeros(W - 1), 'ZP_E_BAD_FLAGS', 'sort_bit_on_compressed_infinity');
  add('60' + zeros(2 * W - 1), 'ZP_E_BAD_FLAGS', 'sort_bit_on_uncompressed_infinity');
  add('c1' + zeros(W - 1), 'ZP_E_BAD_FLAGS', 'compressed_infinity_low_bits_of_byte0');
  add('c0' + zeros(W - 2) + '01', 'ZP_E_BAD_FLAGS', 'compressed_infinity_last_byte_set');
  add('c0' + zeros(W / 2 - 1) + '80' + zeros(W / 2 - 1), 'ZP_E_BAD_FLAGS', 'compressed_infinity_middle_byte_set');
  add('41' + zeros(2 * W - 1), 'ZP_E_BAD_FLAGS', 'uncompressed_infinity_low_bits_of_byte0');
  add('40' + zeros(2 * W - 2) + '01', 'ZP_E_BAD_FLAGS', 'uncompressed_infinity_last_byte_set');
  add('40' + gu.slice(2), 'ZP_E_BAD_FLAGS', 'uncompressed_infinity_flag_on_generator');
  add('c0' + gc.slice(2), 'ZP_E_BAD_FLAGS', 'compressed_infinity_flag_on_generator');
  // Coordinates >= q.  Field-element tokens are W/… hex of 48 bytes each.
  const q = fpHex(P);
  const qTop = fpHex((1n << 381n) - 1n); // the largest value the flag bits leave room for
  const yMax = fpHex((1n << 384n) - 1n);
  g.nonCanonical({ add, q, qTop, yMax, fpHex });
  // Curve and subgroup.
  g.offCurve({ add });
  g.notInSubgroup({ add });
  // The all-zero uncompressed payload is (0, 0), which is not on the curve; it
  // must not be read as infinity (that needs the flag).
  add(zeros(2 * W), 'ZP_E_NOT_ON_CURVE', 'uncompressed_all_zero_without_infinity_flag');
  return lines.concat(bad);
}

// A coordinate x whose x^3 + b is (is not) a square, searching from a seed.
function findX(F, b, randCoord, wantSquare) {
  for (;;) {
    const x = randCoord();
    const rhs = F.add(F.mul(F.sqr(x), x), b);
    const y = tryOr(() => F.sqrt(rhs), null);
    if ((y !== null) === wantSquare) return { x, y };
  }
}

const g1 = {
  Pt: G1,
  F: Fp,
  W: 48,
  b: 4n,
  coordHex: (x) => fpHex(x),
  randCoord: () => randBelow(P),
  nonCanonical({ add, q, qTop, yMax, fpHex: fh }) {
    const G = G1.BASE;
    add(enc([q], [], { compressed: true }), 'ZP_E_NOT_CANONICAL', 'compressed_x_eq_q');
    add(enc([qTop], [], { compressed: true }), 'ZP_E_NOT_CANONICAL', 'compressed_x_2pow381_minus_1');
    add(enc([q], [fh(2n)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_x_eq_q');
    add(enc([fh(G.x)], [fh(G.y + P)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_plus_q');
    add(enc([fh(G.x)], [yMax]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_2pow384_minus_1');
    add(enc([fh(G.x)], [q]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_eq_q');
    // A valid point whose x + q still fits under the flag bits: a decoder that
    // reduced mod q would accept it.
    const pt = findPoint(G1, (p) => p.x + P < 1n << 381n);
    const t = pt.toAffine();
    add(enc([fh(t.x + P)], [fh(t.y)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_x_plus_q');
    add(enc([fh(t.x + P)], [], { compressed: true, sort: t.y > (P - 1n) / 2n }),
      'ZP_E_NOT_CANONICAL', 'compressed_x_plus_q');
  },
  offCurve({ add }) {
    const G = G1.BASE;
    add(enc([fpHex(G.x)], [fpHex(Fp.add(G.y, 1n))]), 'ZP_E_NOT_ON_CURVE', 'generator_y_plus_1');
    add(enc([fpHex(Fp.add(G.x, 1n))], [fpHex(G.y)]), 'ZP_E_NOT_ON_CURVE', 'generator_x_plus_1');
    const { x } = findX(Fp, 4n, () => randBelow(P), false);
    add(enc([fpHex(x)], [], { compressed: true }), 'ZP_E_NOT_ON_CURVE', 'compressed_x_without_y');
    add(enc([fpHex(x)], [], { compressed: true, sort: true }), 'ZP_E_NOT_ON_CURVE', 'compressed_x_without_y_sorted');
    add(enc([fpHex(x)], [fpHex(5n)]), 'ZP_E_NOT_ON_CURVE', 'uncompressed_random_x');
  },
  notInSubgroup({ add }) {
    // (0, ±2) has order 3: x = 0 is a legal compressed x that is not infinity.
    add(enc([fpHex(0n)], [], { compressed: true }), 'ZP_E_NOT_IN_SUBGROUP', 'compressed_x_0_order_3');
    add(enc([fpHex(0n)], [fpHex(2n)]), 'ZP_E_NOT_IN_SUBGROUP', 'uncompressed_0_2_order_3');
    for (let i = 0; i < 3; i++) {
      const pt = offSubgroup(G1, Fp, 4n, () => randBelow(P));
      const { x, y } = pt.toAffine();
      add(enc([fpHex(x)], [fpHex(y)]), 'ZP_E_NOT_IN_SUBGROUP', 'uncompressed_cofactor_point');
      add(enc([fpHex(x)], [], { compressed: true, sort: y > (P - 1n) / 2n }),
        'ZP_E_NOT_IN_SUBGROUP', 'compressed_cofactor_point');
    }
  },
};

const fp2CoordHex = (a) => fpHex(a.c1) + fpHex(a.c0); // zcash order: c1 first
const fp2Sort = (y) => (y.c1 !== 0n ? y.c1 > (P - 1n) / 2n : y.c0 > (P - 1n) / 2n);
const G2B = Fp2.create({ c0: 4n, c1: 4n });

const g2 = {
  Pt: G2,
  F: Fp2,
  W: 96,
  b: G2B,
  coordHex: fp2CoordHex,
  randCoord: randFp2,
  nonCanonical({ add, q, qTop, yMax, fpHex: fh }) {
    const G = G2.BASE;
    const { x, y } = G;
    const c = { compressed: true, sort: fp2Sort(y) };
    add(enc([q, fh(x.c0)], [], c), 'ZP_E_NOT_CANONICAL', 'compressed_x_c1_eq_q');
    add(enc([qTop, fh(x.c0)], [], c), 'ZP_E_NOT_CANONICAL', 'compressed_x_c1_2pow381_minus_1');
    add(enc([fh(x.c1), q], [], c), 'ZP_E_NOT_CANONICAL', 'compressed_x_c0_eq_q');
    add(enc([fh(x.c1), fh(x.c0 + P)], [], c), 'ZP_E_NOT_CANONICAL', 'compressed_x_c0_plus_q');
    add(enc([fh(x.c1), yMax], [], c), 'ZP_E_NOT_CANONICAL', 'compressed_x_c0_2pow384_minus_1');
    const yy = [fh(y.c1), fh(y.c0)];
    const xx = [fh(x.c1), fh(x.c0)];
    add(enc([q, fh(x.c0)], yy), 'ZP_E_NOT_CANONICAL', 'uncompressed_x_c1_eq_q');
    add(enc([fh(x.c1), fh(x.c0 + P)], yy), 'ZP_E_NOT_CANONICAL', 'uncompressed_x_c0_plus_q');
    add(enc(xx, [fh(y.c1 + P), fh(y.c0)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_c1_plus_q');
    add(enc(xx, [fh(y.c1), fh(y.c0 + P)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_c0_plus_q');
    add(enc(xx, [yMax, fh(y.c0)]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_c1_2pow384_minus_1');
    add(enc(xx, [fh(y.c1), q]), 'ZP_E_NOT_CANONICAL', 'uncompressed_y_c0_eq_q');
    const pt = findPoint(G2, (p) => p.x.c1 + P < 1n << 381n);
    const t = pt.toAffine();
    add(enc([fh(t.x.c1 + P), fh(t.x.c0)], [fh(t.y.c1), fh(t.y.c0)]), 'ZP_E_NOT_CANONICAL',
      'uncompressed_x_c1_plus_q');
    add(enc([fh(t.x.c1 + P), fh(t.x.c0)], [], { compressed: true, sort: fp2Sort(t.y) }),
      'ZP_E_NOT_CANONICAL', 'compressed_x_c1_plus_q');
  },
  offCurve({ add }) {
    const G = G2.BASE;
    const ybad = Fp2.add(G.y, Fp2.ONE);
    add(enc([fp2CoordHex(G.x)], [fp2CoordHex(ybad)]), 'ZP_E_NOT_ON_CURVE', 'generator_y_plus_1');
    // The G1 coefficient 4 instead of 4(u+1): a point of the wrong curve.
    const wrong = findX(Fp2, Fp2.create({ c0: 4n, c1: 0n }), randFp2, true);
    add(enc([fp2CoordHex(wrong.x)], [fp2CoordHex(wrong.y)]), 'ZP_E_NOT_ON_CURVE', 'point_of_y2_eq_x3_plus_4');
    const { x } = findX(Fp2, G2B, randFp2, false);
    add(enc([fp2CoordHex(x)], [], { compressed: true }), 'ZP_E_NOT_ON_CURVE', 'compressed_x_without_y');
    add(enc([fp2CoordHex(x)], [], { compressed: true, sort: true }), 'ZP_E_NOT_ON_CURVE',
      'compressed_x_without_y_sorted');
  },
  notInSubgroup({ add }) {
    for (let i = 0; i < 3; i++) {
      const pt = offSubgroup(G2, Fp2, G2B, randFp2);
      const { x, y } = pt.toAffine();
      add(enc([fp2CoordHex(x)], [fp2CoordHex(y)]), 'ZP_E_NOT_IN_SUBGROUP', 'uncompressed_cofactor_point');
      add(enc([fp2CoordHex(x)], [], { compressed: true, sort: fp2Sort(y) }), 'ZP_E_NOT_IN_SUBGROUP',
        'compressed_cofactor_point');
    }
  },
};

// The first k*G (k random) whose affine coordinates satisfy pred.
function findPoint(Pt, pred) {
  for (;;) {
    const p = mulG(Pt, randBelow(R));
    if (pred(p.toAffine())) return p;
  }
}

// On the curve but outside the r-torsion: take x with x^3 + b square and do
// NOT clear the cofactor. noble confirms both facts.
function offSubgroup(Pt, F, b, randCoord) {
  for (;;) {
    const { x, y } = findX(F, b, randCoord, true);
    const pt = Pt.fromAffine({ x, y });
    const onCurve = F.eql(F.sqr(y), F.add(F.mul(F.sqr(x), x), b));
    if (!onCurve) fail('offSubgroup: not on curve');
    if (!pt.isTorsionFree()) {
      // Cross-check without noble's endomorphism trick: r*P != 0.
      if (pt.multiplyUnsafe(R - 1n).add(pt).is0()) fail('offSubgroup: r*P = 0');
      return pt;
    }
  }
}

// --------------------------------------------------------------- pairing

function pairingVectors() {
  const lines = [];
  const fixed = [[1n, 1n], [2n, 1n], [1n, 2n], [2n, 3n], [R - 1n, 1n], [1n, R - 1n], [R - 1n, R - 1n],
    [0n, 5n], [5n, 0n], [0n, 0n], [12345n, 67890n]];
  const ab = [...fixed];
  for (let i = 0; i < 6; i++) ab.push([randBelow(R), randBelow(R)]);
  const gtOf = (a, b) => bls.pairing(mulG(G1, a), mulG(G2, b));
  const e11 = gtOf(1n, 1n);
  for (const [a, b] of ab) {
    const p = mulG(G1, a);
    const q = mulG(G2, b);
    const e = a === 0n || b === 0n ? Fp12.ONE : bls.pairing(p, q);
    // Bilinearity in noble itself, as a sanity check of the data: e = e11^(ab).
    if (!Fp12.eql(e, Fp12.pow(e11, (a * b) % R))) fail('noble pairing not bilinear');
    lines.push(`pair ${hexAny(a)} ${hexAny(b)} ${ptHex(p, false)} ${ptHex(q, false)} -> ${fp12Hex(e)}`);
  }
  // Products of pairings (one final exponentiation in zkpipe), including a
  // Groth16-like check that cancels to 1.
  const sets = [];
  const a = randBelow(R);
  const b = randBelow(R);
  sets.push([[a, b], [R - a, b]]);                    // e(aG, bH) e(-aG, bH) = 1
  sets.push([[a, b], [(R - a * b % R) % R, 1n]]);     // = 1 again, different pairs
  sets.push([[a, b], [3n, 7n], [randBelow(R), randBelow(R)]]);
  sets.push([[1n, 1n]]);
  sets.push([[0n, 1n], [1n, 0n], [2n, 2n]]);
  for (const s of sets) {
    let acc = Fp12.ONE;
    const toks = [];
    for (const [x, y] of s) {
      const p = mulG(G1, x);
      const q = mulG(G2, y);
      if (!p.is0() && !q.is0()) acc = Fp12.mul(acc, bls.pairing(p, q));
      toks.push(ptHex(p, false), ptHex(q, false));
    }
    lines.push(`multi ${s.length} ${toks.join(' ')} -> ${fp12Hex(acc)}`);
  }
  return lines;
}

// ------------------------------------------------------------------- MSM

function msmVectors() {
  const lines = [];
  const sizes = [0, 1, 2, 3, 5, 8, 16, 33];
  for (const [tag, Pt] of [['g1', G1], ['g2', G2]]) {
    for (const n of sizes) {
      const pts = [];
      const ks = [];
      for (let i = 0; i < n; i++) {
        // Mix in the awkward cases: repeated points, P and -P, scalars 0, 1, r-1.
        let p = mulG(Pt, randBelow(R));
        if (i > 0 && i % 4 === 1) p = pts[i - 1];
        if (i > 0 && i % 4 === 2) p = pts[i - 1].negate();
        if (i % 7 === 3) p = Pt.ZERO;
        pts.push(p);
        const kind = i % 5;
        ks.push(kind === 0 ? randBelow(R) : kind === 1 ? 1n : kind === 2 ? 0n : kind === 3 ? R - 1n
          : randBits(16));
      }
      const sum = pippenger(Pt, pts, ks);
      // Independent cross-check: plain double-and-add per term.
      if (!sum.equals(naiveMsm(Pt, pts, ks))) fail('msm cross-check');
      lines.push(`${tag} ${n} ${pts.map((p) => ptHex(p, false)).join(' ')}${n ? ' ' : ''}` +
        `${ks.map(frHex).join(' ')}${n ? ' ' : ''}-> ${ptHex(sum, false)}`);
    }
  }
  return lines;
}

function naiveMsm(Pt, pts, ks) {
  let acc = Pt.ZERO;
  for (let i = 0; i < pts.length; i++) acc = acc.add(pts[i].multiplyUnsafe(ks[i]));
  return acc;
}

// ------------------------------------------------------------------ main

const FIELD_FMT = 'op args -> result; values are big-endian hex';
writeVectors('fp.txt', [
  'Fp known-answer vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  FIELD_FMT + ', 48 bytes; pow exponents any length.',
  'sqrt: either root is right (compare up to sign); none = not a square. inv 0 -> 0 is zkpipe\'s convention.',
], fieldVectors(Fp, 'Fp', 48, 48));
writeVectors('fr.txt', [
  'Fr known-answer vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  FIELD_FMT + ', 32 bytes; pow exponents any length.',
  'sqrt: either root is right (compare up to sign); none = not a square. inv 0 -> 0 is zkpipe\'s convention.',
], fieldVectors(Fr, 'Fr', 32, 48));
writeVectors('fp2.txt', [
  'Fp2 known-answer vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  'An Fp2 value is c0 then c1, 48 bytes big-endian each (noble Fp2.toBytes order, NOT the zcash point order).',
], fp2Vectors(40));
writeVectors('fp12.txt', [
  'Fp6 and Fp12 known-answer vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  'Fp6 = c0 c1 c2 (Fp2 each, c0 then c1); Fp12 = c0 c1 (Fp6 each): noble Fp12.toBytes order,',
  'i.e. c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1, 48 bytes big-endian each. frob k = x^(q^k).',
], towerVectors(6));
const CURVE_HDR = [
  'mul k -> uncompressed compressed: k*generator, k any length (k >= r allowed).',
  'add P Q -> R: uncompressed encodings.',
  'bad ENCODING -> ZP_E_CODE reason: refused by noble too; "-" is the empty input.',
];
writeVectors('g1.txt', ['G1 vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs), zcash encoding.',
  ...CURVE_HDR], curveVectors(g1));
writeVectors('g2.txt', ['G2 vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs), zcash encoding.',
  ...CURVE_HDR], curveVectors(g2));
writeVectors('pairing.txt', [
  'Pairing vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  'pair a b P Q -> e(P,Q): P = a*G1, Q = b*G2 uncompressed; e as 576 bytes in noble Fp12.toBytes order.',
  'multi n P1 Q1 ... Pn Qn -> product of e(Pi,Qi).',
], pairingVectors());
writeVectors('msm.txt', [
  'Multi-scalar multiplication vectors from @noble/curves 2.4.0 (tests/js/gen_vectors.mjs).',
  'g1|g2 n P1 ... Pn k1 ... kn -> S: points uncompressed (infinity allowed), scalars 32-byte',
  'big-endian < r, S = sum ki*Pi uncompressed.',
], msmVectors());
