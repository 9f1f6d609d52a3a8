/**
 * Fault-injection suite, hostile files in the store (issue 25): an entry file that is a symbolic
 * link, a FIFO, a link to /dev/zero or over 1 MiB. `forget` (CLI, MCP, HTTP) never reads through
 * a link or opens a non-regular file: a link or FIFO is removed itself (nothing of a target lands in
 * the trash or back in memory/), a regular file of any size moves to the trash whole and comes back
 * with `restore`. The server keeps answering throughout.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox, startServe, stdioClient } from "../kit";
import { record } from "./_fault";

let sb: Sandbox;
let dir: string;
let cases = 0;
const SECRET = "OUTSIDE-TARGET-SECRET-41";

beforeAll(() => {
  sb = sandbox("coffer-fault-files-");
  expect(sb.run(["remember", "a good entry", "--scope", "global"]).code).toBe(0);
  dir = join(sb.cofferHome, "memory", "global", "entries");
});
afterAll(() => sb.cleanup());

/** Every file under memory/ and state/trash/, as text. */
function storeText(): string {
  let all = "";
  for (const root of ["memory", join("state", "trash")]) {
    const base = join(sb.cofferHome, root);
    if (!existsSync(base)) continue;
    for (const rel of new Bun.Glob("**/*").scanSync({ cwd: base, dot: true, followSymlinks: false })) {
      const p = join(base, rel);
      if (lstatSync(p).isFile()) all += readFileSync(p, "utf8");
    }
  }
  return all;
}

/** `coffer <args>` that must finish within `ms` (a blocked read would hang it). */
async function runWithin(args: string[], ms = 15_000): Promise<{ code: number | null; out: string }> {
  const p = sb.spawn(args);
  const timer = setTimeout(() => p.kill("SIGKILL"), ms);
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  cases++;
  return { code: p.signalCode ? null : code, out: out + err };
}

test("forget of a linked entry file removes the link itself; restore brings back nothing of its target", async () => {
  const target = join(sb.root, "outside.md");
  const id = "01JL1NK0000000000000000000";
  writeFileSync(target, `---\nid: ${id}\nkind: note\ntitle: outside\n---\n${SECRET}\n`);
  symlinkSync(target, join(dir, `${id}.md`));
  const r = await runWithin(["forget", id, "--json"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(dir, `${id}.md`))).toBe(false);
  expect(readFileSync(target, "utf8")).toContain(SECRET);
  const back = await runWithin(["restore", id]);
  expect(back.code).not.toBe(0);
  expect(back.out).not.toMatch(/bug in Coffer|^\s+at /m);
  expect(existsSync(join(dir, `${id}.md`))).toBe(false);
  expect(storeText()).not.toContain(SECRET);
});

test("forget of a FIFO or a link to /dev/zero finishes (CLI, MCP, HTTP) and the server keeps answering", async () => {
  const ids = ["01JF1F00000000000000000001", "01JF1F00000000000000000002", "01JF1F00000000000000000003"];
  const zeros = ["01JZER00000000000000000001", "01JZER00000000000000000002", "01JZER00000000000000000003"];
  for (const id of ids) Bun.spawnSync(["mkfifo", join(dir, `${id}.md`)]);
  for (const id of zeros) symlinkSync("/dev/zero", join(dir, `${id}.md`));
  // CLI
  for (const id of [ids[0]!, zeros[0]!]) {
    const r = await runWithin(["forget", id, "--json"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, `${id}.md`))).toBe(false);
  }
  // MCP
  const mcp = await stdioClient(sb, sb.home);
  try {
    for (const id of [ids[1]!, zeros[1]!]) {
      const res = await Promise.race([
        mcp.ok("forget", { id, scope: "global" }),
        Bun.sleep(15_000).then(() => "timed out"),
      ]);
      expect(res).not.toBe("timed out");
      cases++;
    }
  } finally {
    await mcp.close();
  }
  // HTTP: the forget answers and /healthz answers while and after it runs.
  const served = await startServe(sb, sb.home, ["--no-worker"]);
  try {
    for (const id of [ids[2]!, zeros[2]!]) {
      const del = served.api(`/api/v1/entries/${id}?scope=global`, { method: "DELETE" });
      const health = await Promise.race([fetch(`${served.url}/healthz`), Bun.sleep(5000).then(() => null)]);
      expect(health?.status).toBe(200);
      const res = await Promise.race([del, Bun.sleep(15_000).then(() => null)]);
      expect(res?.status).toBe(200);
      cases++;
    }
  } finally {
    await served.stop();
  }
  for (const id of [...ids, ...zeros]) expect(existsSync(join(dir, `${id}.md`))).toBe(false);
  expect(existsSync("/dev/zero")).toBe(true);
});

