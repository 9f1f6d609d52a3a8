/**
 * The session-start hook's look at the agent's own memory files (issue 23): a signature of this
 * project's native memory for the host, from a few lstat calls, compared with the one recorded at
 * the last session start. Only when it moved does the hook load the importer and harvest those
 * files (a small set: a bigger change waits for the sweep or `coffer import native`).
 */
import { isNativeHost, projectSources, sourcesSignature } from "../import/native-sources";
import type { Host } from "../lib/hosts";
import { type Store, setWatchedSig, watchedSig } from "../store";

/** How much a session-start hook imports itself. */
const HOOK_MAX_BYTES = 256 * 1024;
const HOOK_MAX_FILES = 40;

export type NativeCheck = "not-native" | "unchanged" | "too-large" | { created: number; updated: number };

export async function harvestAtSessionStart(store: Store, host: Host, cwd: string): Promise<NativeCheck> {
  if (!isNativeHost(host)) return "not-native";
  const root = store.project?.root;
  const dirs = root && root !== cwd ? [cwd, root] : [cwd];
  const sig = sourcesSignature(projectSources(host, dirs));
  const key = `native:${host}:${cwd}`;
  if (watchedSig(store, key) === sig.sig) return "unchanged";
  if (!sig.files) {
    setWatchedSig(store, key, sig.sig); // no memory files at all: nothing to import
    return "unchanged";
  }
  if (sig.bytes > HOOK_MAX_BYTES || sig.files > HOOK_MAX_FILES) {
    setWatchedSig(store, key, sig.sig); // said once: the sweep or `coffer import native` takes it from here
    return "too-large";
  }
  const { harvestNative } = await import("../import/harvest");
  const r = await harvestNative({ hosts: host, cwd, only: { dirs }, store });
  setWatchedSig(store, key, sig.sig);
  return { created: r.created, updated: r.updated };
}
