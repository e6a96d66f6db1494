// Validates stages.txt (from stage_kat.mjs) by proving with it and letting
// snarkjs judge the proof.
//
//   node interop_prove_check.mjs DIR [--r HEX --s HEX] [--out proof.json]
//
// DIR holds circuit.zkey, w.wtns, vk.json, public.json and stages.txt.
// The proof is assembled with @noble/curves from the key's points, the
// witness and the h values of stages.txt (docs/formats.md, circom and snarkjs):
//   π_A = α₁ + Σ wᵢAᵢ + r·δ₁        π_B = β₂ + Σ wᵢB2ᵢ + s·δ₂
//   B′  = β₁ + Σ wᵢB1ᵢ + s·δ₁
//   π_C = Σ_{i>nPublic} wᵢCᵢ + Σ hⱼHⱼ + s·π_A + r·B′ − r·s·δ₁
// If snarkjs verifies it, the h values (and the a, b, c they came from) are
// what a prover must compute. As a guard that this check can fail, the same
// proof is rebuilt with one h value changed and snarkjs must reject it.
// Exit 0 when both hold.
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { pippenger } from '@noble/curves/abstract/curve.js';
import { R, readZkey, readWtns, readStages } from './interop_iden3.mjs';

const G1 = bls12_381.G1.Point, G2 = bls12_381.G2.Point;
const HERE = dirname(fileURLToPath(import.meta.url));
const SNARKJS = join(HERE, 'node_modules', 'snarkjs', 'build', 'cli.cjs');

function toPoint(P, aff) {
  if (aff === null) return P.ZERO;
  const p = P.fromAffine(aff);
  p.assertValidity();
  return p;
}

// Σ scalarᵢ·pointᵢ, skipping zero scalars and points at infinity.
function msm(P, points, scalars) {
  const ps = [], ss = [];
  for (let i = 0; i < points.length; i++) {
    const s = scalars[i] % R;
    if (s === 0n || points[i] === null) continue;
    ps.push(toPoint(P, points[i]));
    ss.push(s);
  }
  return ps.length === 0 ? P.ZERO : pippenger(P, ps, ss);
}

const mulU = (p, k) => p.multiplyUnsafe(((k % R) + R) % R);

export function prove(zkey, w, h, r, s) {
  const { vk, nPublic } = zkey;
  const delta1 = toPoint(G1, vk.delta1);
  const piA = toPoint(G1, vk.alpha1).add(msm(G1, zkey.A, w)).add(mulU(delta1, r));
  const piB = toPoint(G2, vk.beta2).add(msm(G2, zkey.B2, w)).add(mulU(toPoint(G2, vk.delta2), s));
  const b1 = toPoint(G1, vk.beta1).add(msm(G1, zkey.B1, w)).add(mulU(delta1, s));
  const piC = msm(G1, zkey.C, w.slice(nPublic + 1))
    .add(msm(G1, zkey.H, h))
    .add(mulU(piA, s))
    .add(mulU(b1, r))
    .subtract(mulU(delta1, r * s));
  return { piA, piB, piC };
}

export function proofJson({ piA, piB, piC }) {
  const g1 = (p) => { const a = p.toAffine(); return [a.x.toString(), a.y.toString(), '1']; };
  const b = piB.toAffine();
  return {
    pi_a: g1(piA),
    pi_b: [[b.x.c0.toString(), b.x.c1.toString()], [b.y.c0.toString(), b.y.c1.toString()], ['1', '0']],
    pi_c: g1(piC),
    protocol: 'groth16',
    curve: 'bls12381',
  };
}

function snarkjsVerify(vkPath, publicPath, proof) {
  const dir = mkdtempSync(join(tmpdir(), 'zp-prove-check-'));
  try {
    const p = join(dir, 'proof.json');
    writeFileSync(p, JSON.stringify(proof));
    const res = spawnSync(process.execPath, [SNARKJS, 'groth16', 'verify', vkPath, publicPath, p], { encoding: 'utf8' });
    return res.status === 0 && /OK/.test(res.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(argv) {
  let dir = null, out = null, r = 0n, s = 0n;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--r') r = BigInt(argv[++i]);
    else if (argv[i] === '--s') s = BigInt(argv[++i]);
    else if (argv[i] === '--out') out = argv[++i];
    else dir = argv[i];
  }
  if (!dir) {
    process.stderr.write('usage: node interop_prove_check.mjs DIR [--r N --s N] [--out proof.json]\n');
    process.exit(2);
  }
  const zkey = readZkey(join(dir, 'circuit.zkey'));
  const w = readWtns(join(dir, 'w.wtns'));
  const st = readStages(join(dir, 'stages.txt'));
  const pub = JSON.parse(readFileSync(join(dir, 'public.json'), 'utf8')).map(BigInt);
  const n = zkey.domainSize;
  let ok = true;
  const report = (good, what) => { console.log(`${good ? 'ok  ' : 'FAIL'} ${what}`); ok &&= good; };
  report(st.h.length === n && st.a.length === n && st.b.length === n && st.c.length === n,
    `stages.txt has ${n} values per section`);
  report(pub.length === zkey.nPublic && pub.every((v, i) => v === w[i + 1]), 'public.json = w[1..nPublic]');
  const vkPath = join(dir, 'vk.json'), pubPath = join(dir, 'public.json');
  const pi = prove(zkey, w, st.h, r, s);
  const proof = proofJson(pi);
  report(snarkjsVerify(vkPath, pubPath, proof), `snarkjs verifies the proof built from stages.txt (r=${r}, s=${s})`);
  if (out) writeFileSync(out, JSON.stringify(proof, null, 1) + '\n');
  // h[j] + 1 adds H[j] to π_C: the check must then fail.
  const j = n >> 1;
  const bad = { ...pi, piC: pi.piC.add(toPoint(G1, zkey.H[j])) };
  report(!snarkjsVerify(vkPath, pubPath, proofJson(bad)), `snarkjs rejects the proof when h[${j}] is off by one`);
  process.exit(ok ? 0 : 1);
}

main(process.argv.slice(2));
