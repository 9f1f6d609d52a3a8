import { defineCommand } from "citty";
import { describeSweep, HANDOFF_ENV, holdSweep } from "../capture/background";
import { selectSweep, sweepPolicy } from "../capture/sweep";
import { loadConfig } from "../config/config";
import { distillBatch } from "../distill/batch";
import { budgetStatus } from "../distill/budget";
import { listSessionInfos } from "../distill/catalog";
import { backoffMessage, isDistilled, readLedger, sweepBackoff } from "../distill/ledger";
import { CONFIGURE_MODEL_HINT, resolveModel } from "../distill/model";
import { type DistillResult, prepareSession } from "../distill/session";
import { CofferError, usageError } from "../lib/errors";
import { writeErr, writeOut } from "../lib/output";
import { paths } from "../lib/paths";
import { progressBar } from "../lib/progress";
import { appendLogLine } from "../lib/rolling-log";
import { listSessions, resolveSession, type SessionFile, unreadableSources } from "../transcripts/discovery";
import { isTranscriptHost, TRANSCRIPT_HOSTS, type TranscriptHost } from "../transcripts/types";
import { takesWords } from "./_args";
import { withExamples } from "./_run";
import { consola, entryLine, jsonArg, parseLimit, parseSince, printJson, short } from "./_shared";

const agentArg = {
  agent: {
    type: "string",
    description: `Only this agent's sessions: ${TRANSCRIPT_HOSTS.join(", ")}`,
    valueHint: TRANSCRIPT_HOSTS.join("|"),
  },
} as const;

function hostsFrom(agent: string | undefined): readonly TranscriptHost[] {
  if (!agent) return TRANSCRIPT_HOSTS;
  if (!isTranscriptHost(agent))
    throw usageError(`--agent ${agent}: no transcripts to read for it (allowed: ${TRANSCRIPT_HOSTS.join(", ")})`);
  return [agent];
}

const shortId = (id: string) => (id.length > 13 ? id.slice(0, 13) : id);

const list = withExamples(
  defineCommand({
    meta: { name: "list", description: "Sessions on disk: project, messages, last activity, distilled or not" },
    args: { ...agentArg, limit: { type: "string", description: "At most this many (default 20)" }, ...jsonArg },
    run({ args }) {
      const hosts = hostsFrom(args.agent);
      const limit = parseLimit(args.limit, 20, 10000);
      const ledger = readLedger();
      const rows = listSessionInfos(listSessions(hosts), ledger, limit);
      // A session database that is busy or of another schema: its sessions are missing, and why.
      const unreadable = unreadableSources(hosts);
      if (args.json) return printJson({ sessions: rows, ...(unreadable.length ? { unreadable } : {}) });
      for (const u of unreadable) consola.warn(`${u.host}: ${u.reason}`);
      if (!rows.length) {
        consola.info(
          `No ${hosts.length === 1 ? `${hosts[0]} ` : ""}sessions found (looked in ~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp)`,
        );
        return;
      }
      for (const r of rows) {
        writeOut(
          `${r.status.padEnd(7)}  ${r.host.padEnd(6)}  ${shortId(r.session_id).padEnd(13)}  ${(r.project ?? "-").slice(0, 20).padEnd(20)}  ${String(r.messages).padStart(4)} msgs  ${r.last_activity ?? ""}  ${short(r.title, 50)}\n`,
        );
        if (r.skipped) writeOut(`         ${r.skipped.why}\n`);
      }
    },
  }),
  ["coffer distill list", "coffer distill list --agent codex --limit 50", "coffer distill list --json"],
);

function fileFor(arg: string, agent: string | undefined): SessionFile {
  const hosts = hostsFrom(agent);
  return resolveSession(arg, hosts);
}

