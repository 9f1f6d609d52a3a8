/**
 * `bun run release`: one executable per platform in dist/release (or $COFFER_RELEASE_DIR),
 * cross-compiled with scripts/build.ts (same flags: --minify --bytecode), plus SHA256SUMS
 * (the `sha256sum` format install.sh verifies against) and manifest.json (version, targets,
 * sizes). Bun fetches each target's runtime from the npm registry the first time and caches it.
 * COFFER_RELEASE_TARGETS=linux-x64,darwin-arm64 builds a subset.
 */

import {
  createReadStream,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { adhocSign, verifyCodeSignature } from "./macho";
import { sourceFingerprint, TARGETS } from "./targets";

const root = resolve(import.meta.dir, "..");
const outDir = resolve(process.env.COFFER_RELEASE_DIR ?? join(root, "dist", "release"));
const only = process.env.COFFER_RELEASE_TARGETS?.split(",").map((s) => s.trim());
const targets = only ? TARGETS.filter((t) => only.includes(t.name)) : TARGETS;
if (only && targets.length !== only.length) {
  console.error(`unknown target in COFFER_RELEASE_TARGETS; known: ${TARGETS.map((t) => t.name).join(", ")}`);
  process.exit(2);
}

const source = sourceFingerprint(root); // before building: what the binaries are built from
// Build into a staging directory beside the release: a failed build leaves the last release whole.
const stage = `${outDir}.staging-${process.pid}`;
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

async function sha256(file: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest("hex");
}

const built: { name: string; file: string; bun: string; format: string; size: number; sha256: string }[] = [];
for (const t of targets) {
  const out = join(stage, t.file);
  const started = performance.now();
  const p = Bun.spawnSync(["bun", join(root, "scripts", "build.ts")], {
    cwd: root,
    env: { ...process.env, COFFER_OUT: out, COFFER_TARGET: t.bun },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) {
    console.error(`release: building ${t.name} failed\n${p.stderr.toString()}${p.stdout.toString()}`);
    rmSync(stage, { recursive: true, force: true });
    process.exit(1);
  }
  if (t.format.startsWith("macho")) {
    // macOS kills a binary whose signature does not cover its bytes (Bun's darwin-x64 cross build).
    const bytes = readFileSync(out);
    if (!verifyCodeSignature(bytes).ok) {
      const signed = adhocSign(bytes, "coffer");
      const check = verifyCodeSignature(signed);
      if (!check.ok) {
        console.error(`release: re-signing ${t.file} failed: ${check.reason}`);
        process.exit(1);
      }
      writeFileSync(out, signed, { mode: 0o755 });
      console.log(`${t.file}: re-signed ad hoc (Bun's signature did not cover the program)`);
    }
  }
  const size = statSync(out).size;
  built.push({ name: t.name, file: t.file, bun: t.bun, format: t.format, size, sha256: await sha256(out) });
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`${t.file.padEnd(28)} ${(size / 1024 / 1024).toFixed(1).padStart(6)} MiB  ${secs}s`);
}

writeFileSync(join(stage, "SHA256SUMS"), built.map((b) => `${b.sha256}  ${b.file}\n`).join(""));
const manifest = {
  name: "coffer",
  version: pkg.version,
  bun: Bun.version,
  built_at: new Date().toISOString(),
  source,
  targets: built,
};
writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
// A release directory holds one release: the old files go, the new ones move in.
mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir))
  if (f.startsWith("coffer-") || f === "SHA256SUMS" || f === "manifest.json") rmSync(join(outDir, f));
for (const f of readdirSync(stage)) renameSync(join(stage, f), join(outDir, f));
rmSync(stage, { recursive: true, force: true });
console.log(`release ${pkg.version}: ${built.length} targets in ${outDir}`);
