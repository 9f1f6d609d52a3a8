/**
 * Builds the documentation corpus scripts/embed/ refines the sentence model on, from the
 * repositories in sources.ts:
 *
 *   bun scripts/vectors/corpus.ts [--data DIR] [--fetched-only] [--sources-out FILE]
 *
 * Each repository is read from a bare git directory (DIR/repos/<owner>+<name>.git, or
 * $VECTORS_MIRROR/<owner>+<name>/repo where one was fetched before); a missing one is cloned
 * (`git clone --bare --depth 1 --filter=blob:limit=4m`). Its licence file is read and the
 * repository skipped unless the licence is one of ALLOWED. Documentation files (Markdown, MDX,
 * reStructuredText, AsciiDoc, Django-style .txt under a docs folder, HTML) become lowercase lines
 * of words: markup, URLs and front matter dropped, code identifiers split (camelCase,
 * snake_case), translations skipped, paragraphs seen before (versioned copies) dropped.
 * Writes DIR/corpus.txt and scripts/vectors/SOURCES.md, or FILE (repository, commit, licence, words).
 * The corpus stays out of git (DIR defaults to ../vectors-data beside the checkout).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDir as dataFolder, option } from "./common";
import { ALLOWED, SOURCES, type Source } from "./sources";

const dataDir = dataFolder();
const mirror = process.env.VECTORS_MIRROR ?? "/work/.mirror";
mkdirSync(join(dataDir, "repos"), { recursive: true });
mkdirSync(join(dataDir, "parts"), { recursive: true });

function git(gitDir: string, ...cmd: string[]): string {
  const r = Bun.spawnSync(["git", `--git-dir=${gitDir}`, ...cmd], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${cmd.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

function gitDirOf(repo: string): string {
  const slug = repo.replace("/", "+");
  const fetched = join(mirror, slug, "repo");
  if (existsSync(fetched)) return fetched;
  const own = join(dataDir, "repos", `${slug}.git`);
  if (!existsSync(own)) {
    const r = Bun.spawnSync(
      ["git", "clone", "--bare", "--depth", "1", "--filter=blob:limit=4m", `https://github.com/${repo}.git`, own],
      { stdout: "inherit", stderr: "inherit" },
    );
    if (r.exitCode !== 0) throw new Error(`could not clone ${repo}`);
  }
  return own;
}

/** The licence a licence file's text states, as an SPDX-like name, or undefined. */
function licenceOf(text: string): string | undefined {
  const t = text.replace(/\s+/g, " ");
  if (/Attribution 4\.0 International/i.test(t) && !/ShareAlike|NonCommercial/i.test(t.slice(0, 400)))
    return "CC-BY-4.0";
  if (/Attribution 3\.0/i.test(t) && !/ShareAlike|NonCommercial/i.test(t.slice(0, 400))) return "CC-BY-3.0";
  if (
    /Creative Commons Attribution 4\.0|CC[- ]BY[- ]4\.0|creativecommons\.org\/licenses\/by\/4\.0/i.test(t) &&
    !/ShareAlike|NonCommercial|by-sa|by-nc/i.test(t)
  )
    return "CC-BY-4.0";
  if (/CC0 1\.0|Creative Commons Zero|To the extent possible under law/i.test(t)) return "CC0";
  if (/Apache License,? Version 2\.0/i.test(t)) return "Apache-2.0";
  if (/Permission is hereby granted, free of charge/i.test(t)) return "MIT";
  if (/Redistribution and use in source and binary forms/i.test(t)) return "BSD";
  if (/PYTHON SOFTWARE FOUNDATION LICENSE/i.test(t)) return "PSF";
  if (/PostgreSQL/i.test(t) && /Permission to use, copy, modify, and distribute/i.test(t)) return "PostgreSQL";
  if (/Permission to use, copy, modify, and\/or distribute/i.test(t)) return "ISC";
  return undefined;
}

/** The repository's licences, from its top-level licence files (documentation licence first). */
function licences(gitDir: string): string[] {
  const names = git(gitDir, "ls-tree", "--name-only", "HEAD")
    .split("\n")
    .filter((n) => /^(licen[cs]e|copying)/i.test(n))
    .sort((a, b) => Number(/doc/i.test(b)) - Number(/doc/i.test(a)));
  const found: string[] = [];
  for (const n of names) {
    let text: string;
    try {
      text = git(gitDir, "show", `HEAD:${n}`);
    } catch {
      continue; // a folder
    }
    const l = licenceOf(text);
    if (l && !found.includes(l)) found.push(l);
  }
  return found;
}