const show = withExamples(
  defineCommand({
    meta: {
      name: "show",
      description: "Print a session exactly as the model would receive it (cleaned, scrubbed, budgeted)",
    },
    args: {
      session: { type: "positional", description: "Session id (or prefix) or transcript path", required: true },
      ...agentArg,
      ...jsonArg,
    },
    run({ args }) {
      const config = loadConfig();
      const p = prepareSession(fileFor(args.session, args.agent), config);
      if (args.json) {
        return printJson({
          host: p.file.host,
          session: p.file.session_id,
          title: p.parsed.title,
          project: p.project?.label ?? null,
          turns: p.conversation.turns,
          omitted: p.conversation.omitted,
          redactions: p.conversation.redactions,
          chars: p.text.length,
          text: p.text,
        });
      }
      writeOut(p.text);
    },
  }),
  [
    "coffer distill show 7c1f9a2e",
    "coffer distill show ~/.codex/sessions/2026/11/21/rollout-2026-11-21T14-00-00-01a2….jsonl",
    "coffer distill show 7c1f --json",
  ],
);

function report(r: DistillResult): void {
  const who = `${r.host} ${shortId(r.session)}${r.project ? ` (${r.project})` : ""}`;
  switch (r.outcome) {
    case "distilled":
      consola.success(`${who}: ${r.message}`);
      for (const e of r.entries) writeOut(`    ${entryLine(e)}\n`);
      break;
    case "failed":
      consola.error(`${who}: ${r.message}`);
      break;
    case "over_budget":
      consola.warn(`${who}: ${r.message}`);
      break;
    default:
      consola.info(`${who}: ${r.message}`);
  }
}

async function distillAll(
  files: SessionFile[],
  opts: {
    json?: boolean;
    dryRun?: boolean;
    force?: boolean;
    via: string;
    extra?: Record<string, unknown>;
    /** Filled with each session's result as it comes (what `distill sweep` records for doctor). */
    results?: DistillResult[];
  },
): Promise<void> {
  const config = loadConfig();
  const choice = resolveModel(config);
  if (!opts.dryRun && !choice.settings) {
    // Agents are linked but their CLIs are gone: linking another would not help, installing would.
    const install = choice.missingClis?.length && opts.via === "run" ? choice.missingClis : undefined;
    if (install) {
      const names = install.map((b) => `\`${b}\``).join(" or ");
      const message = `no model: the linked agents' CLIs were not found (${names}); nothing distilled, nothing sent`;
      const hint = `Install ${names} (or put it on PATH), or configure a model: coffer config set model.provider openai (see coffer distill run --help).`;
      if (opts.json) {
        printJson({ ...opts.extra, results: [], outcome: "no_model", message, hint, install });
        process.exitCode = 1;
        return;
      }
      throw new CofferError(message, 1, hint);
    }
    if (opts.json)
      return printJson({
        ...opts.extra,
        results: [],
        outcome: "no_model",
        message: `no model configured or found: ${choice.why}`,
        hint: CONFIGURE_MODEL_HINT,
      });
    consola.warn(
      `${choice.source === "off" ? "Distillation is off" : "No model configured or found"}: nothing distilled, nothing sent (${files.length} ${files.length === 1 ? "session" : "sessions"} waiting): ${choice.why}.`,
    );
    if (choice.source !== "off") writeErr(`${CONFIGURE_MODEL_HINT}\n`);
    return;
  }
  const ledger = readLedger();
  // After the model failed in a row (logged out, rate limited, not installed), the sweep waits.
  const backoff = opts.via === "sweep" && !opts.dryRun ? sweepBackoff(ledger) : undefined;
  if (backoff) {
    const message = backoffMessage(backoff);
    if (opts.json)
      return printJson({ ...opts.extra, results: [], outcome: "backoff", message, backoff, waiting: files.length });
    consola.warn(`${message}. \`coffer distill run <session>\` tries now.`);
    return;
  }
  const bar = files.length > 1 ? progressBar("distilling", files.length) : undefined;
  const { results, stopped, waiting } = await distillBatch(files, {
    config,
    ledger,
    dryRun: opts.dryRun,
    force: opts.force,
    via: opts.via,
    results: opts.results,
    onResult: (_, done) => bar?.tick(done),
  });
  bar?.done();
  const overBudget = stopped === "over_budget";
  const modelDown = stopped === "model_down";
  if (opts.json)
    printJson({
      ...opts.extra,
      results,
      ...(overBudget ? { budget: budgetStatus(config), waiting } : {}),
      ...(modelDown && waiting ? { waiting } : {}),
    });
  else {
    if (!results.length) consola.info("No sessions to distill.");
    results.forEach(report);
    if (overBudget)
      consola.warn(
        `Stopped at the daily token budget: ${waiting + 1} ${waiting ? "sessions wait" : "session waits"} for tomorrow (coffer status shows the budget).`,
      );
    if (modelDown && waiting)
      consola.warn(
        `Stopped: the model failed; ${waiting} more ${waiting === 1 ? "session was" : "sessions were"} not tried.`,
      );
  }
  // Named sessions not distilled because of the budget: the user asked for them, say it in the exit code.
  if (overBudget && opts.via === "run")
    throw new CofferError(
      "the daily token budget stopped the run",
      1,
      "Run again with --force to distill now anyway, or raise distill.daily_token_budget.",
    );
  const failed = results.filter((r) => r.outcome === "failed").length;
  if (failed)
    throw new CofferError(
      `${failed} of ${results.length} ${results.length === 1 ? "session" : "sessions"} failed`,
      1,
      "They are retried by the next `coffer distill sweep` (or run them again).",
    );
}

