import { join } from "node:path";
import { homeDirFor, hostConfigDirs } from "./platform";

/** The user's home directory; `$HOME` wins so tests and sandboxes can move it (then USERPROFILE on Windows). */
export function homeDir(): string {
  return homeDirFor();
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
  token: () => join(cofferHome(), "state", "token"),
  serveInfo: () => join(cofferHome(), "state", "serve.json"),
  queue: () => join(cofferHome(), "queue", "session-queue.json"),
  inbox: () => join(cofferHome(), "inbox"),
};
