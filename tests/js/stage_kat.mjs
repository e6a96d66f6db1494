// Independent known answers for the prover's stage values of a snarkjs key.
//
//   node stage_kat.mjs circuit.zkey witness.wtns [--r1cs circuit.r1cs] [-o stages.txt]
//
// Computes, with BigInt only (see interop_iden3.mjs), for n = domainSize:
//   a = A·w, b = B·w from the .zkey coefficient section (zero padded to n),
//   c = a∘b,
//   h_j = a'_j·b'_j − c'_j where x' = NTT(shift(iNTT(x))) over <ω_n> and the
//   shift multiplies coefficient k by ω_2n^k (snarkjs' odd-coset convention,
//   5-based root).
// Output: sections "a", "b", "c", "h", each a header line and n lines of 64
// hex digits (standard form, big-endian).
//
// With --r1cs the script also checks, row by row, that a and b agree with the
// circuit's own A·w and B·w and that a∘b = C·w (the witness satisfies the
// circuit), which pins down the coefficient encoding independently of snarkjs.
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import {
  R, mod, readZkey, readWtns, readR1cs, lcEval, rootOfUnity, ntt, intt, powmod, hex64,
} from './interop_iden3.mjs';

export function stageValues(zkey, w) {
  const n = zkey.domainSize;
  if (w.length !== zkey.nVars) throw new Error(`witness has ${w.length} values, key wants ${zkey.nVars}`);
  const a = new Array(n).fill(0n), b = new Array(n).fill(0n);
  for (const { matrix, row, signal, value } of zkey.coefs) {
    const t = matrix === 0 ? a : b;
    t[row] = (t[row] + value * w[signal]) % R;
  }
  const c = a.map((x, i) => (x * b[i]) % R);
  const wn = rootOfUnity(n), w2n = rootOfUnity(2 * n);
  if (powmod(w2n, 2n) !== wn) throw new Error('root tower broken');
  const odd = (x) => {
    const v = intt(x.slice(), wn);
    let s = 1n;
    for (let k = 0; k < n; k++) { v[k] = (v[k] * s) % R; s = (s * w2n) % R; }
    return ntt(v, wn);
  };
  const A2 = odd(a), B2 = odd(b), C2 = odd(c);
  const h = A2.map((x, j) => mod(x * B2[j] - C2[j]));
  return { a, b, c, h };
}

function checkAgainstR1cs(r1cs, st, w) {
  for (let i = 0; i < r1cs.nConstraints; i++) {
    const { A, B, C } = r1cs.constraints[i];
    if (lcEval(A, w) !== st.a[i]) throw new Error(`row ${i}: a differs from the r1cs`);
    if (lcEval(B, w) !== st.b[i]) throw new Error(`row ${i}: b differs from the r1cs`);
    if (lcEval(C, w) !== st.c[i]) throw new Error(`row ${i}: witness does not satisfy the r1cs`);
  }
}

function main(argv) {
  const pos = [];
  let r1csPath = null, outPath = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--r1cs') r1csPath = argv[++i];
    else if (argv[i] === '-o') outPath = argv[++i];
    else pos.push(argv[i]);
  }
  if (pos.length !== 2) {
    process.stderr.write('usage: node stage_kat.mjs circuit.zkey witness.wtns [--r1cs c.r1cs] [-o out]\n');
    process.exit(2);
  }
  const zkey = readZkey(pos[0]);
  const w = readWtns(pos[1]);
  const st = stageValues(zkey, w);
  if (r1csPath) checkAgainstR1cs(readR1cs(r1csPath), st, w);
  const lines = [];
  for (const k of ['a', 'b', 'c', 'h']) {
    lines.push(k);
    for (const v of st[k]) lines.push(hex64(v));
  }
  const text = lines.join('\n') + '\n';
  if (outPath) writeFileSync(outPath, text);
  else process.stdout.write(text);
  process.stderr.write(`stage_kat: nVars=${zkey.nVars} nPublic=${zkey.nPublic} domainSize=${zkey.domainSize}` +
    ` coefficients=${zkey.coefs.length}${r1csPath ? ' (checked against r1cs)' : ''}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