const run = withExamples(
  // Several sessions may be named: every remaining word is one.
  takesWords(
    defineCommand({
      meta: { name: "run", description: "Distill sessions into project entries (one model call per session)" },
      args: {
        sessions: {
          type: "positional",
          description: "Session ids or transcript paths (default: recent sessions)",
          required: false,
        },
        ...agentArg,
        since: {
          type: "string",
          description: "Without sessions: those active within this long (default: distill.recency_days), e.g. 7d, 12h",
        },
        pending: { type: "boolean", description: "Only sessions not distilled yet" },
        "dry-run": { type: "boolean", description: "Say what would be sent; send and write nothing" },
        force: {
          type: "boolean",
          description: "Distill even sessions the ledger marks as done, and even over the daily token budget",
        },
        ...jsonArg,
      },
      async run({ args }) {
        const hosts = hostsFrom(args.agent);
        const named = (args._ as string[]).filter(Boolean);
        let files: SessionFile[];
        if (named.length) files = named.map((s) => fileFor(s, args.agent));
        else {
          const config = loadConfig();
          const sinceMs = args.since ? parseSince(args.since) : config["distill.recency_days"] * 86_400_000;
          files = listSessions(hosts, Date.now() - sinceMs).reverse(); // oldest first
        }
        if (args.pending) {
          const ledger = readLedger();
          files = files.filter((f) => !isDistilled(ledger, f));
        }
        await distillAll(files, { json: args.json, dryRun: args["dry-run"], force: args.force, via: "run" });
      },
    }),
  ),
  [
    "coffer distill run 7c1f9a2e",
    "coffer distill run --agent codex --since 2d --pending",
    "coffer distill run --dry-run",
    "coffer distill run ~/.claude/projects/-home-me-shop/7c1f9a2e-….jsonl --force",
  ],
);

/**
 * `coffer distill sweep --background`, which a session-start hook starts detached: one capture pass
 * (as `coffer serve`'s worker runs it) under the sweep lock the hook handed over, its outcome in
 * `state/sweep.json` and one line in `state/sweep.log`. Prints nothing and exits 0: nobody reads it.
 */
async function backgroundSweep(): Promise<void> {
  const { sweepPass, sweepResult } = await import("../capture/pass");
  const handoff = Number(process.env[HANDOFF_ENV]) || undefined;
  delete process.env[HANDOFF_ENV]; // the hook's word to this sweep, for no process it starts
  const log = (message: string) => appendLogLine(paths.sweepLog(), message);
  try {
    const outcome = await sweepPass(handoff ? "session-start" : "manual", { handoff });
    if ("busy" in outcome) log(`another sweep is running${outcome.busy ? ` (pid ${outcome.busy})` : ""}: nothing done`);
    else if ("report" in outcome) log(`sweep done: ${describeSweep(sweepResult(outcome.report))}`);
  } catch (err) {
    log(`sweep failed: ${(err as Error)?.stack ?? String(err)}`);
  }
}

