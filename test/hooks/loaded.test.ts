/**
 * What a process evaluates (issue 38): the binary is built with --splitting (scripts/targets.ts),
 * so a process loads the chunk of its entry, the chunks of the `import()`s it reaches, and what
 * those import statically — nothing else. This test bundles src/cli.ts the same way and checks the
 * chunks each kind of process can load: a module a hook or `--version` does not need (the MCP SDK,
 * the CLI framework, the web UI) showing up there costs every agent turn its load.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HOSTS } from "../../src/lib/hosts";

const root = resolve(import.meta.dir, "..", "..");
const out = mkdtempSync(join(tmpdir(), "coffer-chunks-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

type Meta = {
  outputs: Record<
    string,
    { inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] }
  >;
};
const built = await Bun.build({
  entrypoints: [join(root, "src", "cli.ts")],
  outdir: out,
  target: "bun",
  format: "esm",
  splitting: true,
  minify: true,
  metafile: true,
} as Parameters<typeof Bun.build>[0] & { metafile: boolean });
const meta = (built as unknown as { metafile: Meta }).metafile;

/** The chunk that holds a source module (with --splitting each module is in exactly one). */
function chunkOf(source: string): string {
  const found = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).some((i) => i === source));
  if (!found) throw new Error(`no chunk holds ${source}`);
  return found[0];
}

/** The chunks a process loads when it imports these modules: theirs and their static imports. */
function chunksLoadedBy(sources: string[]): Set<string> {
  const seen = new Set<string>();
  const walk = (chunk: string) => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    for (const i of meta.outputs[chunk]!.imports) if (i.kind === "import-statement" && !i.external) walk(i.path);
  };
  for (const s of sources) walk(chunkOf(s));
  return seen;
}

/** Source modules (and packages) loaded when these modules are imported. */
function loadedBy(sources: string[]): string[] {
  return [...chunksLoadedBy(sources)].flatMap((c) => Object.keys(meta.outputs[c]!.inputs));
}

/** The runtime's own modules ("fs", "os", ...) those chunks import statically (read from the chunks: the metafile leaves them out). */
function builtinsLoadedBy(sources: string[]): string[] {
  const found = new Set<string>();
  for (const c of chunksLoadedBy(sources))
    for (const m of readFileSync(join(out, c), "utf8").matchAll(/\bfrom\s*"(?:node:)?([a-z_/]+)"/g)) found.add(m[1]!);
  return [...found].sort();
}

const FORBIDDEN_IN_HOOK = [
  /node_modules\/citty\//,
  /node_modules\/consola\//,
  /node_modules\/@modelcontextprotocol\//,
  /node_modules\/ajv/,
  /node_modules\/zod\//,
  /^src\/(commands|serve|mcp|web|distill|sync|link)\//,
  // Session start compares the agents' own memory files (native-sources.ts); importing them is later.
  /^src\/import\/(?!native-sources\.ts$)/,
];

test("the build succeeds with --splitting", () => {
  expect(built.success).toBe(true);
});

test("`coffer --version` loads cli.ts, package.json, the umask and the JIT switch: no framework, no node:fs user", () => {
  expect(loadedBy(["src/cli.ts"]).sort()).toEqual(["package.json", "src/cli.ts", "src/lib/jit.ts", "src/lib/umask.ts"]);
});

test("a hook process loads no CLI framework, MCP SDK, web UI or command code, for any host and event", () => {
  // What `coffer hook` imports on its way, for every event (entry.ts's own import()s) and every host.
  const hookPath = [
    "src/cli.ts",
    "src/hooks/entry.ts",
    "src/store/store.ts",
    "src/hooks/run.ts",
    "src/hooks/native.ts",
    "src/capture/background.ts",
    "src/capture/queue.ts",
    ...HOSTS.map((h) => `src/hosts/${h}/hook.ts`),
  ];
  const loaded = loadedBy(hookPath);
  expect(loaded).toContain("src/store/store.ts");
  expect(loaded.filter((m) => FORBIDDEN_IN_HOOK.some((re) => re.test(m)))).toEqual([]);
  // Each of the runtime's modules costs a process its load too (node:os 0.3 ms, node:util 0.65 ms):
  // the home directory comes from HOME, node:os only when nothing names it.
  const builtins = builtinsLoadedBy(hookPath);
  expect(builtins).toContain("fs");
  expect(builtins.filter((b) => ["os", "util", "child_process", "http", "net", "crypto"].includes(b))).toEqual([]);
});

test("a command that prints a list loads neither the MCP SDK nor the web UI", () => {
  const loaded = loadedBy(["src/cli.ts", "src/commands/_run.ts", "src/commands/list.ts"]);
  expect(loaded).toContain("src/commands/list.ts");
  expect(
    loaded.filter((m) => /@modelcontextprotocol|node_modules\/(ajv|zod)\/|^src\/(web|serve|mcp)\//.test(m)),
  ).toEqual([]);
});

test("list, show, status and remember load no transcript reader, distiller, importer or regex engine", () => {
  // Judging finished sessions (`list --unused`, `show` on a terminal) and related entries load on
  // demand: a piped `show` or a plain `list` pays for neither (issue 38).
  for (const command of ["list", "show", "status", "remember"]) {
    const loaded = loadedBy(["src/cli.ts", "src/commands/_run.ts", `src/commands/${command}.ts`]);
    expect(loaded).toContain(`src/commands/${command}.ts`);
    expect([
      command,
      ...loaded.filter((m) => /^src\/(transcripts|distill|import|capture)\/|node_modules\/re2js\//.test(m)),
    ]).toEqual([command]);
  }
});

test("status reads sync's state without loading node:os (the machine's name is for commits)", () => {
  // `coffer status` imports sync/status.ts on every run; node:os costs a process about 0.5 ms to load.
  const path = ["src/cli.ts", "src/commands/_run.ts", "src/commands/status.ts", "src/sync/status.ts"];
  expect(loadedBy(path)).toContain("src/sync/git.ts");
  expect(builtinsLoadedBy(path)).not.toContain("os");
});
