/**
 * `bun run release`: six executables whose headers say the right OS and CPU, SHA256SUMS that
 * match the bytes, a manifest with the sizes, and a linux-x64 binary (plus the musl one where
 * this machine can run it) that works: --version, remember, recall, one hook.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { verifyCodeSignature } from "../../scripts/macho";
import { TARGETS } from "../../scripts/targets";
import { type Sandbox, sandbox } from "../kit";
import { ensureRelease, formatOf, type Manifest, RELEASE_DIR } from "./_release";

let manifest: Manifest;
beforeAll(() => {
  manifest = ensureRelease();
}, 600_000);

function head(file: string, bytes = 4096): Buffer {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

describe("release artifacts", () => {
  test("one file per target, each in its platform's executable format", () => {
    expect(manifest.targets.map((t) => t.name).sort()).toEqual(TARGETS.map((t) => t.name).sort());
    for (const t of TARGETS) {
      const file = join(RELEASE_DIR, t.file);
      expect(existsSync(file)).toBe(true);
      expect({ file: t.file, format: formatOf(head(file)) }).toEqual({ file: t.file, format: t.format });
      if (!t.file.endsWith(".exe")) expect(statSync(file).mode & 0o111).not.toBe(0);
    }
    expect(TARGETS.find((t) => t.name === "windows-x64")!.file).toBe("coffer-windows-x64.exe");
  });

  test("the macOS binaries carry a code signature that covers every page (else macOS kills them)", () => {
    for (const t of TARGETS.filter((t) => t.format.startsWith("macho"))) {
      const bytes = readFileSync(join(RELEASE_DIR, t.file));
      expect({ file: t.file, ...verifyCodeSignature(bytes) }).toMatchObject({ file: t.file, ok: true });
      // The check is real: one changed byte in the program is caught.
      bytes[10 * 4096 + 7] = bytes[10 * 4096 + 7]! ^ 1;
      expect(verifyCodeSignature(bytes)).toEqual({ ok: false, reason: "page 10 does not match its hash" });
    }
  });

  test("SHA256SUMS matches every file's bytes, and the manifest its sizes", async () => {
    const sums = readFileSync(join(RELEASE_DIR, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums).toHaveLength(TARGETS.length);
    for (const line of sums) {
      const m = /^([0-9a-f]{64}) {2}(coffer-[a-z0-9-]+(?:\.exe)?)$/.exec(line);
      expect(m).not.toBeNull();
      const [, sum, file] = m!;
      const h = new Bun.CryptoHasher("sha256");
      h.update(await Bun.file(join(RELEASE_DIR, file!)).arrayBuffer());
      expect({ file, sum: h.digest("hex") as string }).toEqual({ file, sum: sum! });
      const entry = manifest.targets.find((t) => t.file === file)!;
      expect(entry.sha256).toBe(sum!);
      expect(entry.size).toBe(statSync(join(RELEASE_DIR, file!)).size);
    }
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8"));
    expect(manifest.version).toBe(pkg.version);
    // Sizes for the report.
    process.stderr.write(
      `${manifest.targets.map((t) => `${t.file}: ${(t.size / 1024 / 1024).toFixed(1)} MiB`).join("\n")}\n`,
    );
  });
});

/** Whether this machine can execute the binary (musl needs its loader and a musl libstdc++). */
function runs(bin: string): boolean {
  const p = Bun.spawnSync([bin, "--version"], { stdout: "pipe", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } });
  return p.exitCode === 0;
}

/**
 * The musl build runs where musl's loader finds a musl libstdc++ (Alpine). Debian's `musl`
 * package brings the loader but no libstdc++ built for it, so on Debian the musl smoke test skips.
 */
function muslRuntime(): boolean {
  if (!existsSync("/lib/ld-musl-x86_64.so.1")) return false;
  return ["/lib", "/usr/lib", "/usr/local/lib", "/usr/lib/x86_64-linux-musl"].some((d) =>
    existsSync(join(d, "libstdc++.so.6")),
  );
}

const linuxX64 = process.platform === "linux" && process.arch === "x64";
const smokeTargets = [
  { name: "linux-x64", can: linuxX64 },
  { name: "linux-x64-musl", can: linuxX64 && muslRuntime() },
];

for (const { name, can } of smokeTargets) {
  describe.skipIf(!can)(`smoke: ${name}`, () => {
    let sb: Sandbox;
    let bin: string;
    beforeAll(() => {
      sb = sandbox("coffer-release-");
      bin = join(RELEASE_DIR, `coffer-${name}`);
      if (!runs(bin)) throw new Error(`${bin} --version fails on this machine`);
    });
    afterAll(() => sb.cleanup());

    const run = (args: string[], stdin?: string, cwd?: string) => {
      const p = Bun.spawnSync([bin, ...args], {
        cwd: cwd ?? sb.home,
        env: sb.env,
        stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
        stdout: "pipe",
        stderr: "pipe",
      });
      return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
    };

    test("--version names the version and the build target", () => {
      const v = run(["--version"]);
      expect(v.code).toBe(0);
      expect(v.stdout.trim()).toBe(`${manifest.version} (${name})`);
    });

    test("remember, recall, and a session-start hook that delivers the rule", () => {
      const repo = sb.repo("smoke");
      const r = run(["remember", "Release smoke: the quokka deploy key lives in vault"], undefined, repo);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const q = run(["recall", "quokka"], undefined, repo);
      expect(q.code).toBe(0);
      expect(q.stdout).toContain("quokka deploy key");
      expect(run(["rules", "add", "Always run the smoke test before tagging"], undefined, repo).code).toBe(0);
      const payload = { session_id: "smoke-1", cwd: repo, hook_event_name: "SessionStart", source: "startup" };
      const h = run(["hook", "session-start", "--agent", "claude"], JSON.stringify(payload), repo);
      expect(h.code).toBe(0);
      const out = JSON.parse(h.stdout);
      expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
      expect(out.hookSpecificOutput.additionalContext).toContain("Always run the smoke test before tagging");
    });
  });
}
