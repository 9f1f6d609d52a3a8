/**
 * Staleness on a real repository's history (issue 30): entries written from its README at an old
 * commit, checked against the tree at HEAD. Takes a bare mirror (e.g. the `fetch` tool's copy of
 * github:sindresorhus/got), reads `<old>:README` with `git show`, splits it into one entry per
 * `##` section (long ones into paragraphs), materialises HEAD's tree with `git archive` into a
 * temporary folder (with an empty `.git`, the repository's origin) and runs `coffer stale --json`
 * there. Prints every flagged entry with its reasons, for hand inspection.
 *
 *   bun scripts/bench/stale.ts --repo /work/.mirror/sindresorhus+got/repo --old 3bf3e3bb [--head HEAD]
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { argOf, BIN, benchSandbox, fakeRepo } from "./_common";

const repo = argOf("repo", "/work/.mirror/sindresorhus+got/repo");
const old = argOf("old", "3bf3e3bb");
const head = argOf("head", "HEAD");

const git = (...args: string[]) => {
  const p = Bun.spawnSync(["git", "--git-dir", repo, ...args], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString().trim()}`);
  return p.stdout;
};

const names = git("ls-tree", "--name-only", old).toString().split("\n");
const readmeName = names.find((n) => /^readme(\.md)?$/i.test(n));
if (!readmeName) throw new Error(`no README at ${old}`);
const readme = git("show", `${old}:${readmeName}`).toString();
const oldDate = git("show", "-s", "--format=%ad", "--date=short", old).toString().trim();
const headId = git("rev-parse", "--short", head).toString().trim();
const headDate = git("show", "-s", "--format=%ad", "--date=short", head).toString().trim();

/** One entry per `##`/`###` section; a section over 6,000 characters in paragraph-sized pieces. */
function sections(text: string): { title: string; body: string }[] {
  const out: { title: string; body: string }[] = [];
  const parts = text.split(/^(?=#{2,3} )/m);
  for (const part of parts) {
    const m = /^#{2,3} (.+)\n/.exec(part);
    const title = (m ? m[1]! : "Introduction").replace(/[`*[\]]/g, "").slice(0, 100);
    const body = (m ? part.slice(m[0].length) : part).trim();
    if (body.length < 20) continue;
    if (body.length <= 6000) {
      out.push({ title, body });
      continue;
    }
    let chunk = "";
    let n = 1;
    for (const para of body.split(/\n{2,}(?![ \t])/)) {
      if (chunk && chunk.length + para.length > 5000) {
        out.push({ title: `${title} (${n++})`, body: chunk.trim() });
        chunk = "";
      }
      chunk += `${para}\n\n`;
    }
    if (chunk.trim().length >= 20) out.push({ title: `${title} (${n})`, body: chunk.trim().slice(0, 8000) });
  }
  return out;
}

const { root, env } = benchSandbox("stale");
const work = join(root, "work", "checkout");
mkdirSync(work, { recursive: true });
const tar = git("archive", "--format=tar", head);
const untar = Bun.spawnSync(["tar", "-x", "-C", work], { stdin: tar, stderr: "pipe" });
if (untar.exitCode !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
fakeRepo(work, "https://github.com/bench/stale-history.git");

const run = (args: string[], stdin?: string) => {
  const p = Bun.spawnSync([BIN, ...args], {
    cwd: work,
    env,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (p.exitCode !== 0) throw new Error(`coffer ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
};

const entries = sections(readme);
let written = 0;
for (const e of entries) {
  run(["remember", "-", "--title", e.title, "--kind", "fact", "--allow-secret"], e.body);
  written++;
}
const t0 = performance.now();
const report = JSON.parse(run(["stale", "--json"])) as {
  checked: number;
  stale: { id: string; title: string; reasons: { text: string }[] }[];
};
const ms = performance.now() - t0;

console.log(
  `${repo}: README at ${old} (${oldDate}) -> ${written} entries; checked at ${headId} (${headDate}) in ${ms.toFixed(0)} ms (whole command)`,
);
console.log(`entries naming files, scripts or dependencies: ${report.checked}; flagged stale: ${report.stale.length}`);
for (const s of report.stale) {
  console.log(`\n[${s.id.slice(-8)}] ${s.title}`);
  for (const r of s.reasons) console.log(`  - ${r.text}`);
}
if (process.env.KEEP) console.log(`\nkept: ${root}`);
else rmSync(root, { recursive: true, force: true });
