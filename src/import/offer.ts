/**
 * Before `coffer link <host> --native-memory off` switches an agent's own memory off: what that
 * agent saved itself and Coffer does not have yet, and the offer to import it first.
 */
import { applyImport } from "./engine";
import { harvestNative } from "./harvest";
import { planNative } from "./native";
import { isNativeHost } from "./native-sources";

/** How many of the host's own memories an import would add or update now (0 when it keeps none). */
export async function nativeBacklog(host: string, cwd = process.cwd()): Promise<number> {
  if (!isNativeHost(host)) return 0;
  const plan = planNative({ hosts: host, cwd });
  if (!plan.items.length) return 0;
  const r = await applyImport(plan, { dryRun: true, cwd, notice: () => {} });
  return r.created + r.updated;
}

/**
 * Offer the import: on a terminal ask (default yes) and run it; elsewhere return the command to
 * run. Returns the lines to show the user.
 */
export async function offerNativeImport(
  host: string,
  opts: { interactive: boolean; cwd?: string; ask?: (question: string) => Promise<boolean> },
): Promise<string[]> {
  const cwd = opts.cwd ?? process.cwd();
  const pending = await nativeBacklog(host, cwd);
  if (!pending) return [];
  const what = `${pending} ${pending === 1 ? "memory" : "memories"} ${host} saved itself ${pending === 1 ? "is" : "are"} not in Coffer yet`;
  const command = `coffer import native --agent ${host}`;
  if (!opts.interactive || !opts.ask)
    return [`${what}: run \`${command}\` to bring ${pending === 1 ? "it" : "them"} over.`];
  if (!(await opts.ask(`${what}. Import ${pending === 1 ? "it" : "them"} before turning ${host}'s memory off?`)))
    return [`Not imported; run \`${command}\` any time.`];
  const report = await harvestNative({ hosts: host, cwd });
  return [
    `Imported ${report.created + report.updated} of ${host}'s own memories (import ${report.import_id}; undo with coffer import --undo ${report.import_id}).`,
  ];
}
