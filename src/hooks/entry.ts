/**
 * `coffer hook <event> --agent <host>`: the entry point agents call on every turn.
 * Reads the host's JSON on stdin, answers the host's JSON on stdout, always exits 0. Anything
 * wrong (arguments, stdin, ids, cwd, store, deadline) answers the host's "nothing" output and
 * goes to state/hook.log. Imports stay minimal: no CLI framework, no network, no processes (the
 * one exception: after answering, a session start may start a detached background sweep).
 */
import { existsSync, readSync, realpathSync } from "node:fs";
import { basename, isAbsolute, resolve } from "node:path";
import { loadConfigOrDefaults } from "../config/config";
import { HOOK_EVENTS, type HookEvent, type HookInput, NO_HOOKS_ENV, SAFE_ID } from "../hosts/hook";
import { loadHookAdapter } from "../hosts/index";
import { HOSTS, type Host, isHost } from "../lib/hosts";
import { writeErr } from "../lib/output";
import { cofferHome, paths } from "../lib/paths";
import { isAbsoluteDir, resolveProject, teamScopeOf } from "../store";
import { answer, armDeadline, exitNow } from "./deadline";
import { hookLog } from "./log";

/** stdin beyond this is not a hook payload. */
export const STDIN_MAX = 8 * 1024 * 1024;

export function parseHookArgs(argv: string[]): { event?: HookEvent; host?: Host; wrong?: string } {
  let event: string | undefined;
  let host: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--agent") host = argv[++i];
    else if (a.startsWith("--agent=")) host = a.slice(8);
    else if (!a.startsWith("-") && event === undefined) event = a;
  }
  const known = (HOOK_EVENTS as readonly string[]).includes(event ?? "");
  const wrong = !known
    ? `${event === undefined ? "no event given" : `unknown event "${event}"`} (one of: ${HOOK_EVENTS.join(", ")})`
    : !isHost(host ?? "")
      ? `${host === undefined ? "no --agent given" : `unknown agent "${host}"`} (one of: ${HOSTS.join(", ")})`
      : undefined;
  return {
    event: known ? (event as HookEvent) : undefined,
    host: isHost(host ?? "") ? (host as Host) : undefined,
    ...(wrong ? { wrong } : {}),
  };
}

/**
 * Someone trying the hook at a terminal gets one line on stderr saying what is wrong. Agents pipe
 * stdin and must see nothing but the host's JSON on stdout, so with a pipe this says nothing.
 */
function tellPerson(message: string): void {
  if (process.stdin.isTTY) writeErr(`coffer hook: ${message}\n`);
}

/**
 * stdin up to `max` bytes (undefined beyond). Read synchronously: a hook's stdin is a pipe the host
 * writes and closes at once, and a blocking read costs a fraction of starting Bun's stream (the
 * watchdog still ends a read that never returns). A non-blocking stdin (EAGAIN) goes on through
 * the stream.
 */
async function readStdin(max: number): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(0, buf, 0, buf.length, null);
      if (n === 0) return Buffer.concat(chunks).toString("utf8");
      size += n;
      if (size > max) return undefined;
      chunks.push(buf.subarray(0, n));
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EOF") return Buffer.concat(chunks).toString("utf8"); // Windows: the writer closed the pipe
    if (code !== "EAGAIN") throw err;
  }
  for await (const chunk of Bun.stdin.stream()) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Ids that end up in keys and paths, and a cwd that is absolute and exists. */
export function checkInput(input: HookInput): string | undefined {
  if (!SAFE_ID.test(input.sessionId)) return "unsafe session id";
  if (input.agentId !== undefined && !SAFE_ID.test(input.agentId)) return "unsafe agent id";
  if (!isAbsoluteDir(input.cwd)) return "cwd is not an absolute, existing directory";
  if (
    input.transcriptPath !== undefined &&
    (!isAbsolute(input.transcriptPath) || input.transcriptPath.length > 4096 || input.transcriptPath.includes("\0"))
  ) {
    return "transcript_path is not an absolute path";
  }
  return undefined;
}

/** The cwd of an agent CLI Coffer runs headless (`state/headless/run`, as given or resolved). */
function inHeadlessRun(cwd: string): boolean {
  const dir = paths.headlessRun();
  if (cwd === dir) return true;
  if (basename(cwd) !== basename(dir)) return false;
  try {
    return realpathSync(dir) === cwd;
  } catch {
    return false;
  }
}

/** The cwd's worktree has a team lane Coffer reads (`.coffer/`, team.read on). */
function hasTeamLane(cwd: string, teamRead: string): boolean {
  if (teamRead !== "on") return false;
  const project = resolveProject(cwd);
  return project !== undefined && teamScopeOf(project).present;
}

function finish(json: string): never {
  answer(json);
  exitNow();
}