test("config.toml that is a FIFO: commands finish with a message, hooks answer", async () => {
  const fresh = sandbox("coffer-fault-fifo-");
  try {
    expect(fresh.run(["remember", "fifo config marker", "--scope", "global"]).code).toBe(0);
    Bun.spawnSync(["mkfifo", join(fresh.cofferHome, "config.toml")]);
    for (const args of [["status"], ["remember", "another", "--scope", "global"]]) {
      const p = fresh.spawn(args);
      const timer = setTimeout(() => p.kill("SIGKILL"), 15_000);
      const [, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      clearTimeout(timer);
      cases++;
      expect(p.signalCode).toBeNull();
      expect(code).toBe(1);
      expect(err).toMatch(/config\.toml/);
      expect(err).not.toMatch(/bug in Coffer|^\s+at /m);
    }
    const hook = fresh.spawn(["hook", "session-start", "--agent", "claude"], { stdin: "" });
    hook.stdin!.write(JSON.stringify({ session_id: "s-fifo", cwd: fresh.home, hook_event_name: "SessionStart" }));
    hook.stdin!.end();
    const timer = setTimeout(() => hook.kill("SIGKILL"), 15_000);
    const [out, , code] = await Promise.all([
      new Response(hook.stdout).text(),
      new Response(hook.stderr).text(),
      hook.exited,
    ]);
    clearTimeout(timer);
    cases++;
    expect(code).toBe(0);
    expect(() => JSON.parse(out)).not.toThrow();
  } finally {
    fresh.cleanup();
  }
});

test("an entry file over 1 MiB goes to the trash whole: listed, restorable, purged after 30 days", async () => {
  const id = "01JH0GE0000000000000000000";
  const big = `---\nid: ${id}\nkind: note\ntitle: huge one\n---\n${"HUGE ".repeat(300_000)}\n`;
  writeFileSync(join(dir, `${id}.md`), big);
  expect((await runWithin(["forget", id])).code).toBe(0);
  expect(existsSync(join(dir, `${id}.md`))).toBe(false);
  expect(sb.run(["trash", "--json"]).stdout).toContain(id);
  const back = await runWithin(["restore", id]);
  expect(back.code).toBe(0);
  expect(readFileSync(join(dir, `${id}.md`), "utf8")).toBe(big);
  // Gone again, and 31 days later purged from the trash.
  expect((await runWithin(["forget", id])).code).toBe(0);
  const trashDir = join(sb.cofferHome, "state", "trash", "global");
  const note = join(trashDir, `${id}.json`);
  const meta = JSON.parse(readFileSync(note, "utf8"));
  writeFileSync(note, JSON.stringify({ ...meta, deleted: new Date(Date.now() - 31 * 86_400_000).toISOString() }));
  expect(sb.run(["trash", "--json"]).stdout).not.toContain(id);
  expect(readdirSync(trashDir).filter((n) => n.startsWith(id))).toEqual([]);
});

test("a bulk move onto an entry with the same id in the target scope is refused; both stay", async () => {
  const repo = sb.repo("movecollide", "https://github.com/acme/movecollide.git");
  expect(sb.run(["remember", "project side note", "--json"], { cwd: repo }).code).toBe(0);
  const projectId = readdirSync(join(sb.cofferHome, "memory", "projects"))[0]!;
  const id = "01JC0111DE00000000000000AA";
  const projDir = join(sb.cofferHome, "memory", "projects", projectId, "entries");
  const entry = (body: string) =>
    `---\nid: ${id}\nkind: note\ntitle: ${body}\ntags: []\nactor: user\nsource: cli\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n${body}\n`;
  writeFileSync(join(projDir, `${id}.md`), entry("PROJECT COPY"));
  writeFileSync(join(dir, `${id}.md`), entry("GLOBAL COPY"));
  expect(sb.run(["reindex"], { cwd: repo }).code).toBe(0);
  const served = await startServe(sb, repo, ["--no-worker"]);
  try {
    for (const to of ["global", projectId]) {
      const res = await served.api("/api/v1/ui/bulk", { method: "POST", body: { ids: [id], action: "move", to } });
      const body = await res.json();
      cases++;
      expect(body.results[0].ok).toBe(false);
      expect(body.results[0].error).toMatch(/already/);
    }
  } finally {
    await served.stop();
  }
  expect(readFileSync(join(projDir, `${id}.md`), "utf8")).toContain("PROJECT COPY");
  expect(readFileSync(join(dir, `${id}.md`), "utf8")).toContain("GLOBAL COPY");
  record("files.cases", cases);
});
