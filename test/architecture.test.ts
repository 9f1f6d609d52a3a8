/**
 * The layers of src/, checked from the import statements alone (no binary, no execution):
 *
 *   lib  <-  (config, scrub, retrieval/analysis, retrieval/embed)  <-  store  <-  retrieval  <-  transcripts
 *        <-  inbox  <-  distill  <-  capture  <-  surfaces (commands, hooks, mcp, serve, web, cli.ts)
 *        (and sync, link, hosts, ... in between)
 *
 * - no cycle between the folders of src/ (a folder may import its own files freely); the two leaves
 *   of src/retrieval/ (analysis/: how text is cut into terms; embed/: the sentence model) count as
 *   folders of their own, below the store: the store indexes text the way retrieval reads it;
 * - src/store/ imports only src/lib/, src/config/, src/scrub/ and those two leaves; they, src/config/ and
 *   src/scrub/ only src/lib/; src/lib/ imports nothing else of src/;
 * - the store is used from outside only through its face, src/store/index.ts (a lazy `import()` may
 *   name one of its files, so a process loads only that);
 * - a surface is never imported by a core folder;
 * - SQL lives in src/store/ only (no prepare/query/exec/run with SQL text, no PRAGMA, no SELECT ... FROM,
 *   no bun:sqlite outside it).
 * Type-only imports count: they are dependencies too. Every failure lists file:line -> target.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "..", "src");

/** Folders (first path segment under src/) that face the user or an agent. Root files such as cli.ts count too. */
const SURFACES = new Set(["commands", "hooks", "mcp", "serve", "web", "(root)"]);

type Import = { from: string; line: number; spec: string; target?: string };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [p] : [];
  });
}

/** Blank out comments but keep line numbers (and leave strings alone: "//" in a URL is not a comment). */
function stripComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      // '...' and "..." end at the line's end at the latest (a quote inside a regex literal stays harmless).
      while (j < text.length && text[j] !== c && (c === "`" || text[j] !== "\n")) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length;

function resolveSpec(file: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(dirname(file), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return base;
}

function importsOf(file: string, code: string): Import[] {
  const found: Import[] = [];
  const patterns = [
    /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?[^;]*?\sfrom\s*["']([^"']+)["']/g, // import x from / export x from
    /(?:^|[\s;}])import\s*["']([^"']+)["']/g, // import "side-effect"
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, // import("lazy")
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns)
    for (const m of code.matchAll(re))
      found.push({ from: file, line: lineAt(code, m.index!), spec: m[1]!, target: resolveSpec(file, m[1]!) });
  return found;
}

/** Retrieval's leaves, below the store (see the header). */
const LEAVES = new Set(["retrieval/analysis", "retrieval/embed"]);

/**
 * "store" for src/store/x.ts, "hosts" for src/hosts/claude/hook.ts, "(root)" for src/cli.ts,
 * "retrieval/embed" for src/retrieval/embed/embed.ts.
 */
function folderOf(file: string): string {
  const rel = relative(SRC, file).split("/");
  if (rel.length > 2 && LEAVES.has(`${rel[0]}/${rel[1]}`)) return `${rel[0]}/${rel[1]}`;
  return rel.length > 1 ? rel[0]! : "(root)";
}

const rel = (file: string) => relative(resolve(SRC, ".."), file);
const show = (i: Import) => `${rel(i.from)}:${i.line} -> ${i.target ? rel(i.target) : i.spec}`;

const files = sourceFiles(SRC);
const code = new Map(files.map((f) => [f, stripComments(readFileSync(f, "utf8"))]));
const imports = files.flatMap((f) => importsOf(f, code.get(f)!));
/** Imports of another src/ folder. */
const crossFolder = imports.filter((i) => i.target?.startsWith(`${SRC}/`) && folderOf(i.target) !== folderOf(i.from));

