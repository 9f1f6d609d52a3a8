/**
 * install.sh against dist/release served from a loopback HTTP server: it picks linux-x64,
 * verifies the checksum, installs into ~/.local/bin of a throwaway HOME, and the installed coffer
 * links Claude; a corrupted download is refused with a clear message and the old binary stays.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../kit";
import { ensureRelease, type Manifest, RELEASE_DIR, ROOT } from "./_release";

const INSTALL_SH = join(ROOT, "install.sh");
const linuxX64 = process.platform === "linux" && process.arch === "x64";

let manifest: Manifest;
let server: ReturnType<typeof Bun.serve>;
let sb: Sandbox;
const requests: string[] = [];

beforeAll(() => {
  manifest = ensureRelease();
  sb = sandbox("coffer-install-");
  // /good/<file>: the release as built. /bad/<file>: the same SHA256SUMS, but one flipped byte
  // in the middle of every binary (a corrupted or tampered download).
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      const m = /^\/(good|bad)\/([A-Za-z0-9._-]+)$/.exec(path);
      if (!m) return new Response("not found", { status: 404 });
      const file = join(RELEASE_DIR, m[2]!);
      if (!existsSync(file)) return new Response("not found", { status: 404 });
      if (m[1] === "good" || m[2] === "SHA256SUMS") return new Response(Bun.file(file));
      const bytes = new Uint8Array(await Bun.file(file).arrayBuffer());
      const mid = bytes.length >> 1;
      bytes[mid] = bytes[mid]! ^ 0xff;
      return new Response(bytes);
    },
  });
}, 600_000);

afterAll(() => {
  server?.stop(true);
  sb?.cleanup();
});

const url = (kind: "good" | "bad") => `http://127.0.0.1:${server.port}/${kind}`;
const binDir = () => join(sb.home, ".local", "bin");
const installed = () => join(binDir(), "coffer");

/** Asynchronous on purpose: the HTTP server runs in this process and must keep answering. */
async function install(shell: string, env: Record<string, string>, args: string[] = []) {
  const p = Bun.spawn([shell, INSTALL_SH, ...args], {
    cwd: sb.home,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: sb.home, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    p.exited,
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

async function sha256(file: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  h.update(new Uint8Array(await Bun.file(file).arrayBuffer()));
  return h.digest("hex");
}

/** A directory of links to just these tools (those found on this machine), to stand in as PATH. */
function toolDir(name: string, tools: string[]): string {
  const dir = join(sb.root, name);
  mkdirSync(dir, { recursive: true });
  for (const t of tools) {
    const real = Bun.which(t);
    if (real) symlinkSync(real, join(dir, t));
  }
  return dir;
}

test("install.sh is POSIX sh: sh -n and dash -n accept it", () => {
  for (const shell of ["sh", "dash"]) {
    const p = Bun.spawnSync([shell, "-n", INSTALL_SH], { stderr: "pipe" });
    expect({ shell, code: p.exitCode, err: p.stderr.toString() }).toEqual({ shell, code: 0, err: "" });
  }
});

describe.skipIf(!linuxX64)("install from a release URL (loopback)", () => {
  test("picks linux-x64, verifies the checksum, installs into ~/.local/bin (created), says what next", async () => {
    expect(existsSync(binDir())).toBe(false);
    const r = await install("dash", { COFFER_RELEASE_URL: url("good") });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(requests).toContain("/good/SHA256SUMS");
    expect(requests).toContain("/good/coffer-linux-x64");
    const expected = manifest.targets.find((t) => t.name === "linux-x64")!.sha256;
    expect(r.stdout).toContain(`checksum ok: sha256 ${expected}`);
    expect(await sha256(installed())).toBe(expected);
    expect(statSync(installed()).mode & 0o777).toBe(0o755);
    // Not on PATH in this environment: the installer says how to add it, and the next command.
    expect(r.stdout).toContain(`export PATH="${binDir()}:$PATH"`);
    expect(r.stdout).toContain("  coffer link --all ");
    const v = Bun.spawnSync([installed(), "--version"]);
    expect(v.stdout.toString().trim()).toBe(`${manifest.version} (linux-x64)`);
    // Nothing but the binary is left in the install directory.
    expect(readdirSync(binDir())).toEqual(["coffer"]);
  });

  test("the installed coffer links Claude Code in that HOME", () => {
    const p = Bun.spawnSync([installed(), "link", "claude"], {
      cwd: sb.home,
      env: { ...sb.env, PATH: `${binDir()}:/usr/bin:/bin` },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.stderr.toString()).toBe("");
    expect(p.exitCode).toBe(0);
    const settings = JSON.parse(readFileSync(join(sb.home, ".claude", "settings.json"), "utf8"));
    const start = settings.hooks.SessionStart[0].hooks[0].command as string;
    expect(start).toBe(`${installed()} hook session-start --agent claude`);
    const mcp = JSON.parse(readFileSync(join(sb.home, ".claude.json"), "utf8")).mcpServers.coffer;
    expect(mcp.command).toBe(installed());
  });

  test("a corrupted download is refused with a clear message; the installed binary stays as it was", async () => {
    const before = await sha256(installed());
    const r = await install("sh", { COFFER_RELEASE_URL: url("bad") });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checksum mismatch for coffer-linux-x64");
    expect(r.stderr).toContain("nothing was installed");
    expect(await sha256(installed())).toBe(before);
    expect(readdirSync(binDir())).toEqual(["coffer"]); // no temp file left behind
  });

  test("re-running with the same release says already up to date; another build replaces it in one rename", async () => {
    const ino = statSync(installed()).ino;
    const r = await install("sh", {}, [RELEASE_DIR]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`already up to date: ${installed()} is coffer ${manifest.version} (linux-x64)`);
    expect(statSync(installed()).ino).toBe(ino);
    // Another build of the same version (here: one byte appended to the installed copy).
    appendFileSync(installed(), "\n");
    const again = await install("sh", {}, [RELEASE_DIR]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`reinstalled ${installed()}: coffer ${manifest.version} (linux-x64) (same version`);
    // A new file took the old name (rename), rather than the old file being rewritten in place.
    expect(statSync(installed()).ino).not.toBe(ino);
    expect(readdirSync(binDir())).toEqual(["coffer"]);
  });

  test("without curl it downloads with wget", async () => {
    // A PATH with every tool install.sh uses, except curl.
    const tools = toolDir("no-curl-bin", [
      "sh",
      "uname",
      "getconf",
      "ls",
      "grep",
      "ldd",
      "mkdir",
      "cp",
      "rm",
      "awk",
      "cut",
      "sed",
      "sha256sum",
      "chmod",
      "mv",
      "wget",
      "dirname",
      "cat",
    ]);
    expect(existsSync(join(tools, "curl"))).toBe(false);
    const dir = join(sb.root, "wget-bin");
    const r = await install("sh", { COFFER_RELEASE_URL: url("good"), COFFER_INSTALL_DIR: dir, PATH: tools });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("checksum ok");
    expect(existsSync(join(dir, "coffer"))).toBe(true);
  });

  // Where getconf cannot name a glibc and a musl loader exists, the installer takes the musl build.
  // Here (Debian's musl, no musl libstdc++) that binary cannot start: refused, old binary kept.
  test.skipIf(!existsSync("/lib/ld-musl-x86_64.so.1"))(
    "musl is detected without glibc; a binary that cannot start is refused",
    async () => {
      const tools = toolDir("musl-bin", [
        "sh",
        "uname",
        "ls",
        "grep",
        "mkdir",
        "cp",
        "rm",
        "awk",
        "cut",
        "sed",
        "sha256sum",
        "chmod",
        "mv",
        "curl",
        "dirname",
      ]);
      const before = await sha256(installed());
      const r = await install("sh", { COFFER_RELEASE_URL: url("good"), PATH: tools });
      expect(requests).toContain("/good/coffer-linux-x64-musl");
      expect(r.stdout).toContain("checksum ok");
      if (r.code === 0) return; // a machine with a musl libstdc++ runs it: installed, fine
      expect(r.stderr).toContain(
        "coffer-linux-x64-musl does not run on this machine (on Alpine it needs: apk add libstdc++)",
      );
      expect(await sha256(installed())).toBe(before);
      expect(readdirSync(binDir())).toEqual(["coffer"]);
    },
  );

  test("a directory where the binary goes is refused, not installed into", async () => {
    const dir = join(sb.root, "dirclash", "bin");
    mkdirSync(join(dir, "coffer"), { recursive: true });
    const r = await install("sh", { COFFER_RELEASE_URL: url("good"), COFFER_INSTALL_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, "coffer")} is a directory`);
    expect(r.stdout).not.toMatch(/installed/);
    expect(readdirSync(join(dir, "coffer"))).toEqual([]);
    expect(readdirSync(dir)).toEqual(["coffer"]);
  });

  test("COFFER_INSTALL_DIR and a missing target are honoured", async () => {
    const dir = join(sb.root, "opt", "bin");
    mkdirSync(join(sb.root, "opt"), { recursive: true });
    const ok = await install("sh", { COFFER_RELEASE_URL: url("good"), COFFER_INSTALL_DIR: dir });
    expect(ok.code).toBe(0);
    expect(existsSync(join(dir, "coffer"))).toBe(true);
    // A forced target (another machine's): Windows gets coffer.exe, verified, not run here.
    const win = await install("sh", {
      COFFER_RELEASE_URL: url("good"),
      COFFER_INSTALL_DIR: dir,
      COFFER_TARGET: "windows-x64",
    });
    expect(win.code).toBe(0);
    expect(win.stdout).toContain("checksum ok");
    expect(await sha256(join(dir, "coffer.exe"))).toBe(manifest.targets.find((t) => t.name === "windows-x64")!.sha256);
    const none = await install("sh", { COFFER_RELEASE_URL: url("good"), COFFER_TARGET: "linux-riscv64" });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("SHA256SUMS has no line for coffer-linux-riscv64");
  });
});
