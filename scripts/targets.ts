/** The release targets: one file name per platform, and the Bun compile target that builds it. */

/**
 * How every Coffer binary is compiled (scripts/build.ts), and the benchmarks' floor binary too.
 * `--splitting` makes each literal `import()` (the lazy command map, the host registry) a chunk of
 * its own inside the one executable, with its own bytecode, loaded only by the process that
 * reaches it: without it the whole bundle is loaded by every process, whatever it runs (issue 38).
 */
export const COMPILE_FLAGS = [
  "--compile",
  "--splitting",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--sourcemap=none",
  // A compiled Bun binary reads the working directory's .env and bunfig.toml by default: a hook
  // runs in the user's repository, whose .env would set COFFER_HOME (or any variable) and whose
  // bunfig.toml `preload` would run that repository's code inside every Coffer process.
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
  // JavaScriptCore's tier-up thresholds x100 at start: a hook or a quick command runs most of its
  // code a few hundred times at most, and compiling it costs more than interpreting it (at 10,000
  // entries: prompt hook 38.2 -> 31.7 ms, session start 23.5 -> 19.9, remember 36.2 -> 29.6).
  // Servers, batch commands and any process that writes many rows go back to 1 (src/lib/jit.ts).
  "--compile-jit-policy=100",
];

export type ReleaseTarget = {
  /** `<os>-<arch>[-musl]`, what `coffer --version` prints and install.sh picks. */
  name: string;
  /** `bun build --compile --target=…` */
  bun: string;
  /** File name in dist/release. */
  file: string;
  /** Expected executable format (checked by magic bytes). */
  format: "elf-x86-64" | "elf-aarch64" | "macho-x86-64" | "macho-arm64" | "pe32+-x86-64";
};

const t = (name: string, bun: string, format: ReleaseTarget["format"], exe = ""): ReleaseTarget => ({
  name,
  bun,
  file: `coffer-${name}${exe}`,
  format,
});

export const TARGETS: ReleaseTarget[] = [
  t("linux-x64", "bun-linux-x64", "elf-x86-64"),
  t("linux-arm64", "bun-linux-arm64", "elf-aarch64"),
  t("linux-x64-musl", "bun-linux-x64-musl", "elf-x86-64"),
  t("darwin-x64", "bun-darwin-x64", "macho-x86-64"),
  t("darwin-arm64", "bun-darwin-arm64", "macho-arm64"),
  t("windows-x64", "bun-windows-x64", "pe32+-x86-64", ".exe"),
];

/** The target name of the machine running this script (musl when Bun itself runs without glibc). */
export function nativeTarget(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  const arch = process.arch;
  if (os !== "linux") return `${os}-${arch}`;
  const report = (process as { report?: { getReport?: () => { header?: { glibcVersionRuntime?: string } } } }).report;
  const glibc = report?.getReport?.().header?.glibcVersionRuntime;
  return glibc ? `linux-${arch}` : `linux-${arch}-musl`;
}

/**
 * A fingerprint of everything a release is built from (src/, scripts/, package.json, bun.lock,
 * Bun's version): tests reuse dist/release when its manifest carries the same fingerprint.
 */
export function sourceFingerprint(root: string): string {
  const { readdirSync, readFileSync, statSync } = require("node:fs") as typeof import("node:fs");
  const { join } = require("node:path") as typeof import("node:path");
  const h = new Bun.CryptoHasher("sha256");
  h.update(Bun.version);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(`${p.slice(root.length)}\0`).update(readFileSync(p));
    }
  };
  walk(join(root, "src"));
  walk(join(root, "scripts"));
  for (const f of ["package.json", "bun.lock"]) h.update(readFileSync(join(root, f)));
  return h.digest("hex").slice(0, 16);
}
