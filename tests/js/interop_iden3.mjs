// Readers for the iden3 binary containers (.zkey, .wtns, .r1cs) and the
// scalar-field arithmetic the interop scripts need. Plain BigInt, written
// from docs/formats.md, circom and snarkjs; nothing here comes from snarkjs or ffjavascript, so the
// scripts built on it are an independent check of zkpipe and of snarkjs.
import { readFileSync } from 'node:fs';

export const Q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
export const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
// ω of order 2^32 in the snarkjs/ffjavascript convention (5^((r-1)/2^32)).
const OMEGA32_SNARKJS = 0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1fn;

export const mod = (x, m = R) => { const y = x % m; return y < 0n ? y + m : y; };

export function powmod(b, e, m = R) {
  let acc = 1n;
  b = mod(b, m);
  while (e > 0n) {
    if (e & 1n) acc = (acc * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return acc;
}

// Fermat inverse: both moduli are prime.
export const inv = (x, m = R) => {
  if (mod(x, m) === 0n) throw new Error('inverse of zero');
  return powmod(x, m - 2n, m);
};

// Montgomery factors: Fr coefficients are stored as c·R_r² (R_r = 2^256),
// Fp coordinates as x·2^384.
const RINV_FR = inv(1n << 256n, R);
const RINV_FR2 = (RINV_FR * RINV_FR) % R;
const RINV_FQ = inv(1n << 384n, Q);

export function leInt(bytes, off, len) {
  let v = 0n;
  for (let i = len - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[off + i]);
  return v;
}

// Split a container into {magic, version, sections: Map(id -> [buffers])}.
// Every size is checked against the file so a short or corrupt file fails
// loudly instead of yielding garbage.
export function readContainer(path, magic) {
  const buf = readFileSync(path);
  if (buf.length < 12) throw new Error(`${path}: too short`);
  const got = buf.subarray(0, 4).toString('latin1');
  if (got !== magic) throw new Error(`${path}: magic ${JSON.stringify(got)}, want ${magic}`);
  const version = buf.readUInt32LE(4);
  const count = buf.readUInt32LE(8);
  const sections = new Map();
  let off = 12;
  for (let i = 0; i < count; i++) {
    if (off + 12 > buf.length) throw new Error(`${path}: truncated section header`);
    const id = buf.readUInt32LE(off);
    const size = Number(buf.readBigUInt64LE(off + 4));
    off += 12;
    if (off + size > buf.length) throw new Error(`${path}: section ${id} overruns the file`);
    if (!sections.has(id)) sections.set(id, []);
    sections.get(id).push(buf.subarray(off, off + size));
    off += size;
  }
  return { version, sections };
}

function section(c, id, path) {
  const s = c.sections.get(id);
  if (!s || s.length !== 1) throw new Error(`${path}: need exactly one section ${id}`);
  return s[0];
}

export function readWtns(path) {
  const c = readContainer(path, 'wtns');
  const h = section(c, 1, path);
  const n8 = h.readUInt32LE(0);
  if (n8 !== 32) throw new Error(`${path}: n8 ${n8}`);
  if (leInt(h, 4, n8) !== R) throw new Error(`${path}: not the BLS12-381 scalar field`);
  const count = h.readUInt32LE(4 + n8);
  const d = section(c, 2, path);
  if (d.length !== count * n8) throw new Error(`${path}: section 2 size`);
  const w = [];
  for (let i = 0; i < count; i++) {
    const v = leInt(d, i * n8, n8);
    if (v >= R) throw new Error(`${path}: witness ${i} not reduced`);
    w.push(v);
  }
  if (w[0] !== 1n) throw new Error(`${path}: w[0] != 1`);
  return w;
}

function readLc(d, off, n8) {
  const n = d.readUInt32LE(off);
  off += 4;
  const terms = [];
  for (let i = 0; i < n; i++) {
    terms.push([d.readUInt32LE(off), leInt(d, off + 4, n8)]);
    off += 4 + n8;
  }
  return [terms, off];
}

export function readR1cs(path) {
  const c = readContainer(path, 'r1cs');
  const h = section(c, 1, path);
  const n8 = h.readUInt32LE(0);
  if (n8 !== 32 || leInt(h, 4, n8) !== R) throw new Error(`${path}: not BLS12-381`);
  let o = 4 + n8;
  const nWires = h.readUInt32LE(o);
  const nPubOut = h.readUInt32LE(o + 4);
  const nPubIn = h.readUInt32LE(o + 8);
  const nPrvIn = h.readUInt32LE(o + 12);
  const nConstraints = h.readUInt32LE(o + 24);
  const d = section(c, 2, path);
  const constraints = [];
  o = 0;
  for (let i = 0; i < nConstraints; i++) {
    const [A, o1] = readLc(d, o, n8);
    const [B, o2] = readLc(d, o1, n8);
    const [C, o3] = readLc(d, o2, n8);
    constraints.push({ A, B, C });
    o = o3;
  }
  if (o !== d.length) throw new Error(`${path}: section 2 has trailing bytes`);
  return { nWires, nPubOut, nPubIn, nPrvIn, nConstraints, constraints };
}

export function lcEval(terms, w) {
  let acc = 0n;
  for (const [wire, coef] of terms) acc += coef * w[wire];
  return mod(acc);
}

// G1 point from zkey bytes: x, y each 48-byte LE Montgomery; all zero = ∞.
export function zkeyG1(buf, off) {
  const x = leInt(buf, off, 48), y = leInt(buf, off + 48, 48);
  if (x === 0n && y === 0n) return null;
  return { x: (x * RINV_FQ) % Q, y: (y * RINV_FQ) % Q };
}

// G2 point from zkey bytes: x.c0, x.c1, y.c0, y.c1 (c0 first, unlike zcash).
export function zkeyG2(buf, off) {
  const v = [0, 1, 2, 3].map((i) => leInt(buf, off + 48 * i, 48));
  if (v.every((t) => t === 0n)) return null;
  const s = v.map((t) => (t * RINV_FQ) % Q);
  return { x: { c0: s[0], c1: s[1] }, y: { c0: s[2], c1: s[3] } };
}

export function readZkey(path) {
  const c = readContainer(path, 'zkey');
  if (section(c, 1, path).readUInt32LE(0) !== 1) throw new Error(`${path}: not Groth16`);
  const h = section(c, 2, path);
  if (h.readUInt32LE(0) !== 48 || leInt(h, 4, 48) !== Q) throw new Error(`${path}: q`);
  if (h.readUInt32LE(52) !== 32 || leInt(h, 56, 32) !== R) throw new Error(`${path}: r`);
  let o = 88;
  const nVars = h.readUInt32LE(o);
  const nPublic = h.readUInt32LE(o + 4);
  const domainSize = h.readUInt32LE(o + 8);
  o += 12;
  if (domainSize === 0 || (domainSize & (domainSize - 1)) !== 0) throw new Error(`${path}: domainSize`);
  const vk = {
    alpha1: zkeyG1(h, o), beta1: zkeyG1(h, o + 96), beta2: zkeyG2(h, o + 192),
    gamma2: zkeyG2(h, o + 384), delta1: zkeyG1(h, o + 576), delta2: zkeyG2(h, o + 672),
  };
  const cs = section(c, 4, path);
  const m = cs.readUInt32LE(0);
  if (cs.length !== 4 + m * 44) throw new Error(`${path}: section 4 size`);
  const coefs = [];
  for (let i = 0; i < m; i++) {
    const e = 4 + i * 44;
    const matrix = cs.readUInt32LE(e), row = cs.readUInt32LE(e + 4), signal = cs.readUInt32LE(e + 8);
    if (matrix > 1 || row >= domainSize || signal >= nVars) throw new Error(`${path}: coefficient ${i} out of range`);
    // Stored as c·R², so c = v·R⁻² (docs/formats.md, circom and snarkjs).
    coefs.push({ matrix, row, signal, value: (leInt(cs, e + 12, 32) * RINV_FR2) % R });
  }
  const g1s = (id, n) => {
    const s = section(c, id, path);
    if (s.length !== n * 96) throw new Error(`${path}: section ${id} size`);
    return Array.from({ length: n }, (_, i) => zkeyG1(s, i * 96));
  };
  const s7 = section(c, 7, path);
  if (s7.length !== nVars * 192) throw new Error(`${path}: section 7 size`);
  return {
    nVars, nPublic, domainSize, vk, coefs,
    IC: g1s(3, nPublic + 1),
    A: g1s(5, nVars),
    B1: g1s(6, nVars),
    B2: Array.from({ length: nVars }, (_, i) => zkeyG2(s7, i * 192)),
    C: g1s(8, nVars - nPublic - 1),
    H: g1s(9, domainSize),
  };
}

export function rootOfUnity(n) {
  const log = Math.log2(n);
  if (!Number.isInteger(log) || log > 32) throw new Error(`no root of order ${n}`);
  return powmod(OMEGA32_SNARKJS, 1n << BigInt(32 - log));
}

// In-place radix-2 NTT over <omega>, natural order in and out.
export function ntt(v, omega) {
  const n = v.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) [v[i], v[j]] = [v[j], v[i]];
  }
  for (let len = 2; len <= n; len <<= 1) {
    const wl = powmod(omega, BigInt(n / len));
    for (let i = 0; i < n; i += len) {
      let w = 1n;
      for (let k = 0; k < len / 2; k++) {
        const u = v[i + k], t = (v[i + k + len / 2] * w) % R;
        v[i + k] = (u + t) % R;
        v[i + k + len / 2] = mod(u - t);
        w = (w * wl) % R;
      }
    }
  }
  return v;
}

export function intt(v, omega) {
  ntt(v, inv(omega));
  const ninv = inv(BigInt(v.length));
  for (let i = 0; i < v.length; i++) v[i] = (v[i] * ninv) % R;
  return v;
}

export const hex64 = (x) => x.toString(16).padStart(64, '0');

// stages.txt: a line naming the section ("a", "b", "c", "h"), then exactly
// domainSize lines of 64 hex digits (big-endian, standard form).
export function readStages(path) {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.length > 0);
  const out = {};
  let cur = null;
  for (const l of lines) {
    if (/^[abch]$/.test(l)) { cur = l; out[cur] = []; continue; }
    if (!cur || !/^[0-9a-f]{64}$/.test(l)) throw new Error(`${path}: bad line ${JSON.stringify(l)}`);
    out[cur].push(BigInt('0x' + l));
  }
  for (const k of ['a', 'b', 'c', 'h']) if (!out[k]) throw new Error(`${path}: no section ${k}`);
  return out;
}
