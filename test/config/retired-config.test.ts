/**
 * A config.toml key Coffer no longer reads (routing.learned, the learned thesaurus the sentence
 * model replaced): ignored everywhere, never a failure; doctor notes it, `config get|set` of it says why.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudePrompt, hook, sandbox } from "../kit";

const sb = sandbox("coffer-retired-config-");
afterAll(() => sb.cleanup());
const WHY = "routing.learned was removed: the sentence model (routing.similarity) replaced the learned thesaurus";

test('a config.toml with [routing] learned = "on" breaks nothing; doctor says the key was removed', () => {
  const file = join(sb.cofferHome, "config.toml");
  mkdirSync(sb.cofferHome, { recursive: true, mode: 0o700 });
  writeFileSync(file, '[routing]\nlearned = "on"\n\n[hook]\nproof = "compact"\n', { mode: 0o600 });
  // Commands load the file (the other keys apply) and work.
  expect(sb.run(["remember", "Deploys go through ArgoCD, never kubectl apply"]).code).toBe(0);
  const recall = sb.run(["recall", "argocd deploys", "--json"]);
  expect(recall.code).toBe(0);
  expect(recall.json().hits[0].text).toContain("ArgoCD");
  const config = sb.run(["config", "get", "--json"]).json();
  expect(config["hook.proof"]).toBe("compact");
  expect(config).not.toHaveProperty("routing.learned");
  // Setting another key keeps the file as it was otherwise.
  expect(sb.run(["config", "set", "hook.deadline_ms", "900"]).code).toBe(0);
  expect(readFileSync(file, "utf8")).toContain('learned = "on"');
  // The hook answers and logs no problem for it.
  const h = hook(sb, "claude", "prompt", claudePrompt("retired-1", sb.home, "how do deploys reach production?"));
  expect(h.code).toBe(0);
  const log = join(sb.cofferHome, "state", "hook.log");
  if (existsSync(log)) expect(readFileSync(log, "utf8")).not.toContain("routing.learned");
  // Doctor: a note, not a problem.
  const d = sb.run(["doctor", "--json"]);
  expect(d.code).toBe(0);
  const report = d.json();
  expect(report.store.notes.join("\n")).toContain(WHY);
  expect(JSON.stringify(report.problems ?? [])).not.toContain("routing.learned");
  expect(JSON.stringify(report.store.problems)).not.toContain("routing.learned");
  expect(sb.run(["doctor"]).stdout).toContain(WHY);
  // Asking for the key by name says why it is gone (a usage error, exit 2).
  for (const args of [
    ["config", "get", "routing.learned"],
    ["config", "set", "routing.learned", "on"],
  ]) {
    const r = sb.run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(WHY);
  }
});