describe("layers of src/", () => {
  test("the scan sees the tree (sanity: files, imports, and a known edge)", () => {
    expect(files.length).toBeGreaterThan(50);
    expect(crossFolder.some((i) => folderOf(i.from) === "store" && folderOf(i.target!) === "lib")).toBe(true);
    expect(imports.some((i) => i.spec === "../capture/queue" && rel(i.from) === "src/hooks/entry.ts")).toBe(true);
  });

  test("no cycle between folders", () => {
    const edges = new Map<string, Map<string, Import>>(); // folder -> folder -> one example import
    for (const i of crossFolder) {
      const a = folderOf(i.from);
      const b = folderOf(i.target!);
      if (!edges.has(a)) edges.set(a, new Map());
      if (!edges.get(a)!.has(b)) edges.get(a)!.set(b, i);
    }
    // Tarjan's strongly connected components: every component with more than one folder is a cycle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const cycles: string[][] = [];
    let n = 0;
    const visit = (v: string) => {
      index.set(v, n);
      low.set(v, n++);
      stack.push(v);
      onStack.add(v);
      for (const w of edges.get(v)?.keys() ?? []) {
        if (!index.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
      if (low.get(v) === index.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) cycles.push(comp.sort());
      }
    };
    for (const f of new Set(files.map(folderOf))) if (!index.has(f)) visit(f);
    const report = cycles.map((comp) => {
      const inside = comp.flatMap((a) =>
        [...(edges.get(a) ?? [])].filter(([b]) => comp.includes(b)).map(([b, i]) => `  ${a} -> ${b}: ${show(i)}`),
      );
      return `cycle between ${comp.join(", ")}:\n${inside.join("\n")}`;
    });
    expect(report).toEqual([]);
  });

  test("src/store/ imports only src/lib/, src/scrub/ and retrieval's leaves (and packages)", () => {
    // the scrubber sits beside lib: every write in the store passes through it (secrets never land in memory);
    // the sentence model too (every write stores the entry's vector), and the analysis (the index's terms)
    const bad = crossFolder
      .filter(
        (i) => folderOf(i.from) === "store" && !["lib", "config", "scrub", ...LEAVES].includes(folderOf(i.target!)),
      )
      .map(show);
    expect(bad).toEqual([]);
  });

  test("src/scrub/, src/config/ and retrieval's leaves import only src/lib/ (and packages)", () => {
    const low = new Set(["scrub", "config", ...LEAVES]);
    expect(crossFolder.filter((i) => low.has(folderOf(i.from)) && folderOf(i.target!) !== "lib").map(show)).toEqual([]);
  });

  test("outside src/store/, the store is imported only through its face (src/store/index.ts), or lazily by file", () => {
    const face = join(SRC, "store", "index.ts");
    const bad = crossFolder
      .filter((i) => folderOf(i.target!) === "store" && i.target !== face)
      .filter(
        (i) =>
          !/^\s*(?:const|let|\[|\(|\{|await|return)?[^\n]*\bimport\s*\(/.test(
            code.get(i.from)!.split("\n")[i.line - 1] ?? "",
          ),
      )
      .map(show);
    expect(bad).toEqual([]);
  });

  test("the store's face names what it offers (no `export *`: knip flags a name nobody outside uses)", () => {
    const face = code.get(join(SRC, "store", "index.ts"))!;
    expect(face).not.toMatch(/export \*/);
    const from = [...face.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(from.length).toBeGreaterThan(10);
    expect(from.filter((f) => !f.startsWith("./"))).toEqual([]);
  });

  test("src/lib/ imports nothing of src/ outside lib", () => {
    expect(crossFolder.filter((i) => folderOf(i.from) === "lib").map(show)).toEqual([]);
  });

  test("surfaces (commands, hooks, mcp, serve, web, cli.ts) are never imported by core folders", () => {
    const bad = crossFolder
      .filter((i) => !SURFACES.has(folderOf(i.from)) && SURFACES.has(folderOf(i.target!)))
      .map(show);
    expect(bad).toEqual([]);
  });

  test("no SQL outside src/store/", () => {
    const SQL = [
      /\.(?:prepare|query|exec|run)\(\s*["'`]/g, // a database call with SQL text
      /\bPRAGMA\b/g,
      /\bSELECT\b[^;"'`]*?\bFROM\b/g,
      /\b(?:INSERT\s+INTO|DELETE\s+FROM|CREATE\s+(?:VIRTUAL\s+)?(?:TABLE|INDEX))\b/g,
      /["']bun:sqlite["']/g,
    ];
    const bad: string[] = [];
    for (const f of files) {
      if (folderOf(f) === "store") continue;
      const text = code.get(f)!;
      for (const re of SQL)
        for (const m of text.matchAll(re))
          bad.push(`${rel(f)}:${lineAt(text, m.index!)}: ${m[0].replace(/\s+/g, " ").trim()}`);
    }
    expect([...new Set(bad)].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))).toEqual([]);
  });

  test("no two files import each other (type-only and lazy imports count)", () => {
    const edges = new Set(imports.filter((i) => i.target).map((i) => `${i.from}\0${i.target}`));
    const bad = imports
      .filter((i) => i.target && i.from < i.target && edges.has(`${i.target}\0${i.from}`))
      .map((i) => `${rel(i.from)} <-> ${rel(i.target!)}`);
    expect([...new Set(bad)]).toEqual([]);
  });

  test("no command imports another command (each is a chunk of its own; shared code lives in commands/_*.ts)", () => {
    const isCommand = (f: string) => folderOf(f) === "commands" && !relative(join(SRC, "commands"), f).startsWith("_");
    const bad = imports.filter((i) => i.target && isCommand(i.target) && folderOf(i.from) === "commands").map(show);
    expect(bad).toEqual([]);
  });

  test("commands and the hook write through lib/output.ts, never Node's stdout/stderr streams", () => {
    // The first use of process.stdout or process.stderr builds Node's stream machinery: about as
    // much as the runtime's whole start in a compiled binary (issue 38). The servers (serve, mcp,
    // web) run for hours and keep their streams: a closed terminal must not end them.
    const bad: string[] = [];
    for (const f of files) {
      if (["serve", "mcp", "web"].includes(folderOf(f)) || rel(f) === "src/lib/output.ts") continue;
      const text = code.get(f)!;
      for (const m of text.matchAll(/\bprocess\.(?:stdout|stderr)\b/g)) bad.push(`${rel(f)}:${lineAt(text, m.index!)}`);
    }
    expect(bad).toEqual([]);
  });
});
