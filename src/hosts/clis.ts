/**
 * The agent CLIs Coffer can run as its distillation model, by `model.provider` value, in the order
 * zero configuration tries them when no link order says otherwise. Each one's facts live in its
 * host's `headless.ts`.
 */
import { CLI_PROVIDERS, type CliProvider, type Host } from "../lib/hosts";
import { headless as claude } from "./claude/headless";
import { headless as codex } from "./codex/headless";
import { headless as copilot } from "./copilot/headless";
import { headless as gemini } from "./gemini/headless";
import type { HeadlessCli } from "./headless";
import { headless as kilo } from "./kilo/headless";
import { headless as kimi } from "./kimi/headless";
import { headless as pi } from "./pi/headless";
import { headless as qwen } from "./qwen/headless";

export const HEADLESS_CLIS: Record<CliProvider, HeadlessCli> = {
  "claude-code": claude,
  codex,
  "gemini-cli": gemini,
  "copilot-cli": copilot,
  "kimi-code": kimi,
  "qwen-code": qwen,
  pi,
  "kilo-code": kilo,
};

export function isCliProvider(p: string | undefined): p is CliProvider {
  return p !== undefined && (CLI_PROVIDERS as readonly string[]).includes(p);
}

/** The CLI a linked host brings, if Coffer can run it headless. */
export function cliOfHost(host: Host): HeadlessCli | undefined {
  return Object.values(HEADLESS_CLIS).find((c) => c.host === host);
}
