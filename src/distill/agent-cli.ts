/**
 * One completion by an agent's own CLI, run headless: the host's facts (`src/hosts/<host>/headless.ts`)
 * give the argv, environment and output parsing; this runs it. The CLI runs in Coffer's empty
 * folder `state/headless/run` (no project instructions, settings or MCP config to pick up), in the
 * environment a person's shell would have (no agent session's variables: `shellEnv`), with
 * COFFER_NO_HOOKS set (Coffer's hooks answer empty at once if the CLI runs them), the
 * conversation on stdin after RUN_MARKER (a transcript of the run is recognised and never
 * distilled), and `model.timeout_ms`: past it the CLI is stopped with everything it started (its
 * process group). The run ends when the CLI exits, not when its pipes close. Failures are
 * ModelErrors of the same kinds as an API's, with a message that is safe to print and store.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { searchPath, withPath } from "../hosts/agent-clis";
import { type HeadlessAnswer, type RunSpec, setupFailure } from "../hosts/headless";
import { NO_HOOKS_ENV } from "../hosts/hook";
import { shellEnv } from "../hosts/session-env";
import { writeFileAtomic } from "../lib/atomic";
import { sha256 } from "../lib/hash";
import { homeDir, paths } from "../lib/paths";
import { scrubText } from "../transcripts/scrub";
import { currentRepository, searched } from "./linked-clis";
import {
  type CliSettings,
  type Completion,
  cliFacts,
  estimateTokens,
  ModelError,
  setupProblem,
  type Usage,
} from "./model";
import { RUN_MARKER } from "./prompt";

/** Output beyond this is not an answer (each stream). */
const OUTPUT_MAX = 8 * 1024 * 1024;
/** After the timeout: SIGTERM to the CLI's process group, then SIGKILL this much later. */
const KILL_GRACE_MS = 2000;
/**
 * Once the CLI has exited, what it printed is in the pipes; a child of it may still hold them open
 * (and never close them): read for at most this long, then keep what arrived.
 */
const DRAIN_MS = 1000;

function writeIfChanged(path: string, content: string): void {
  try {
    if (readFileSync(path, "utf8") === content) return;
  } catch {}
  writeFileAtomic(path, content, 0o600);
}

/** The run folder, the system prompt as a file and the host's files; the run's cwd holds nothing but Gemini's workspace settings. */
function prepare(s: CliSettings, system: string): RunSpec {
  const dir = paths.headless();
  const workDir = paths.headlessRun();
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const systemFile = join(dir, `system-${sha256(system).slice(0, 12)}.md`);
  writeIfChanged(systemFile, system.endsWith("\n") ? system : `${system}\n`);
  const facts = cliFacts(s);
  for (const [name, content] of Object.entries(facts.files?.(system) ?? {})) writeIfChanged(join(dir, name), content);
  return { model: s.model, system, systemFile, dir, workDir, home: homeDir() };
}

/** Read a stream into text, at most `max` bytes; `stop()` ends the read early (what arrived is kept). */
function collect(stream: ReadableStream<Uint8Array>, max: number): { done: Promise<string>; stop: () => void } {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const done = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (size < max) {
          chunks.push(value);
          size += value.length;
        }
      }
    } catch {}
    return Buffer.concat(chunks).toString("utf8");
  })();
  return { done, stop: () => void reader.cancel().catch(() => {}) };
}

type Running = { pid: number; kill: (signal?: NodeJS.Signals) => void };

/**
 * Signal the CLI and everything it started. On POSIX it runs as the leader of its own process
 * group (`detached`), so a child it left behind (a shell's, a wrapper's) is stopped with it; on
 * Windows `taskkill /T` ends the tree (npm installs CLIs as `.cmd` wrappers around node).
 */
function signalAll(proc: Running, signal: NodeJS.Signals): void {
  if (process.platform === "win32") {
    try {
      Bun.spawnSync(["taskkill", "/T", ...(signal === "SIGKILL" ? ["/F"] : []), "/PID", String(proc.pid)], {
        stdio: ["ignore", "ignore", "ignore"],
      });
    } catch {}
    return;
  }
  try {
    process.kill(-proc.pid, signal);
  } catch (err) {
    // ESRCH: nothing of the group is left. Otherwise (EPERM: a member Coffer may not signal) the CLI itself.
    if ((err as NodeJS.ErrnoException).code !== "ESRCH")
      try {
        proc.kill(signal);
      } catch {}
  }
}

/**
 * The CLIs running now. In their own process groups a terminal's Ctrl-C no longer reaches them:
 * while one runs, Coffer's exit, or a signal nothing else in Coffer handles, takes them along.
 */