export async function runHookCli(argv: string[]): Promise<void> {
  const started = Date.now();
  const { event, host, wrong } = parseHookArgs(argv);
  if (!event || !host) {
    hookLog(`bad arguments: ${JSON.stringify(argv).slice(0, 200)} (usage: coffer hook <event> --agent <host>)`);
    tellPerson(`${wrong}; usage: coffer hook <event> --agent <host>`);
    finish("{}");
  }
  let empty = "{}";
  const where = { host, event };
  try {
    const adapter = await loadHookAdapter(host);
    empty = adapter.empty(event);
    // An agent CLI Coffer itself runs to distil: no memory into its prompt, nothing queued.
    if (process.env[NO_HOOKS_ENV]) finish(empty);
    // No store yet (a teammate whose agent runs Coffer's hooks before Coffer ever wrote): nothing
    // of their own to inject, but the repository's team lane may be. Nothing is logged or created
    // unless the cwd has one.
    const noHome = !existsSync(cofferHome());
    const log = noHome ? () => {} : hookLog;
    const config = loadConfigOrDefaults((err) => log(`config: ${err.message}`, where));
    armDeadline(started + config["hook.deadline_ms"], empty, paths.hookLog());
    // A prompt is compared by meaning in a WebAssembly module: compiled on another thread while
    // this one reads stdin and opens the store (awaited below, before routing).
    const kernels =
      (event === "prompt" || event === "subagent-start") && config["routing.similarity"] !== "off"
        ? import("../retrieval/similarity").then((m) => m.compileKernels()).catch(() => {})
        : undefined;

    const raw = await readStdin(STDIN_MAX);
    if (raw === undefined) {
      log("stdin larger than 8 MiB", where);
      tellPerson("stdin is larger than 8 MiB: not a hook payload");
      finish(empty);
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      log(`stdin is not JSON (${raw.length} chars)`, where);
      tellPerson(`stdin is not JSON (${raw.length} chars): the hook reads the JSON ${host} sends`);
      finish(empty);
    }
    if (!adapter.events.includes(event)) {
      tellPerson(`${host} has no ${event} hook (its events: ${adapter.events.join(", ")})`);
      finish(empty);
    }
    const parsed = adapter.parse(event, json, process.cwd());
    if (!parsed.ok) {
      if (!parsed.ignored) {
        log(parsed.reason, where);
        tellPerson(parsed.reason);
      }
      finish(empty);
    }
    // Normalize an absolute cwd (`..`, trailing `/`) so one directory is one cache key; a
    // relative one stays relative and is rejected below.
    const cwd = parsed.input.cwd;
    const input = { ...parsed.input, cwd: typeof cwd === "string" && isAbsolute(cwd) ? resolve(cwd) : cwd };
    const bad = checkInput(input);
    if (bad) {
      log(bad, where);
      tellPerson(bad);
      finish(empty);
    }
    // The same run when the host passed its hooks a cleaned environment: it runs in Coffer's run folder.
    if (inHeadlessRun(input.cwd)) finish(empty);
    if (noHome && (event === "session-end" || !hasTeamLane(input.cwd, config["team.read"]))) finish(empty);
    if (event === "session-end") {
      if (input.transcriptPath) {
        const { enqueueSession } = await import("../capture/queue");
        const { isoNow } = await import("../lib/time");
        // The queue's lock is waited for until shortly before the deadline (a busy machine with
        // many sessions ending at once must not lose one to a fixed 1 s wait).
        const left = started + config["hook.deadline_ms"] - Date.now();
        enqueueSession(
          { transcript_path: input.transcriptPath, host, session: input.sessionId, at: isoNow() },
          Math.max(50, left - 200),
        );
      }
      finish(empty);
    }
    if (!adapter.injects.includes(event) && event !== "compact") finish(empty);
    if (config["hook.read"] === "off") finish(empty);

    const [{ openStore, withHealing }, { runEvent }] = await Promise.all([import("../store/store"), import("./run")]);
    // Our own reads and writes wait for a busy index at most until shortly before the deadline
    // (a user who raises hook.deadline_ms accepts the longer wait).
    const left = started + config["hook.deadline_ms"] - Date.now();
    const store = openStore({
      cwd: input.cwd,
      freshness: "shallow",
      rebuildAll: false,
      config,
      notice: (m) => hookLog(m, where),
      busyTimeoutMs: Math.max(50, left - 200),
      readWhenBusy: false, // a held lock would also stall the delivered-set write: answer empty now
      // A refresh of thousands of changed files (a checkout of the team lane) stops reading at
      // half the time left, so routing still answers; the next hook goes on from there.
      refreshUntil: Date.now() + left / 2,
    });
    await kernels;
    const result = withHealing(store, () =>
      runEvent({ store, config, adapter, input, cap: adapter.capacity(config), now: Date.now() }),
    );
    const out = result.context ? adapter.render(event, result.context) : empty;
    if (event === "session-start") {
      // The answer goes out first: what follows never costs the session its context.
      answer(out);
      if (config["native_memory.harvest"]) {
        // The agent's own memory files, when they changed since the last session start.
        try {
          const { harvestAtSessionStart } = await import("./native");
          const r = await harvestAtSessionStart(store, host, input.cwd);
          if (r === "too-large")
            hookLog(
              "native memory changed too much to import here: the sweep or `coffer import native` does it",
              where,
            );
        } catch (err) {
          hookLog(`native memory harvest failed: ${(err as Error)?.message ?? String(err)}`, where);
        }
      }
      // Distil finished sessions with no daemon: a detached `coffer distill sweep --background`
      // when one is due (files only until then; the spawn never waits).
      try {
        const { startBackgroundSweep } = await import("../capture/background");
        startBackgroundSweep(config, { cwd: input.cwd });
      } catch (err) {
        hookLog(`background sweep: ${(err as Error)?.message ?? String(err)}`, where);
      }
      exitNow();
    }
    finish(out);
  } catch (err) {
    hookLog(`hook failed: ${(err as Error)?.stack ?? String(err)}`, where);
    finish(empty);
  }
}
