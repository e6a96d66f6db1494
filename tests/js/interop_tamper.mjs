// Makes the wrong inputs run_interop.sh feeds to both verifiers and to the
// prover. Every tampered value is still well formed (a valid curve point, a
// reduced field element), so a verifier must reject it on the pairing check,
// not on parsing.
//
//   node interop_tamper.mjs neg-a       proof.json  out.json     π_A → −π_A
//   node interop_tamper.mjs bump-public public.json out.json [i] public[i] + 1 (mod r)
//   node interop_tamper.mjs bump-wtns   w.wtns      out.wtns  i  w[i] + 1 (mod r)
import { readFileSync, writeFileSync } from 'node:fs';
import { Q, R, leInt } from './interop_iden3.mjs';

function writeLe(buf, off, len, v) {
  for (let i = 0; i < len; i++) { buf[off + i] = Number(v & 0xffn); v >>= 8n; }
}

// Byte offset of the body of section `id` in an iden3 container.
function sectionOffset(buf, id) {
  const count = buf.readUInt32LE(8);
  let off = 12;
  for (let i = 0; i < count; i++) {
    const sid = buf.readUInt32LE(off), size = Number(buf.readBigUInt64LE(off + 4));
    if (sid === id) return [off + 12, size];
    off += 12 + size;
  }
  throw new Error(`no section ${id}`);
}

const [mode, inPath, outPath, arg] = process.argv.slice(2);
if (!mode || !inPath || !outPath) {
  process.stderr.write('usage: node interop_tamper.mjs neg-a|bump-public|bump-wtns IN OUT [INDEX]\n');
  process.exit(2);
}
if (mode === 'neg-a') {
  const p = JSON.parse(readFileSync(inPath, 'utf8'));
  p.pi_a[1] = ((Q - BigInt(p.pi_a[1])) % Q).toString();
  writeFileSync(outPath, JSON.stringify(p, null, 1) + '\n');
} else if (mode === 'bump-public') {
  const pub = JSON.parse(readFileSync(inPath, 'utf8'));
  const i = Number(arg ?? 0);
  if (!(i >= 0 && i < pub.length)) throw new Error(`index ${i} outside public.json`);
  pub[i] = ((BigInt(pub[i]) + 1n) % R).toString();
  writeFileSync(outPath, JSON.stringify(pub, null, 1) + '\n');
} else if (mode === 'bump-wtns') {
  const buf = Buffer.from(readFileSync(inPath));
  const i = Number(arg);
  const [off, size] = sectionOffset(buf, 2);
  if (!(i >= 1 && (i + 1) * 32 <= size)) throw new Error(`index ${i} outside the witness`);
  writeLe(buf, off + 32 * i, 32, (leInt(buf, off + 32 * i, 32) + 1n) % R);
  writeFileSync(outPath, buf);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