const running = new Set<Running>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let handled: NodeJS.Signals[] = [];
const onExit = () => {
  for (const proc of running) signalAll(proc, "SIGKILL");
};
const onSignal = (sig: NodeJS.Signals) => {
  for (const proc of running) signalAll(proc, "SIGTERM");
  running.clear();
  unwatch();
  process.kill(process.pid, sig); // as if nothing had listened: the signal's default action
};
function unwatch(): void {
  process.removeListener("exit", onExit);
  for (const sig of handled) process.removeListener(sig, onSignal);
  handled = [];
}
function watch(proc: Running): () => void {
  if (!running.size) {
    process.on("exit", onExit);
    handled = SIGNALS.filter((sig) => process.listenerCount(sig) === 0);
    for (const sig of handled) process.on(sig, onSignal);
  }
  running.add(proc);
  return () => {
    if (running.delete(proc) && !running.size) unwatch();
  };
}

/** A CLI's words, fit for an error message and the ledger: one line, scrubbed, short. */
function safe(text: string): string {
  return scrubText(text.replace(/\s+/g, " ").trim().slice(0, 300)).text;
}

export async function completeCli(s: CliSettings, system: string, user: string): Promise<Completion> {
  const facts = cliFacts(s);
  const name = `\`${facts.command}\``;
  if (!s.cli)
    throw new ModelError(
      "missing",
      `${name}: \`${facts.bin}\` was not found (looked in ${searched(facts)}); install it, or set model.provider to another model`,
    );
  const input = `${RUN_MARKER}\n\n${user}`;
  const spec = { ...prepare(s, system), input };
  // The environment a person's shell would have: no agent session's variables (a CLI that sees them
  // may refuse to start, or act as part of that session), no PATH folder a checkout could fill.
  const env = withPath(
    shellEnv(process.env),
    // npm-installed CLIs start with `#!/usr/bin/env node`: Node version managers keep node beside them.
    [dirname(s.cli), ...searchPath(process.env.PATH, [currentRepository()])].join(delimiter),
  );
  Object.assign(env, facts.env(spec), { [NO_HOOKS_ENV]: "1" });
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn([s.cli, ...facts.argv(spec)], {
      cwd: spec.workDir,
      env,
      stdin: Buffer.from(facts.stdin ? facts.stdin(spec, input) : input),
      stdout: "pipe",
      stderr: "pipe",
      // Its own process group: a timeout stops the CLI and whatever it started (issue 36 item 13).
      detached: process.platform !== "win32",
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ModelError("missing", `${name}: ${s.cli} could not be started (${code}); reinstall it or check its path`);
  }
  const release = watch(proc);
  const out = collect(proc.stdout as ReadableStream<Uint8Array>, OUTPUT_MAX);
  const err = collect(proc.stderr as ReadableStream<Uint8Array>, OUTPUT_MAX);
  let timedOut = false;
  let killLater: ReturnType<typeof setTimeout> | undefined;
  const timer = setTimeout(() => {
    if (proc.exitCode !== null || proc.signalCode !== null) return; // it exited just now: not late
    timedOut = true;
    signalAll(proc, "SIGTERM");
    killLater = setTimeout(() => signalAll(proc, "SIGKILL"), KILL_GRACE_MS);
  }, s.timeoutMs);
  // The process decides: a CLI that answered and exited is done, even when a child it started
  // still holds its stdout (waiting for the pipes to close made that a timeout).
  const code = await proc.exited;
  clearTimeout(timer);
  clearTimeout(killLater);
  // Past the timeout nothing of the run may stay: what is left of the group goes too.
  if (timedOut) signalAll(proc, "SIGKILL");
  release();
  const drain = setTimeout(() => {
    out.stop();
    err.stop();
  }, DRAIN_MS);
  const [stdout, stderr] = await Promise.all([out.done, err.done]);
  clearTimeout(drain);
  const answer: HeadlessAnswer = facts.parse({ stdout, stderr, code: code ?? -1 }, spec);
  if (timedOut) {
    const retrying = !answer.ok && answer.kind !== "malformed" && answer.kind !== "http" ? answer : undefined;
    throw new ModelError(
      retrying?.kind ?? "timeout",
      `${name} did not answer within ${s.timeoutMs} ms (model.timeout_ms)${retrying ? `; it was retrying: ${safe(retrying.message)}` : ""}`,
    );
  }
  if (!answer.ok) {
    // Not installed right, never logged in, refusing to run here: the set-up, never the session's fault.
    const setup = setupFailure(facts, { stderr, code: code ?? -1 }, answer.message);
    const fix = setup && setupProblem(setup, s.provider)?.fix;
    throw new ModelError(
      setup ?? answer.kind,
      `${name} ${safe(answer.message)}${fix ? ` (the model's set-up, not counted against the session; fix: ${fix})` : ""}`,
    );
  }
  const usage: Usage = answer.usage
    ? { ...answer.usage, estimated: false }
    : {
        input_tokens: estimateTokens(system.length + input.length),
        output_tokens: estimateTokens(answer.text.length),
        estimated: true,
      };
  return { text: answer.text, usage, ...(answer.model ? { model: answer.model } : {}) };
}
