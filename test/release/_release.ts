/**
 * The release under test: dist/release, built once by `bun run release` and reused by every
 * release test while its manifest's source fingerprint matches the tree (cross-builds of six
 * targets are slow on a small machine). COFFER_RELEASE_DIR points the tests at another build;
 * COFFER_RELEASE_REUSE=1 reuses any complete one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sourceFingerprint, TARGETS } from "../../scripts/targets";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const RELEASE_DIR = resolve(process.env.COFFER_RELEASE_DIR ?? join(ROOT, "dist", "release"));

export type Manifest = {
  name: string;
  version: string;
  bun: string;
  built_at: string;
  source: string;
  targets: { name: string; file: string; bun: string; format: string; size: number; sha256: string }[];
};

function readManifest(): Manifest | undefined {
  const f = join(RELEASE_DIR, "manifest.json");
  if (!existsSync(f)) return undefined;
  try {
    return JSON.parse(readFileSync(f, "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

/** Build the release unless an up-to-date one is there; returns its manifest. */
export function ensureRelease(): Manifest {
  const m = readManifest();
  const complete =
    m && TARGETS.every((t) => m.targets.some((b) => b.name === t.name && existsSync(join(RELEASE_DIR, b.file))));
  // COFFER_RELEASE_REUSE=1: take whatever complete release is there (iterating on the tests).
  if (m && complete && (process.env.COFFER_RELEASE_REUSE === "1" || m.source === sourceFingerprint(ROOT))) return m;
  const p = Bun.spawnSync(["bun", "run", "release"], {
    cwd: ROOT,
    env: { ...process.env, COFFER_RELEASE_DIR: RELEASE_DIR },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`bun run release failed:\n${p.stdout}${p.stderr}`);
  process.stderr.write(p.stdout.toString());
  const fresh = readManifest();
  if (!fresh) throw new Error("bun run release wrote no manifest.json");
  return fresh;
}
