/**
 * The README's set-up block works pasted whole into a clean HOME (issue 29: `coffer link` ran
 * before the PATH line took effect), names the same rc file as install.sh, install.sh re-run with
 * the same version says so, and the default port is the documented one.
 */
import { describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BIN, sandbox } from "../kit";

const ROOT = join(import.meta.dir, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The README's "put the binary on your PATH" block, exactly as written. */
const BLOCK = /Then put the binary on your `PATH`[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? "";

/** A checkout whose dist/coffer is the binary under test (the block copies it from there). */
function checkout(root: string): string {
  const dir = join(root, "checkout");
  mkdirSync(join(dir, "dist"), { recursive: true });
  symlinkSync(BIN, join(dir, "dist", "coffer"));
  return dir;
}

/** A release directory install.sh accepts, holding the binary under test (a real one, so --version works). */
function fakeRelease(root: string): string {
  const dir = join(root, "release");
  mkdirSync(dir, { recursive: true });
  copyFileSync(BIN, join(dir, "coffer-linux-x64"));
  const sum = new Bun.CryptoHasher("sha256").update(readFileSync(BIN)).digest("hex");
  writeFileSync(join(dir, "SHA256SUMS"), `${sum}  coffer-linux-x64\n`);
  return dir;
}

describe("README set-up block, pasted whole into a shell with a clean HOME", () => {
  for (const [shell, rc] of [
    ["/bin/bash", ".bashrc"],
    ["/bin/sh", ".profile"],
  ] as const) {
    test(`${shell}: no 'command not found', coffer links Claude, and new shells find it in ~/${rc}`, () => {
      expect(BLOCK).toContain("coffer link claude");
      const sb = sandbox("coffer-readme-");
      try {
        const home = sb.home;
        // Only what a fresh login has: no COFFER_HOME, no coffer on PATH.
        const env = { HOME: home, PATH: "/usr/bin:/bin", SHELL: shell, LANG: "C.UTF-8" };
        const p = Bun.spawnSync([shell, "-c", BLOCK], { cwd: checkout(sb.root), env, stdout: "pipe", stderr: "pipe" });
        const err = p.stderr.toString();
        expect(err).not.toContain("not found");
        expect(p.exitCode).toBe(0);
        expect(p.stdout.toString()).toContain("No problems found.");
        expect(existsSync(join(home, ".local", "bin", "coffer"))).toBe(true);
        expect(existsSync(join(home, ".claude", "settings.json"))).toBe(true);
        expect(readFileSync(join(home, rc), "utf8")).toBe('export PATH="$HOME/.local/bin:$PATH"\n');
        // Pasted again: the line is not added twice.
        Bun.spawnSync([shell, "-c", BLOCK], { cwd: checkout(join(sb.root, "again")), env });
        expect(readFileSync(join(home, rc), "utf8")).toBe('export PATH="$HOME/.local/bin:$PATH"\n');
        // A new shell reading that file finds coffer.
        const again = Bun.spawnSync([shell, "-c", `. ~/${rc}; command -v coffer`], { cwd: home, env, stdout: "pipe" });
        expect(again.stdout.toString().trim()).toBe(join(home, ".local", "bin", "coffer"));

        // install.sh, run by the same shell, names the same file.
        if (process.platform === "linux" && process.arch === "x64") {
          const install = Bun.spawnSync(["sh", join(ROOT, "install.sh"), fakeRelease(sb.root)], {
            cwd: home,
            env: { ...env, COFFER_INSTALL_DIR: join(sb.root, "elsewhere") },
            stdout: "pipe",
            stderr: "pipe",
          });
          expect(install.exitCode).toBe(0);
          expect(install.stdout.toString()).toContain(`>> ~/${rc}`);
        }
      } finally {
        sb.cleanup();
      }
    }, 60_000);
  }
});

test.skipIf(!(process.platform === "linux" && process.arch === "x64"))(
  "install.sh run again with the same version says it is already up to date",
  () => {
    const sb = sandbox("coffer-reinstall-");
    try {
      const release = fakeRelease(sb.root);
      const env = { HOME: sb.home, PATH: "/usr/bin:/bin", SHELL: "/bin/bash" };
      const run = () =>
        Bun.spawnSync(["sh", join(ROOT, "install.sh"), release], { cwd: sb.home, env, stdout: "pipe", stderr: "pipe" });
      const first = run();
      expect(first.exitCode).toBe(0);
      expect(first.stdout.toString()).toContain("installed ");
      const dest = join(sb.home, ".local", "bin", "coffer");
      const ino = statSync(dest).ino;
      const second = run();
      expect(second.stderr.toString()).toBe("");
      expect(second.exitCode).toBe(0);
      const version = Bun.spawnSync([BIN, "--version"]).stdout.toString().trim();
      expect(second.stdout.toString()).toContain(`already up to date: ${dest} is coffer ${version}`);
      expect(second.stdout.toString()).not.toContain("upgraded");
      expect(statSync(dest).ino).toBe(ino); // nothing replaced
      expect(readdirSync(join(sb.home, ".local", "bin"))).toEqual(["coffer"]);
    } finally {
      sb.cleanup();
    }
  },
  60_000,
);

test("serve's default port is 26333, as documented (7437 is engram's)", () => {
  const sb = sandbox("coffer-port-");
  try {
    expect(sb.run(["config", "get", "serve.port"]).stdout.trim()).toBe("26333");
    expect(sb.run(["serve", "--help"]).stdout).toContain("26333");
    expect(README).toContain("127.0.0.1:26333");
    expect(README).not.toMatch(/127\.0\.0\.1:7437/);
  } finally {
    sb.cleanup();
  }
});
