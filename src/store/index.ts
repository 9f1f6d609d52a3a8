/**
 * The store's face: what the rest of Coffer may use of it (the architecture test keeps every
 * static import from outside src/store/ coming through here; a lazy `import()` may name the one
 * file it needs, so a process loads only that). Files under ~/.coffer/memory/ are the truth; the
 * SQLite index beside them is a cache that heals itself; all SQL lives in this folder.
 *
 * Rooms:
 * - the files, the index and scopes: store.ts (open, refresh, heal), db.ts (schema), scope.ts,
 *   entry.ts (the file format), entries.ts (writes), indexer.ts, freshness.ts, bulk.ts, trash.ts,
 *   promote.ts, team.ts, rules.ts, handoff.ts, sync-conflicts.ts, tidy.ts, status.ts, browse.ts
 *   (the web UI's entry listings), overview.ts (every scope, handoffs), edits.ts (moves, retags),
 *   git-files.ts, session-project.ts, vectors.ts (entry vectors), candidates.ts (what retrieval reads);
 * - delivery/: the hooks' delivered sets and session cache (sessions.ts), their records as a person
 *   reads them (records.ts), and what was injected and used (usage.ts);
 * - stale/: what an entry depends on in its project (anchors.ts) and whether it still holds (stale.ts);
 * - foreign/: read-only readers of other tools' databases (claude-mem, Kilo, Goose).
 *
 * Every name is listed (knip reports one nobody outside uses). The bundle keeps only what a
 * process uses: package.json says `"sideEffects": false`, so a command that imports one function
 * from here loads that function's files, not the whole store (test/hooks/loaded.test.ts checks the
 * hook's).
 */
export { type BrowseFilter, type BrowseRow, browsePage, browseWhere, facets, toBrowseRow } from "./browse";
export { type BulkWriter, type PutEntry, putEntries, refreshScopes, withBulk } from "./bulk";
export {
  appliesToRows,
  bodiesByRowid,
  type Card,
  currentBodies,
  type EntryRow,
  entryRowsByRowid,
  type Field,
  freshFirst,
  ftsMatcher,
  newestEverywhere,
  type RouteRow,
  rankedRecentCards,
  rowidsInScopes,
  rowidsWhere,
  rowsByIds,
  rowsByRowid,
  scopesCount,
  withHeads,
  writtenNext,
} from "./candidates";
export { inspectIndexFile, SCHEMA_VERSION } from "./db";
export { deliveriesOf, deliveryRecords, knownCwds, type SessionRecord } from "./delivery/records";
export {
  type DeliveryWhy,
  inOneWrite,
  KEEP_PARENTS,
  KEEP_SUBAGENTS,
  logHookEvent,
  lookScrubbed,
  lookStartCache,
  noteWhy,
  readSession,
  type SessionKey,
  type SessionUpdate,
  type ShownFile,
  scopeGens,
  sessionCounts,
  sessionKey,
  setWatchedSig,
  updateSession,
  watchedSig,
  writeScrubbed,
  writeStartCache,
} from "./delivery/sessions";
export {
  applyUsePrior,
  createdTimes,
  type DeliveredCount,
  deliveryTotal,
  describeUse,
  entriesBySource,
  entryTexts,
  entryUses,
  injectionRows,
  keepUnused,
  type LastHookEvent,
  lastHookEvents,
  mostDelivered,
  nativeEntryCounts,
  type PendingDelivery,
  pendingDeliveries,
  recordInjection,
  recordUse,
  sessionVerdicts,
  UNUSED_MIN,
  type UndeliveredEntry,
  type UnusedEntry,
  type UseCount,
  type UseRecord,
  undelivered,
  unusedEntries,
  unusedOffers,
  usageSince,
  useTotals,
} from "./delivery/usage";
export { entryTitles, moveEntry, retagEntry } from "./edits";
export {
  entryMeta,
  findEntry,
  forget,
  listEntries,
  type RememberInput,
  type RememberResult,
  remember,
  replaceEntryText,
  requireEntry,
  rowToEntry,
  unmarkResolvedConflict,
} from "./entries";
export {
  deriveTitle,
  type Entry,
  KEYWORD_MAX_CHARS,
  KEYWORD_MAX_WORDS,
  KEYWORDS_MAX,
  KINDS,
  type Kind,
  type Located,
  normalizeText,
  normHash,
  parseEntry,
  SOURCES,
  type Source,
  serializeEntry,
  TITLE_MAX,
} from "./entry";
export { openClaudeMemDb } from "./foreign/claude-mem-db";
export { type GooseSessionRow, gooseConversation, gooseSession, gooseSessions } from "./foreign/goose";
export { type KiloSessionRow, kiloConversation, kiloSession, kiloSessions } from "./foreign/kilo";
export type { IndexedFile } from "./freshness";
export { commonGitDir } from "./git-files";
export { clearHandoff, getHandoff, handoffFreshness, setHandoff } from "./handoff";
export { entriesDir, entryPath, nonRegularInMemory, readMemoryFile, scopeDir, scopesOnDisk } from "./indexer";
export { browsableScopes, listHandoffs, scopeOverview, uncommittedInTeam } from "./overview";
export { type PromoteResult, promote } from "./promote";
export { addRule, readRules, ruleScopes, rulesPath, scrubRules, shownRules, writeRules } from "./rules";
export {
  findRepoRoot,
  GLOBAL,
  isAbsoluteDir,
  isTeamKey,
  normalizeOrigin,
  type ProjectScope,
  resolveProject,
  type ScopeKey,
  type ScopeName,
  TEAM_FOLDER,
  teamScopeOf,
  teamWorktree,
} from "./scope";
export { openProjectStore, type ProjectRef, projectForSession } from "./session-project";
export { reasonText, type StaleReason } from "./stale/anchors";
export {
  checkedRoots,
  checkKnownProjects,
  checkProjectStale,
  keepStale,
  listStale,
  STALE_BUDGET_MS,
} from "./stale/stale";
export { storeStatus } from "./status";
export {
  activeScopes,
  bodyMax,
  checkedAgainstFiles,
  closeStore,
  ensureProjectFile,
  type OpenOptions,
  openStore,
  parseProjectMeta,
  projectMeta,
  refresh,
  reindex,
  requireTeam,
  type Store,
  scopeKey,
  scopeName,
  verifyShown,
  withHealing,
  withOpenStore,
} from "./store";
export { conflictMark, conflictNote, SYNC_CONFLICT_TAG, type SyncConflict, syncConflicts } from "./sync-conflicts";
export { removeDeadTempFiles } from "./tidy";
export { listTrash, moveToTrash, restoreEntry, TRASH_DAYS } from "./trash";
export {
  CODE_WORDS,
  nearRows,
  pendingStored,
  signCode,
  storedVectorOf,
  storedVectors,
  vectorBlocks,
  vectorsCurrent,
  vectorText,
} from "./vectors";