const DOC_EXT = /\.(md|mdx|markdown|rst|adoc|asciidoc|html?)$/i;
/** Path segments of translations, generated or vendored trees, and changelogs. */
const SKIP_SEGMENT =
  /^(ar|bn|de|es|fa|fr|he|hi|id|it|ja|ja-jp|ko|ko-kr|nl|pl|pt|pt-br|pt-pt|ru|tr|uk|vi|zh|zh-cn|zh-tw|zh-hans|zh-hant|cn|i18n|l10n|locales?|translations?|node_modules|vendor|third_party|thirdparty|3rdparty|fixtures?|testdata|test-data|snapshots|__snapshots__|\.github|changelog|changelogs|changes|release-notes|releases?|news|whatsnew|includes-generated)$/i;
const SKIP_FILE =
  /^(changelog|changes|history|news|authors|contributors|code_of_conduct|security|license|licen[cs]e.*)\b/i;

function isDoc(path: string, source: Source): boolean {
  if (source.docs && !source.docs.some((p) => path.startsWith(p))) return false;
  const segments = path.split("/");
  const file = segments.pop()!;
  if (segments.some((s) => SKIP_SEGMENT.test(s))) return false;
  if (SKIP_FILE.test(file)) return false;
  if (DOC_EXT.test(file)) return true;
  // Django-style documentation in plain text, only inside a documentation folder.
  return /\.txt$/i.test(file) && source.docs !== undefined;
}

/** Reads many blobs at once through `git cat-file --batch`. */
function readBlobs(gitDir: string, shas: string[]): string[] {
  const r = Bun.spawnSync(["git", `--git-dir=${gitDir}`, "cat-file", "--batch"], {
    stdin: new TextEncoder().encode(`${shas.join("\n")}\n`),
    stdout: "pipe",
    stderr: "pipe",
  });
  const buf = r.stdout;
  const out: string[] = [];
  let pos = 0;
  const decoder = new TextDecoder();
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    const header = decoder.decode(buf.subarray(pos, nl)).split(" ");
    const size = Number(header[2]);
    if (header[1] !== "blob" || !Number.isFinite(size)) {
      out.push("");
      pos = nl + 1;
      continue;
    }
    out.push(decoder.decode(buf.subarray(nl + 1, nl + 1 + size)));
    pos = nl + 1 + size + 1;
  }
  return out;
}

/** camelCase, PascalCase and snake_case identifiers as their words; other words lowercased. */
function splitIdentifier(token: string, code: boolean): string {
  let t = token.replace(/_+/g, " ");
  // getServerSideProps -> get Server Side Props; in code also HttpClient -> Http Client.
  if (code || /^[a-z]/.test(t)) t = t.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
  return t.toLowerCase();
}

/** A line of words from text: letters and digits runs (as the prompt tokenizer reads them). */
function words(text: string, code: boolean): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const raw = m[0];
    if (!/^[a-zA-Z0-9_]+$/.test(raw)) continue; // non-Latin scripts: another language
    for (const w of splitIdentifier(raw, code).split(" ")) {
      if (!w || /^\d+$/.test(w) || w.length > 30) continue;
      if (/\d/.test(w) && w.replace(/\D/g, "").length > 4) continue; // hashes, ids
      out.push(w);
    }
  }
  return out;
}

