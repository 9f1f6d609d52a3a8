/**
 * One completion from the configured model, whichever kind it is: an HTTP API (model.ts) or an
 * agent CLI run headless (agent-cli.ts, loaded only when one is configured). Apart from both so
 * that neither imports the other.
 */
import { type CallOptions, type Completion, completeApi, isCliSettings, type ModelSettings } from "./model";

/** `system` + `user` in, the reply text and its token usage out. Throws ModelError. */
export async function complete(
  s: ModelSettings,
  system: string,
  user: string,
  opts: CallOptions = {},
): Promise<Completion> {
  if (isCliSettings(s)) {
    const { completeCli } = await import("./agent-cli");
    return completeCli(s, system, user);
  }
  return completeApi(s, system, user, opts);
}
