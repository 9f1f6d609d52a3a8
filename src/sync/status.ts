/** Sync state for `coffer status`; replaced when sync lands. */
export function syncStatus(): { summary: string } | undefined {
  return undefined;
}
