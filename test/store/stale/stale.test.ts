/**
 * Staleness (issue 30): entries name files, scripts, targets and dependencies; `coffer stale`
 * checks them against the project's working tree and says why an entry no longer holds. Never
 * wrong about absence: URLs, ignored or generated folders, other repositories' paths and global
 * entries are never flagged. A person's keep silences the reasons until the anchor changes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sandbox } from "../../kit";

const sb = sandbox();
afterAll(() => sb.cleanup());

type Reason = { anchor: string; why: string; moved?: string };
type Report = { checked: number; kept: number; stale: { id: string; title: string; reasons: Reason[] }[] };

function project(name: string, files: Record<string, string>): string {
  const dir = sb.repo(name, `https://github.com/example/${name}.git`);
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  return dir;
}
function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}
function remember(cwd: string, title: string, text: string, ...more: string[]): string {
  const r = sb.run(["remember", text, "--title", title, "--json", ...more], { cwd });
  expect(r.code).toBe(0);
  return r.json().id;
}
function check(cwd: string): Report {
  const r = sb.run(["stale", "--json"], { cwd });
  expect(r.code).toBe(0);
  return r.json();
}
const reasonsOf = (report: Report, id: string) => report.stale.find((s) => s.id === id)?.reasons ?? [];

describe("an entry whose anchor is gone is flagged with the reason", () => {
  test("a removed file, and a moved file offers its new path", () => {
    const dir = project("files", { "src/billing/tax.ts": "", "src/billing/invoice.ts": "", "src/util/index.ts": "" });
    const tax = remember(dir, "Tax rounding", "Tax is rounded per line in src/billing/tax.ts, never per invoice.");
    const inv = remember(dir, "Invoices", "Invoice numbering lives in `src/billing/invoice.ts`.");
    const glob = remember(dir, "Billing", "Billing code is pure.", "--applies-to", "src/billing/**");
    expect(check(dir).stale).toEqual([]);

    unlinkSync(join(dir, "src/billing/invoice.ts"));
    mkdirSync(join(dir, "src/tax"));
    renameSync(join(dir, "src/billing/tax.ts"), join(dir, "src/tax/tax.ts"));
    const report = check(dir);
    expect(reasonsOf(report, inv).map((r) => r.why)).toEqual(["src/billing/invoice.ts is gone"]);
    expect(reasonsOf(report, tax)).toEqual([
      {
        anchor: "path:src/billing/tax.ts",
        why: "src/billing/tax.ts is gone",
        moved: "src/tax/tax.ts",
      },
    ]);
    expect(reasonsOf(report, glob).map((r) => r.why)).toEqual(["src/billing/** matches no file"]);

    // the human table says the same
    const human = sb.run(["stale"], { cwd: dir });
    expect(human.stdout).toContain("src/billing/tax.ts is gone (maybe moved to src/tax/tax.ts)");
    expect(human.stderr).toContain("3 stale entries of 3 entries");
  });

  test("a removed package.json script", () => {
    const dir = project("scripts", {
      "package.json": JSON.stringify({ scripts: { build: "tsc", "test:e2e": "playwright test" } }),
    });
    const id = remember(dir, "E2E", "Run `npm run test:e2e` before a release, and `pnpm build` after a rebase.");
    expect(check(dir).stale).toEqual([]);
    write(dir, "package.json", JSON.stringify({ scripts: { build: "tsc" } }));
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["script test:e2e is no longer in package.json"]);
  });

  test("a removed Makefile target", () => {
    const dir = project("make", { Makefile: "release: build\n\t./ship\nbuild:\n\tcc x.c\n" });
    const id = remember(
      dir,
      "Release",
      "This repo deploys via `make release`, never `git push --tags`. Make sure CI is green.",
    );
    expect(check(dir).stale).toEqual([]);
    write(dir, "Makefile", "build:\n\tcc x.c\n");
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["make target release is no longer in the Makefile"]);
  });

  test("a removed dependency (named with a version, or in backticks once seen listed)", () => {
    const dir = project("deps", {
      "package.json": JSON.stringify({ devDependencies: { jest: "^29.7.0", "ts-jest": "^29.1.0" } }),
    });
    const pinned = remember(dir, "Test runner", "We test with `jest` 29.7 and its snapshot files.");
    const named = remember(dir, "TS tests", "Type-checked tests go through `ts-jest`.");
    expect(check(dir).stale).toEqual([]);
    write(dir, "package.json", JSON.stringify({ devDependencies: { vitest: "^1.6.0" } }));
    const report = check(dir);
    expect(reasonsOf(report, pinned).map((r) => r.why)).toEqual(["dependency jest is no longer listed"]);
    expect(reasonsOf(report, named).map((r) => r.why)).toEqual(["dependency ts-jest is no longer listed"]);
  });

  test("a dependency of pyproject.toml, go.mod and Cargo.toml", () => {
    const dir = project("poly", {
      "pyproject.toml": '[project]\nname = "x"\ndependencies = ["requests>=2.31", "pydantic==2.7"]\n',
      "go.mod": "module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n)\n",
      "Cargo.toml": '[package]\nname = "x"\n\n[dependencies]\nserde = "1"\n',
    });
    const py = remember(dir, "HTTP", "Calls go through requests@2.31 with a session.");
    const rs = remember(dir, "Serde", "Config is parsed with `serde` 1.0 derive.");
    const go = remember(dir, "CLI", "The CLI uses `cobra` v1.8 for flags.");
    expect(check(dir).stale).toEqual([]);
    write(dir, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["httpx>=0.27"]\n');
    write(dir, "Cargo.toml", '[package]\nname = "x"\n\n[dependencies]\ntoml = "0.8"\n');
    write(dir, "go.mod", "module example.com/x\n\ngo 1.22\n");
    const report = check(dir);
    expect(reasonsOf(report, py).map((r) => r.why)).toEqual(["dependency requests is no longer listed"]);
    expect(reasonsOf(report, rs).map((r) => r.why)).toEqual(["dependency serde is no longer listed"]);
    expect(reasonsOf(report, go).map((r) => r.why)).toEqual(["dependency cobra is no longer listed"]);
  });
});

describe("commands in prose, lone backticked dependencies, vanished top folders (issue 37)", () => {
  test("a make target named in prose, once seen in the Makefile; never 'make sure'", () => {
    const dir = project("prose-make", { Makefile: "release: build\n\t./ship\nbuild:\n\tcc x.c\n" });
    const id = remember(dir, "Shipping", "Ship with make release, never by pushing tags by hand.");
    const sure = remember(dir, "Sure", "Make sure CI is green, and make docs before a tag.");
    expect(check(dir).stale).toEqual([]);
    write(dir, "Makefile", "build:\n\tcc x.c\n");
    const report = check(dir);
    expect(reasonsOf(report, id).map((r) => r.why)).toEqual(["make target release is no longer in the Makefile"]);
    // "sure" and "docs" were never targets here: nothing to say
    expect(reasonsOf(report, sure)).toEqual([]);
  });

  test("an npm script named in prose", () => {
    const dir = project("prose-npm", {
      "package.json": JSON.stringify({ scripts: { build: "tsc", "build:docs": "typedoc" } }),
    });
    const id = remember(dir, "Docs", "Regenerate the API docs with npm run build:docs.");
    // never seen in package.json: a firm anchor all the same (npm run can only be a script)
    const never = remember(dir, "Lint", "Lint with pnpm run lint:all before pushing.");
    const ws = remember(dir, "Web", "The web app builds with npm run bundle --workspace=web.");
    write(dir, "package.json", JSON.stringify({ scripts: { build: "tsc" } }));
    const report = check(dir);
    expect(reasonsOf(report, id).map((r) => r.why)).toEqual(["script build:docs is no longer in package.json"]);
    expect(reasonsOf(report, never).map((r) => r.why)).toEqual(["script lint:all is no longer in package.json"]);
    expect(reasonsOf(report, ws)).toEqual([]);
  });

  test("a lone backticked dependency, once seen in the manifest", () => {
    const dir = project("lone-dep", {
      "package.json": JSON.stringify({ devDependencies: { jest: "^29.7.0", "ts-jest": "^29.1.0" } }),
    });
    const id = remember(dir, "Tests", "Tests use `jest` with the ts-jest preset.");
    const ident = remember(dir, "Flag", "Pass `verbose` to the logger.");
    expect(check(dir).stale).toEqual([]);
    write(dir, "package.json", JSON.stringify({ devDependencies: { vitest: "^1.6.0" } }));
    const report = check(dir);
    expect(reasonsOf(report, id).map((r) => r.why)).toEqual(["dependency jest is no longer listed"]);
    expect(reasonsOf(report, ident)).toEqual([]);
  });

  test("a backticked dependency or a prose command listed only when the entry was written (issue 37)", () => {
    const dir = project("write-time", {
      "package.json": JSON.stringify({ devDependencies: { jest: "^29.7.0" } }),
      Makefile: "release:\n\t./ship\n",
    });
    const id = remember(dir, "Tests", "Tests use `jest` with the ts-jest preset.");
    const ship = remember(dir, "Ship", "Ship with make release, never by pushing tags by hand.");
    const ident = remember(dir, "Flag", "Pass `verbose` to the logger.");
    // No check runs between the write and the removal.
    write(dir, "package.json", JSON.stringify({ devDependencies: { vitest: "^1.6.0" } }));
    write(dir, "Makefile", "build:\n\tcc x.c\n");
    const report = check(dir);
    expect(reasonsOf(report, id).map((r) => r.why)).toEqual(["dependency jest is no longer listed"]);
    expect(reasonsOf(report, ship).map((r) => r.why)).toEqual(["make target release is no longer in the Makefile"]);
    expect(reasonsOf(report, ident)).toEqual([]);
  });

  test("a path whose top folder vanished is ours when the repository's history had it", () => {
    const dir = project("vanished", { "src/billing/tax.ts": "", "lib/a.ts": "" });
    const git = (...a: string[]) =>
      Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@x", ...a], { cwd: dir, env: sb.env });
    git("add", "-A");
    git("commit", "-q", "-m", "init");
    const id = remember(dir, "Tax", "Tax is rounded per line in src/billing/tax.ts.");
    const other = remember(dir, "Sibling", "The sibling repository keeps web-client/src/api.ts.");
    expect(check(dir).stale).toEqual([]);
    rmSync(join(dir, "src"), { recursive: true });
    const report = check(dir);
    expect(reasonsOf(report, id).map((r) => r.why)).toEqual(["src/billing/tax.ts is gone"]);
    // never in this repository's history: another repository's path
    expect(reasonsOf(report, other)).toEqual([]);
  });
});

describe("never wrong about absence", () => {
  test("ignored paths, URLs, other repositories' paths, generated folders and global entries are never flagged", () => {
    const dir = project("never", {
      ".gitignore": "# build output\n/generated/\n*.log\ncoverage-report/\n",
      "generated/other.ts": "",
      "src/app.ts": "",
      "package.json": JSON.stringify({ scripts: { build: "tsc" } }),
    });
    const ids = [
      remember(dir, "Generated", "The schema is written to generated/schema.ts and logs to src/debug.log."),
      remember(dir, "Link", "See https://github.com/example/never/blob/main/src/gone.ts and http://x.dev/src/old.ts."),
      remember(dir, "Size", "Install size: https://packagephobia.com/result?p=left-pad@1.3.0,is-odd@3.0.1 is small."),
      remember(dir, "Other repo", "The web client keeps its copy in ../web/src/api.ts and /opt/other/src/api.ts."),
      remember(
        dir,
        "Other repo 2",
        "The sibling repository has web-client/src/api.ts and github.com/acme/lib/src/x.ts.",
      ),
      remember(dir, "Installed", "A patched node_modules/left-pad/index.js and dist/app.js are generated."),
      remember(dir, "Prose", "Make sure the client/server split and/or the input/output types stay small."),
    ];
    const global = remember(dir, "Global", "In every repo src/legacy/gone.ts is dead.", "--scope", "global");
    const report = check(dir);
    expect(report.stale).toEqual([]);
    for (const id of [...ids, global]) expect(reasonsOf(report, id)).toEqual([]);
    // outside any repository nothing is checked at all
    const outside = sb.run(["stale", "--json"], { cwd: sb.home });
    expect(outside.code).toBe(0);
    expect(outside.json().stale).toEqual([]);
  });
});

describe("never past a symbolic link committed in the repository", () => {
  test("what a link points at, in the checkout or outside it, is never looked at", () => {
    // outside the checkout: one file there, one not
    const elsewhere = join(sb.root, "elsewhere");
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, "present.txt"), "");
    writeFileSync(join(elsewhere, "package.json"), JSON.stringify({ scripts: { build: "x" } }));
    const dir = project("links", { "src/app.ts": "" });
    symlinkSync(elsewhere, join(dir, "outside")); // a folder link out of the checkout
    mkdirSync(join(dir, "docs"));
    symlinkSync(join(sb.root, "nowhere", "guide.md"), join(dir, "docs/guide.md")); // dangling
    symlinkSync(join(elsewhere, "package.json"), join(dir, "package.json")); // a manifest from elsewhere
    const present = remember(dir, "Present", "Keys are listed in outside/present.txt.");
    const absent = remember(dir, "Absent", "Tokens are listed in outside/absent.txt.");
    const guide = remember(dir, "Guide", "The guide is docs/guide.md.");
    const script = remember(dir, "Deploy", "Ship with `npm run deploy` after `npm run build`.");
    const report = check(dir);
    // Both or neither: whether outside/absent.txt exists is not the checkout's to tell.
    for (const id of [present, absent, script]) expect(reasonsOf(report, id)).toEqual([]);
    // A link is there as itself, wherever it points.
    expect(reasonsOf(report, guide)).toEqual([]);
    // A link that goes away is gone like a file.
    unlinkSync(join(dir, "docs/guide.md"));
    expect(reasonsOf(check(dir), guide).map((r) => r.why)).toEqual(["docs/guide.md is gone"]);
  });
});

describe("keep", () => {
  test("keep silences the current reasons until the anchor changes", () => {
    const dir = project("keep", { "src/a.ts": "", "src/b.ts": "" });
    const id = remember(dir, "A and B", "The parser is src/a.ts and the printer src/b.ts.");
    unlinkSync(join(dir, "src/a.ts"));
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/a.ts is gone"]);

    const kept = sb.run(["stale", "keep", id.slice(-8)], { cwd: dir });
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain("src/a.ts is gone");
    let report = check(dir);
    expect(report.stale).toEqual([]);
    expect(report.kept).toBe(1);

    // another anchor going missing is a new reason
    unlinkSync(join(dir, "src/b.ts"));
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/b.ts is gone"]);
    write(dir, "src/b.ts", "");

    // the file comes back: the keep ends; gone again, it is flagged again
    write(dir, "src/a.ts", "");
    expect(check(dir).stale).toEqual([]);
    unlinkSync(join(dir, "src/a.ts"));
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/a.ts is gone"]);

    // keeping an entry that is not stale says so
    const fresh = remember(dir, "B", "The printer is src/b.ts.");
    const no = sb.run(["stale", "keep", fresh], { cwd: dir });
    expect(no.code).toBe(1);
    expect(no.stderr).toContain("not stale");
    report = check(dir);
    expect(report.stale.map((s) => s.id)).toEqual([id]);
  });

  test("anchors come back with a rebuilt index", () => {
    const dir = project("rebuild", { "src/x.ts": "" });
    const id = remember(dir, "X", "Entry point: src/x.ts.");
    rmSync(join(dir, "src/x.ts"));
    rmSync(join(sb.cofferHome, "state", "index.db"), { force: true });
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/x.ts is gone"]);
    expect(sb.run(["reindex"], { cwd: dir }).code).toBe(0);
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/x.ts is gone"]);
  });
});

describe("doctor", () => {
  test("doctor checks this project and reports how many entries are stale", () => {
    const dir = project("doctor", { "src/keep.ts": "" });
    remember(dir, "Gone", "The old entry point was src/main.ts.");
    remember(dir, "Here", "The entry point is src/keep.ts.");
    const r = sb.run(["doctor", "--json"], { cwd: dir });
    const figure = r.json().stale.find((f: { project: string }) => f.project === "doctor");
    expect(figure).toEqual({ project: "doctor", checked: 2, stale: 1, kept: 0 });
    expect(sb.run(["doctor"], { cwd: dir }).stdout).toContain(
      "stale: 1 entry of 2 naming files, scripts or dependencies in doctor",
    );
  });
});

describe("team lane", () => {
  test("an entry of the repository's .coffer/ lane is checked with the project's", () => {
    const dir = project("team", { "src/server.ts": "" });
    const id = remember(dir, "Server", "The HTTP server starts in src/server.ts.", "--scope", "team");
    expect(check(dir).stale).toEqual([]);
    unlinkSync(join(dir, "src/server.ts"));
    expect(reasonsOf(check(dir), id).map((r) => r.why)).toEqual(["src/server.ts is gone"]);
    expect(sb.run(["stale", "keep", id], { cwd: dir }).code).toBe(0);
    expect(check(dir).stale).toEqual([]);
  });
});
