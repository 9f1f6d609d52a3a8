/** Placeholder for the hook entry point: prints nothing useful but never fails. */
export async function runHookCli(_argv: string[]): Promise<void> {
  process.stdout.write("{}\n");
}
