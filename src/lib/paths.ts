import { join } from "node:path";
import { CofferError } from "./errors";
import { homeDirFor, hostConfigDirs } from "./platform";

/**
 * The user's home directory from the environment: `$HOME` (then USERPROFILE on Windows), or
 * undefined when it is not set. Never guessed from the process: with HOME unset, that guess can
 * be another user's home (root's, a service account's), and Coffer would use their store.
 */
export function envHome(): string | undefined {
  return homeDirFor(undefined, undefined, () => "") || undefined;
}

/** The user's home directory (`envHome`); without one, a CofferError that says to set HOME or COFFER_HOME. */
export function homeDir(): string {
  const home = envHome();
  if (!home)
    throw new CofferError(
      "HOME is not set, so Coffer cannot tell whose store (~/.coffer) to use",
      1,
      "Set HOME, or COFFER_HOME=<path to the store>, and run the command again.",
    );
  return home;
}

/** An agent's own config directory (`~/.claude`, `$CODEX_HOME`, `~/.gemini`, ...): see `hostConfigDirs`. */
export function agentDir(host: keyof ReturnType<typeof hostConfigDirs>): string {
  return hostConfigDirs(undefined, undefined, homeDir())[host];
}

/** Root of everything Coffer owns (`COFFER_HOME`, default `~/.coffer`). */
export function cofferHome(): string {
  return process.env.COFFER_HOME || join(homeDir(), ".coffer");
}

export const paths = {
  config: () => join(cofferHome(), "config.toml"),
  memory: () => join(cofferHome(), "memory"),
  globalScope: () => join(cofferHome(), "memory", "global"),
  projectScope: (id: string) => join(cofferHome(), "memory", "projects", id),
  projectsRoot: () => join(cofferHome(), "memory", "projects"),
  state: () => join(cofferHome(), "state"),
  /** Coffer's folder for the agent CLIs it runs headless to distil (`run/` is their empty cwd). */
  headless: () => join(cofferHome(), "state", "headless"),
  headlessRun: () => join(cofferHome(), "state", "headless", "run"),
  indexDb: () => join(cofferHome(), "state", "index.db"),
  audit: () => join(cofferHome(), "state", "audit.jsonl"),
  hookLog: () => join(cofferHome(), "state", "hook.log"),
  ledger: () => join(cofferHome(), "state", "distilled.jsonl"),
  /** The last sweep (who started it, when, what it did), the lock every sweep holds, the background sweep's log. */
  sweepRecord: () => join(cofferHome(), "state", "sweep.json"),
  sweepLock: () => join(cofferHome(), "state", "sweep.lock"),
  sweepLog: () => join(cofferHome(), "state", "sweep.log"),
  token: () => join(cofferHome(), "state", "token"),
  serveInfo: () => join(cofferHome(), "state", "serve.json"),
  queue: () => join(cofferHome(), "queue", "session-queue.json"),
  inbox: () => join(cofferHome(), "inbox"),
};