const sweep = withExamples(
  defineCommand({
    meta: {
      name: "sweep",
      description:
        "Harvest the agents' own memories that changed, then distill idle sessions: idle >= 15 min, within 7 days, not done, at most 20, oldest first, within the daily token budget",
    },
    args: {
      ...agentArg,
      "dry-run": { type: "boolean", description: "List what the sweep would pick; send nothing" },
      background: {
        type: "boolean",
        description:
          "What a session-start hook starts: also drain the session-end queue, print nothing, log to state/sweep.log",
      },
      ...jsonArg,
    },
    async run({ args }) {
      if (args.background) return await backgroundSweep();
      const config = loadConfig();
      const picked = selectSweep(sweepPolicy(config), { hosts: hostsFrom(args.agent) });
      if (args["dry-run"]) {
        if (args.json)
          return printJson({
            sessions: picked.map((f) => ({
              host: f.host,
              session_id: f.session_id,
              path: f.path,
              last_activity: new Date(f.mtimeMs).toISOString(),
            })),
          });
        if (!picked.length) consola.info("The sweep would pick nothing now.");
        for (const f of picked)
          writeOut(`${f.host.padEnd(6)}  ${f.session_id}  ${new Date(f.mtimeMs).toISOString()}\n`);
        return;
      }
      // One sweep at a time: a background sweep or `coffer serve`'s may be distilling these sessions.
      const hold = holdSweep("manual");
      if ("busy" in hold) {
        const message = `Another sweep is running${hold.busy ? ` (pid ${hold.busy})` : ""}: it distills these sessions; \`coffer doctor\` shows what it did once it is done.`;
        if (args.json) return printJson({ results: [], outcome: "busy", message });
        consola.info(message);
        return;
      }
      const held = "release" in hold ? hold : undefined;
      const model = resolveModel(config);
      const results: DistillResult[] = [];
      let harvested = 0;
      let thrown: string | undefined;
      try {
        // What the agents remembered natively (their own files) needs no model: harvest it first.
        const { harvestPass } = await import("../capture/pass");
        const h = await harvestPass(config, { hosts: hostsFrom(args.agent) });
        harvested = (h?.created ?? 0) + (h?.updated ?? 0);
        const native = h
          ? { created: h.created, updated: h.updated, gone: h.gone.length, import_id: h.import_id }
          : null;
        if (!args.json && h && (h.created || h.updated))
          consola.info(
            `Harvested the agents' own memories: ${h.created} new, ${h.updated} updated (import ${h.import_id}; undo with coffer import --undo ${h.import_id})`,
          );
        if (!args.json && h?.gone.length)
          consola.info(
            `${h.gone.length} native ${h.gone.length === 1 ? "memory was" : "memories were"} deleted at the source; Coffer keeps ${h.gone.length === 1 ? "its entry" : "their entries"}: ${h.gone.map((g) => g.id).join(", ")}`,
          );
        await distillAll(picked, { json: args.json, via: "sweep", extra: { native }, results });
      } catch (err) {
        thrown = (err as Error)?.message ?? String(err);
        throw err;
      } finally {
        const failed = results.filter((r) => r.outcome === "failed").map((r) => `${r.host} ${r.session}: ${r.message}`);
        held?.release({
          harvested,
          observed: 0,
          distilled: results.filter((r) => r.outcome === "distilled").length,
          skipped: results.filter((r) => r.outcome !== "distilled" && r.outcome !== "failed").length,
          errors: failed.length ? failed : thrown ? [thrown] : [],
          ...(results.some((r) => r.outcome === "over_budget") ? { over_budget: true } : {}),
          ...(model.settings ? {} : { not_distilling: `no model: ${model.why}` }),
        });
      }
    },
  }),
  ["coffer distill sweep", "coffer distill sweep --dry-run", "coffer distill sweep --agent codex --json"],
);

export default withExamples(
  defineCommand({
    meta: { name: "distill", description: "Turn finished agent sessions into project knowledge" },
    subCommands: { list, show, run, sweep },
    default: "list",
  }),
  ["coffer distill list", "coffer distill show <session>", "coffer distill run --pending", "coffer distill sweep"],
);
