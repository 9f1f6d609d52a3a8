/**
 * The test kit: what tests in more than one folder use. sandbox.ts = the throwaway HOME and
 * COFFER_HOME, runs of the binary, remember; model-server.ts = the one fake model server;
 * hooks.ts = hook runs and payloads; memory.ts = memory/ written and read as files;
 * transcripts.ts = agents' transcripts placed; in-process.ts = a store for tests that import src/; distill.ts = model config, queue, ledger, sweep;
 * mcp.ts = MCP clients (stdio, HTTP) and `coffer serve`; machines.ts = two machines syncing
 * through one remote; random.ts = a seeded generator; until.ts = waiting on a condition;
 * processes.ts = whether a process still runs.
 */
export * from "./distill";
export * from "./hooks";
export * from "./in-process";
export * from "./machines";
export * from "./mcp";
export * from "./memory";
export * from "./model-server";
export * from "./processes";
export * from "./random";
export * from "./sandbox";
export * from "./transcripts";
export * from "./until";
