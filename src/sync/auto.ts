import type { Config } from "../store/config";

/** Start periodic `coffer sync` inside `coffer serve` when `[sync] auto = true`; returns a stop function (placeholder: no-op). */
export function startAutoSync(_config: Config): () => void {
  return () => {};
}