/** Documentation markup to paragraphs of plain text, code blocks marked for identifier splitting. */
function paragraphs(doc: string, html: boolean): { text: string; code: boolean }[] {
  let s = doc.replace(/\r\n?/g, "\n");
  s = s.replace(/^\uFEFF/, "");
  // Front matter: keep title and description values only.
  s = s.replace(/^---\n([\s\S]*?)\n---\n/, (_, fm: string) =>
    fm
      .split("\n")
      .filter((l) => /^(title|description|summary):/i.test(l))
      .map((l) => `${l.replace(/^[a-z]+:\s*/i, "")}\n\n`)
      .join(""),
  );
  if (html) {
    s = s.replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<pre[^>]*>([\s\S]*?)<\/pre>/gi, "\n```\n$1\n```\n");
    s = s.replace(/<\/(p|div|li|h\d|tr|table|ul|ol|section)>/gi, "\n\n");
  }
  s = s
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/\{%[\s\S]*?%\}|\{\{[\s\S]*?\}\}/g, " ") // liquid / jinja / hugo shortcodes
    .replace(/^(import|export) .*$/gm, "") // MDX
    .replace(/\]\([^)]*\)/g, "]") // link targets
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/<\/?[a-zA-Z][^>\n]*>/g, " ") // tags
    .replace(/&[a-z]+;|&#\d+;/g, " ")
    .replace(/^\s*\.\. [a-z-]+::.*$/gm, "") // rst directives
    .replace(/^\s*:[a-z-]+:.*$/gm, "") // rst/directive options
    .replace(/:[a-z]+:`([^`<]*)(<[^>]*>)?`/g, "$1"); // rst roles
  const out: { text: string; code: boolean }[] = [];
  const lines = s.split("\n");
  let buf: string[] = [];
  let fence: string | undefined;
  const flush = (code: boolean) => {
    const text = buf.join(" ").trim();
    if (text) out.push({ text, code });
    buf = [];
  };
  for (const line of lines) {
    const f = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (f && (fence === undefined || f.startsWith(fence))) {
      flush(fence !== undefined);
      fence = fence === undefined ? f : undefined;
      continue;
    }
    if (fence !== undefined) {
      buf.push(line);
      continue;
    }
    if (!line.trim()) flush(false);
    else buf.push(line);
  }
  flush(fence !== undefined);
  return out;
}

type Record = {
  repo: string;
  stack: string;
  commit: string;
  licence: string;
  files: number;
  words: number;
  note?: string;
};
const records: Record[] = [];
const seen = new Set<number>();
const corpusPath = join(dataDir, "corpus.txt");
const writer = Bun.file(corpusPath).writer();
let total = 0;
const started = Date.now();

// --fetched-only: the repositories already fetched (under $VECTORS_MIRROR), none cloned; scripts/embed/ uses it.
const fetchedOnly = process.argv.includes("--fetched-only");
for (const source of SOURCES) {
  if (fetchedOnly && !existsSync(join(mirror, source.repo.replace("/", "+"), "repo"))) continue;
  const gitDir = gitDirOf(source.repo);
  const commit = git(gitDir, "rev-parse", "HEAD").trim();
  const found = source.licence ? [source.licence] : licences(gitDir);
  const licence = found.every((l) => ALLOWED.includes(l)) && found.length ? found.join(" + ") : undefined;
  if (!licence) {
    records.push({
      repo: source.repo,
      stack: source.stack,
      commit,
      licence: found.join(", ") || "unknown",
      files: 0,
      words: 0,
      note: "skipped: licence",
    });
    console.log(`${source.repo}: skipped (licence ${found.join(", ") || "unknown"})`);
    continue;
  }
  // Each repository's lines are kept per commit (DIR/parts/), so a rerun reads only what changed.
  const part = join(dataDir, "parts", `${source.repo.replace("/", "+")}-${commit.slice(0, 12)}.txt`);
  let fileCount = 0;
  if (!existsSync(part)) {
    const files = git(gitDir, "ls-tree", "-r", "-l", "HEAD")
      .split("\n")
      .map((l) => /^\d+ blob ([0-9a-f]+)\s+(\d+)\t(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null && Number(m[2]) < 2_000_000 && isDoc(m[3]!, source));
    const lines: string[] = [`#files ${files.length}`];
    for (let i = 0; i < files.length; i += 2000) {
      const chunk = files.slice(i, i + 2000);
      const blobs = readBlobs(
        gitDir,
        chunk.map((m) => m[1]!),
      );
      blobs.forEach((blob, k) => {
        for (const p of paragraphs(blob, /\.html?$/i.test(chunk[k]![3]!))) {
          const ws = words(p.text, p.code);
          if (ws.length >= 3) lines.push(ws.join(" "));
        }
      });
    }
    writeFileSync(part, `${lines.join("\n")}\n`);
  }
  let count = 0;
  const out: string[] = [];
  for (const line of readFileSync(part, "utf8").split("\n")) {
    if (!line) continue;
    if (line.startsWith("#files ")) {
      fileCount = Number(line.slice(7));
      continue;
    }
    // A paragraph seen before (versioned or copied docs) teaches nothing new.
    const key = Number((Bun.hash.wyhash(line) as bigint) & 0xffffffffffffn);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(line);
    count += line.split(" ").length;
  }
  if (out.length) writer.write(`${out.join("\n")}\n`);
  total += count;
  records.push({
    repo: source.repo,
    stack: source.stack,
    commit,
    licence: source.licence ? `${licence}, stated in each document` : licence,
    files: fileCount,
    words: count,
  });
  console.log(`${source.repo}: ${fileCount} files, ${count.toLocaleString("en")} words (${licence})`);
}
await writer.end();

const used = records.filter((r) => !r.note);
const md = [
  "# Sources of the documentation corpus",
  "",
  "Generated by `bun scripts/vectors/corpus.ts`; do not edit. Public documentation repositories, each",
  "read at the commit below; the licence is what its top-level licence files state (documentation and",
  "code licences joined by +). Paragraphs seen in an earlier source are counted once. The corpus",
  "itself is not kept in git.",
  "",
  `Total: ${total.toLocaleString("en")} words from ${used.length} repositories.`,
  "",
  "| repository | stack | commit | licence | files | words |",
  "| --- | --- | --- | --- | ---: | ---: |",
  ...records.map(
    (r) =>
      `| [${r.repo}](https://github.com/${r.repo}) | ${r.stack} | \`${r.commit.slice(0, 12)}\` | ${r.licence}${r.note ? ` (${r.note})` : ""} | ${r.files} | ${r.words.toLocaleString("en")} |`,
  ),
  "",
];
writeFileSync(option("--sources-out") ?? join(import.meta.dir, "SOURCES.md"), md.join("\n"));
console.log(`${total.toLocaleString("en")} words in ${corpusPath} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
