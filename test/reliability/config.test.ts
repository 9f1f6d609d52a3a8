/**
 * One unknown config key switched every setting off (issue 12): with `[serve] host = ...` (unknown)
 * beside `[hook] read = "off"`, the hook ignored the whole file and injected anyway. Every valid key
 * is kept, unknown keys and bad values are reported (hook.log and `coffer doctor`), and a
 * `read = "off"` that cannot be read means nothing is injected (fail closed).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeStart, contextOf, hook, type Sandbox, sandbox } from "../kit";

let sb: Sandbox;
let repo: string;
beforeAll(() => {
  sb = sandbox("coffer-rel-config-");
  repo = sb.repo("proj");
  expect(sb.run(["rules", "add", "RULE-MARKER always run the tests", "--scope", "global"], { cwd: repo }).code).toBe(0);
});
afterAll(() => sb.cleanup());

const config = (text: string) => writeFileSync(join(sb.cofferHome, "config.toml"), text);
const hookLog = () => {
  try {
    return readFileSync(join(sb.cofferHome, "state", "hook.log"), "utf8");
  } catch {
    return "";
  }
};
let n = 0;
const start = () => {
  const r = hook(sb, "claude", "session-start", claudeStart(`s-config-${n++}`, repo), { cwd: repo });
  expect(r.code).toBe(0);
  return contextOf(r);
};

test("with no config the rule is injected (the baseline)", () => {
  rmSync(join(sb.cofferHome, "config.toml"), { force: true });
  expect(start()).toContain("RULE-MARKER");
});

test('an unknown key beside read = "off": nothing injected, the unknown key named in hook.log and doctor', () => {
  config('[serve]\nhost = "0.0.0.0"\n\n[hook]\nread = "off"\n');
  expect(start()).not.toContain("RULE-MARKER");
  expect(hookLog()).toMatch(/unknown key \\"serve\.host\\"/);
  const doc = sb.run(["doctor"], { cwd: repo });
  expect(doc.stdout + doc.stderr).toContain('unknown key "serve.host"');
});

test("several problems: doctor names each; the valid keys still apply", () => {
  config('[serve]\nhost = "0.0.0.0"\n\n[hook]\nread = "off"\nfavourite = 3\n\n[limits]\nbody_max = "big"\n');
  expect(start()).not.toContain("RULE-MARKER");
  const doc = sb.run(["doctor"], { cwd: repo });
  const out = doc.stdout + doc.stderr;
  expect(out).toContain('unknown key "serve.host"');
  expect(out).toContain('unknown key "hook.favourite"');
  expect(out).toContain('bad value for "limits.body_max"');
});

test("a read value that cannot be read fails closed (nothing injected)", () => {
  config('[hook]\nread = "of"\n');
  expect(start()).not.toContain("RULE-MARKER");
  expect(hookLog()).toMatch(/bad value for \\"hook\.read\\"/);
});

test('a file that does not parse but says read = "off": nothing injected', () => {
  config('[hook]\nread = "off"\n[broken\n');
  expect(start()).not.toContain("RULE-MARKER");
});

test("a file that does not parse and does not mention read: defaults, still injected", () => {
  config("[limits\nbody_max = 100\n");
  expect(start()).toContain("RULE-MARKER");
  rmSync(join(sb.cofferHome, "config.toml"), { force: true });
});
