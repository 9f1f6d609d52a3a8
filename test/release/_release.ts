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

/** The executable format by magic bytes: ELF e_machine, Mach-O cputype, PE machine + PE32+ magic. */
export function formatOf(buf: Buffer): string {
  if (buf.readUInt32BE(0) === 0x7f454c46) {
    if (buf[4] !== 2) return "elf-32";
    const machine = buf.readUInt16LE(18);
    return machine === 0x3e ? "elf-x86-64" : machine === 0xb7 ? "elf-aarch64" : `elf-${machine}`;
  }
  if (buf.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = buf.readUInt32LE(4);
    return cpu === 0x01000007 ? "macho-x86-64" : cpu === 0x0100000c ? "macho-arm64" : `macho-${cpu}`;
  }
  if (buf.toString("latin1", 0, 2) === "MZ") {
    const pe = buf.readUInt32LE(0x3c);
    if (buf.toString("latin1", pe, pe + 4) !== "PE\0\0") return "mz";
    const machine = buf.readUInt16LE(pe + 4);
    const magic = buf.readUInt16LE(pe + 24);
    return magic === 0x20b && machine === 0x8664 ? "pe32+-x86-64" : `pe-${machine}-${magic}`;
  }
  return "unknown";
}
