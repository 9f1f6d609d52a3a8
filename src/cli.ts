#!/usr/bin/env bun
/**
 * The single `coffer` entry point. Commands load lazily: starting one command never evaluates
 * another's modules. `coffer hook` skips the CLI framework entirely — it is on every agent turn.
 */
import pkg from "../package.json" with { type: "json" };
import { fullJit } from "./lib/jit";
import { privateUmask } from "./lib/umask";

/** The target this binary was built for (scripts/build.ts defines it), e.g. `linux-x64-musl`; `source` under `bun src/cli.ts`. */
declare const COFFER_BUILD_TARGET: string | undefined;
const BUILD_TARGET = typeof COFFER_BUILD_TARGET === "string" ? COFFER_BUILD_TARGET : "source";

type Loader = () => Promise<{ default: import("citty").CommandDef<any> }>;

/**
 * name -> one-line description + lazy loader. The description is what `coffer --help` lists.
 * `long`: a server or a batch job, which compiles its hot code as usual (lib/jit.ts).
 */
export const COMMANDS: Record<string, { description: string; load: Loader; hidden?: boolean; long?: boolean }> = {
  remember: {
    description: "Write a memory entry (project scope inside a repo, else global)",
    load: () => import("./commands/remember"),
  },
  recall: {
    description: "Search memory (ranked keyword search, or grep for literal/regex lines)",
    load: () => import("./commands/recall"),
  },
  list: { description: "List entries, newest first", load: () => import("./commands/list") },
  show: { description: "Print one entry", load: () => import("./commands/show") },
  forget: { description: "Forget entries (to the trash, kept 30 days)", load: () => import("./commands/forget") },
  trash: {
    description: "List forgotten entries (kept 30 days; `coffer restore <id>` brings one back)",
    load: () => import("./commands/trash"),
  },
  restore: { description: "Bring a forgotten entry back from the trash", load: () => import("./commands/restore") },
  promote: {
    description: "Move a personal entry into the team lane (the repository's .coffer/)",
    load: () => import("./commands/promote"),
  },
  edit: { description: "Edit an entry in $EDITOR", load: () => import("./commands/edit") },
  stale: {
    description: "Entries whose files, scripts, targets or dependencies are gone",
    load: () => import("./commands/stale"),
    long: true,
  },
  rules: {
    description: "Show, add or edit rules (delivered at every session start)",
    load: () => import("./commands/rules"),
  },
  handoff: { description: "Save where work stands on this project + branch", load: () => import("./commands/handoff") },
  resume: {
    description: "Print this branch's handoff, with a freshness note",
    load: () => import("./commands/resume"),
  },
  link: {
    description: "Install Coffer's hooks and MCP server into an agent's config",
    load: () => import("./commands/link"),
  },
  unlink: {
    description: "Remove Coffer's hooks and MCP server from an agent's config",
    load: () => import("./commands/unlink"),
  },
  hook: {
    description: "Hook entry point the agents call (reads the host's JSON on stdin, always exits 0)",
    load: () => import("./commands/hook"),
  },
  serve: {
    description: "Web UI + HTTP API + MCP + background worker; --stdio for MCP over stdio",
    load: () => import("./commands/serve"),
    long: true,
  },
  distill: {
    description: "Turn finished agent sessions into project knowledge",
    load: () => import("./commands/distill"),
    long: true,
  },
  observe: {
    description: "Drain the session-end queue into the inbox",
    load: () => import("./commands/observe"),
    long: true,
  },
  inbox: {
    description: "Review traces, contradictions, team proposals (list, show, approve, reject)",
    load: () => import("./commands/inbox"),
  },
  config: {
    description: "Read or change config.toml (get, set, unset, path)",
    load: () => import("./commands/config"),
  },
  "set-read": {
    description: "When hooks inject memory: startup, auto, always, manual, off",
    load: () => import("./commands/set-read"),
  },
  "set-proof": {
    description: "Append a one-line proof of what the hook loaded: off, compact",
    load: () => import("./commands/set-proof"),
  },
  doctor: {
    description: "Check links, binary paths, that the hooks fire, index health; print fixes",
    load: () => import("./commands/doctor"),
    long: true,
  },
  sync: {
    description: "Sync memory/ across machines with git (commit, pull --rebase, push)",
    load: () => import("./commands/sync"),
    long: true,
  },
  reindex: {
    description: "Rebuild the search index from memory/",
    load: () => import("./commands/reindex"),
    long: true,
  },
  enrich: {
    description: "Give entries without keywords a keywords: list from the configured model",
    load: () => import("./commands/enrich"),
    long: true,
  },
  scan: {
    description: "Find secrets already in memory/ (exit 1 when some remain); --fix redacts them",
    load: () => import("./commands/scan"),
    long: true,
  },
  status: { description: "Counts, sizes and last activity per scope", load: () => import("./commands/status") },
  stats: {
    description: "Tokens spent distilling and injected by hooks; entries added, delivered and used",
    load: () => import("./commands/stats"),
  },
  import: {
    description: "Bring memories in from claude-mem, engram, the agents' own files, or a Coffer export",
    load: () => import("./commands/import"),
    long: true,
  },
  export: {
    description: "Write every entry, rule and handoff to JSONL (lossless) or Markdown",
    load: () => import("./commands/export"),
    long: true,
  },
};

async function main(argv: string[]): Promise<void> {
  // Everything Coffer creates (memory/, state/, index.db, logs, git's files) is private to the user.
  privateUmask();
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version")) {
    // Answered before the CLI framework loads, and through console.log: the first use of
    // process.stdout builds Node's stream machinery, which alone costs about twice the runtime's start.
    console.log(`${pkg.version} (${BUILD_TARGET})`);
    return;
  }
  if (argv[0] === "hook" && !argv.includes("--help") && !argv.includes("-h")) {
    // Hot path: no citty, no consola; the hook module validates its own arguments. `coffer hook
    // --help` is ordinary CLI help (below), so the hook runtime never imports the commands.
    const { runHookCli } = await import("./hooks/entry");
    await runHookCli(argv.slice(1));
    return;
  }
  if (COMMANDS[argv[0] ?? ""]?.long) fullJit();
  const { runCli } = await import("./commands/_run");
  await runCli(argv, COMMANDS, `${pkg.version} (${BUILD_TARGET})`);
}

await main(process.argv.slice(2));
