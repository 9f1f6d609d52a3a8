/**
 * Short ids (issue 29): entries made in the same minute share 8-9 characters of their ULID, so an
 * 8-character prefix answered "ambiguous". Every place shows an entry's handle (its last 8
 * characters) and every command takes it: list, recall, forget, restore, show, the hooks'
 * `## [..]`, cards and `already loaded:` line; the hook's bytes stay a function of the routed set.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { claudePrompt, contextOf, hook, sandbox } from "../kit";

const sb = sandbox("coffer-handles-");
let repo = "";
const ids: string[] = [];

const TOPICS = ["kestrel", "osprey", "heron", "plover", "curlew", "dunlin", "godwit", "avocet"];

beforeAll(() => {
  repo = sb.repo("birds", "https://github.com/acme/birds.git");
  for (const t of TOPICS) {
    const r = sb.run(["remember", `The ${t} queue is drained by the ${t} worker every minute`, "--json"], {
      cwd: repo,
    });
    expect(r.code).toBe(0);
    ids.push(r.json().id);
  }
});
afterAll(() => sb.cleanup());

test("entries made within seconds share their first characters but not their handles", () => {
  // The old help's advice (`coffer forget 01JD3K5Z`) would be ambiguous here.
  expect(new Set(ids.map((id) => id.slice(0, 7))).size).toBeLessThan(ids.length); // the same half-minute
  expect(new Set(ids.map((id) => id.slice(-8))).size).toBe(ids.length);
});

test("list and recall show handles; show, recall's grep and remember's message use them too", () => {
  const list = sb.run(["list"], { cwd: repo }).stdout;
  for (const id of ids) {
    expect(list).toMatch(new RegExp(`^${id.slice(-8)} `, "m"));
    expect(list).not.toContain(id);
  }
  const recall = sb.run(["recall", "osprey worker"], { cwd: repo }).stdout;
  expect(recall).toContain(ids[1]!.slice(-8));
  expect(sb.run(["recall", "curlew", "--mode", "grep"], { cwd: repo }).stdout).toStartWith(`${ids[4]!.slice(-8)}:1`);
  expect(sb.run(["show", ids[2]!.slice(-8)], { cwd: repo }).stdout).toContain("The heron queue");
  // A lower-case handle, the whole id and a unique prefix still work.
  expect(sb.run(["show", ids[2]!.slice(-8).toLowerCase(), "--json"], { cwd: repo }).json().id).toBe(ids[2]);
  expect(sb.run(["show", ids[2]!, "--json"], { cwd: repo }).json().id).toBe(ids[2]);
  const r = sb.run(["remember", "Plovers nest on the gravel roof"], { cwd: repo });
  expect(r.stdout).toMatch(/^Remembered [0-9A-Z]{8} \(project birds\)\n$/);
  expect(sb.run(["forget", r.stdout.split(" ")[1]!], { cwd: repo }).code).toBe(0);
});

test("forget and restore take the handle they print", () => {
  const h = ids[7]!.slice(-8);
  const gone = sb.run(["forget", h], { cwd: repo });
  expect(gone.code).toBe(0);
  expect(gone.stdout).toContain(`Forgot ${h} (project birds); \`coffer restore ${h}\``);
  expect(sb.run(["trash"], { cwd: repo }).stdout).toMatch(new RegExp(`^${h} `, "m"));
  const back = sb.run(["restore", h], { cwd: repo });
  expect(back.code).toBe(0);
  expect(back.stdout).toContain(`Restored ${h}`);
});

test("the hooks show handles: bodies, cards and `already loaded:`; each one resolves; same set, same bytes", () => {
  const ask = (session: string, prompt: string) =>
    contextOf(hook(sb, "claude", "prompt", claudePrompt(session, repo, prompt)));
  const first = ask("h-1", "how is the kestrel queue drained?");
  expect(first).toContain(`## [${ids[0]!.slice(-8)}] The kestrel queue`);
  const next = ask("h-1", "and the kestrel queue versus the osprey queue?");
  expect(next).toContain(`## [${ids[1]!.slice(-8)}]`);
  const loaded = /^already loaded: (.*)$/m.exec(next)![1]!.split(", ");
  expect(loaded).toEqual([ids[0]!.slice(-8)]);
  for (const h of [...loaded, ...[...next.matchAll(/^(?:## |- )\[([^\]]+)\]/gm)].map((m) => m[1]!)]) {
    expect(h).toMatch(/^[0-9A-Z]{8}$/);
    expect(sb.run(["show", h, "--json"], { cwd: repo }).code).toBe(0);
  }
  // Determinism: a fresh session asking the same gets the same bytes.
  expect(ask("h-2", "how is the kestrel queue drained?")).toBe(first);
});

test("the ambiguous case names every candidate by its whole id", () => {
  const prefix = ids[0]!.slice(0, 4);
  const r = sb.run(["show", prefix], { cwd: repo });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`ambiguous: ${ids.length} entries match "${prefix}"`);
  expect(r.stderr).toContain(ids[0]!);
});
