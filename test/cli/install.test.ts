/**
 * The README's install lines work on a fresh home (no ~/.local/bin), and the default port is
 * the documented one.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, sandbox } from "../helpers";

const README = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");

test("README: copying the binary onto PATH works on a fresh home", () => {
  const block = /Then put the binary on your `PATH`[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
  expect(block).toBeDefined();
  // the install lines, without the link step (that has its own tests)
  const lines = block!
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("coffer link"))
    .map((l) => l.replace("dist/coffer", BIN));
  expect(lines.length).toBe(2);
  const sb = sandbox("coffer-install-");
  try {
    expect(existsSync(join(sb.home, ".local"))).toBe(false);
    const p = Bun.spawnSync(["sh", "-c", lines.join("\n")], {
      cwd: sb.home,
      env: { ...sb.env, PATH: "/usr/bin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.stderr.toString()).toBe("");
    expect(p.exitCode).toBe(0);
    const installed = join(sb.home, ".local", "bin", "coffer");
    expect(existsSync(installed)).toBe(true);
    expect(readFileSync(join(sb.home, ".bashrc"), "utf8")).toContain('export PATH="$HOME/.local/bin:$PATH"');
    // a new shell reading ~/.bashrc finds it
    const again = Bun.spawnSync(["bash", "-c", ". ~/.bashrc; command -v coffer && coffer --version"], {
      cwd: sb.home,
      env: { ...sb.env, PATH: "/usr/bin:/bin" },
      stdout: "pipe",
    });
    expect(again.stdout.toString()).toContain(installed);
  } finally {
    sb.cleanup();
  }
});

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
