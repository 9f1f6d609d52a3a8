/**
 * Finding sessions on disk, for every host with a parser, and resolving what a user typed
 * (`distill show <session|path>`) to one file.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, resolve, sep } from "node:path";
import { CofferError } from "../lib/errors";
import {
  antigravityActivity,
  antigravityHead,
  antigravityRoot,
  listAntigravitySessions,
  parseAntigravity,
} from "./antigravity";
import { claudeActivity, claudeHead, claudeRoot, listClaudeSessions, parseClaude } from "./claude";
import { clineActivity, clineHead, clineRoot, clineSessionCwd, listClineSessions, parseCline } from "./cline";
import { codexActivity, codexHead, codexRoot, listCodexSessions, parseCodex } from "./codex";
import { copilotActivity, copilotHead, copilotRoot, listCopilotSessions, parseCopilot } from "./copilot";
import { fileStat, jsonObject, readHeadLines, type SessionFile, type SessionHead, splitDbSessionPath } from "./files";
import { geminiActivity, geminiHead, geminiProjectPath, geminiRoot, listGeminiSessions, parseGemini } from "./gemini";
import {
  gooseActivity,
  gooseHead,
  gooseRoot,
  gooseStat,
  gooseUnreadable,
  listGooseSessions,
  parseGoose,
  readGoose,
} from "./goose";
import {
  kiloActivity,
  kiloHead,
  kiloRoot,
  kiloStat,
  kiloUnreadable,
  listKiloSessions,
  listOpencodeSessions,
  opencodeRoot,
  parseKilo,
  parseOpencode,
  readKilo,
} from "./kilo";
import { kimiActivity, kimiHead, kimiRoot, kimiSessionCwd, listKimiSessions, parseKimi } from "./kimi";
import { listPiSessions, parsePi, piActivity, piHead, piRoot } from "./pi";
import { listQwenSessions, parseQwen, qwenActivity, qwenHead, qwenRoot } from "./qwen";
import { type Act, type ParsedTranscript, TRANSCRIPT_HOSTS, type TranscriptHost } from "./types";

export type { SessionFile, SessionHead };

type Adapter = {
  root: () => string;
  list: (sinceMs?: number) => SessionFile[];
  head: (path: string) => SessionHead;
  parse: (text: string) => ParsedTranscript;
  /** Prompts, the agent's words, its tool calls and their results, in order (capture/use.ts); none: use is unknown. */
  activity?: (text: string) => Act[];
  /**
   * A host that keeps sessions in a database (`<db>#<session id>`, no file of their own): a
   * session's size and last change, and its rows as the text `parse` and `activity` read.
   */
  stat?: (path: string) => { size: number; mtimeMs: number } | undefined;
  read?: (path: string) => string;
  /** Why that database cannot be read now (busy, locked, another schema); undefined: it can, or there is none. */
  unreadable?: () => string | undefined;
};

export const ADAPTERS: Record<TranscriptHost, Adapter> = {
  claude: {
    root: claudeRoot,
    list: listClaudeSessions,
    head: claudeHead,
    parse: parseClaude,
    activity: claudeActivity,
  },
  codex: { root: codexRoot, list: listCodexSessions, head: codexHead, parse: parseCodex, activity: codexActivity },
  gemini: {
    root: geminiRoot,
    list: listGeminiSessions,
    head: geminiHead,
    parse: parseGemini,
    activity: geminiActivity,
  },
  copilot: {
    root: copilotRoot,
    list: listCopilotSessions,
    head: copilotHead,
    parse: parseCopilot,
    activity: copilotActivity,
  },
  cline: { root: clineRoot, list: listClineSessions, head: clineHead, parse: parseCline, activity: clineActivity },
  kimi: { root: kimiRoot, list: listKimiSessions, head: kimiHead, parse: parseKimi, activity: kimiActivity },
  qwen: { root: qwenRoot, list: listQwenSessions, head: qwenHead, parse: parseQwen, activity: qwenActivity },
  pi: { root: piRoot, list: listPiSessions, head: piHead, parse: parsePi, activity: piActivity },
  kilo: {
    root: kiloRoot,
    list: listKiloSessions,
    head: kiloHead,
    parse: parseKilo,
    activity: kiloActivity,
    stat: kiloStat,
    read: readKilo,
    unreadable: () => kiloUnreadable("kilo"),
  },
  // OpenCode's sessions: the same database format as Kilo's (one reader).
  opencode: {
    root: opencodeRoot,
    list: listOpencodeSessions,
    head: kiloHead,
    parse: parseOpencode,
    activity: kiloActivity,
    stat: kiloStat,
    read: readKilo,
    unreadable: () => kiloUnreadable("opencode"),
  },
  goose: {
    root: gooseRoot,
    list: listGooseSessions,
    head: gooseHead,
    parse: parseGoose,
    activity: gooseActivity,
    stat: gooseStat,
    read: readGoose,
    unreadable: gooseUnreadable,
  },
  antigravity: {
    root: antigravityRoot,
    list: listAntigravitySessions,
    head: antigravityHead,
    parse: parseAntigravity,
    activity: antigravityActivity,
  },
};

/** Session files of the given hosts, touched since `sinceMs` (all when undefined), newest first. */
export function listSessions(hosts: readonly TranscriptHost[] = TRANSCRIPT_HOSTS, sinceMs?: number): SessionFile[] {
  const out: SessionFile[] = [];
  for (const h of hosts)
    for (const f of ADAPTERS[h].list(sinceMs)) if (sinceMs === undefined || f.mtimeMs >= sinceMs) out.push(f);
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

const under = (path: string, root: string) => path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);

/** Hosts whose session database is there but cannot be read now, and why (their sessions are not listed). */
export function unreadableSources(
  hosts: readonly TranscriptHost[] = TRANSCRIPT_HOSTS,
): { host: TranscriptHost; reason: string }[] {
  const out: { host: TranscriptHost; reason: string }[] = [];
  for (const host of hosts) {
    const reason = ADAPTERS[host].unreadable?.();
    if (reason) out.push({ host, reason });
  }
  return out;
}

/** Which host wrote a file: by where it lives, else by what its first line looks like. */
export function detectHost(path: string): TranscriptHost | undefined {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {}
  for (const h of TRANSCRIPT_HOSTS) {
    const root = ADAPTERS[h].root();
    if (under(path, root) || under(real, root)) return h;
  }
  const first = readHeadLines(path, (l) => l.length > 0)[0] ?? "";
  const r = jsonObject(first);
  if (!r) return first.trimStart().startsWith("{") ? "gemini" : undefined; // a pretty-printed Gemini document
  if (r.type === "session_meta" || (r.payload && typeof r.payload === "object")) return "codex";
  if (r.type === "session.start" && r.data && typeof r.data === "object") return "copilot";
  if (typeof r.projectHash === "string" || Array.isArray(r.messages)) return "gemini";
  if (r.message && typeof r.message === "object" && Array.isArray(r.message.parts)) return "qwen"; // Gemini parts
  if (r.type === "session" && typeof r.version === "number" && typeof r.id === "string") return "pi";
  if (r.type === "title" && typeof r.v === "number" && typeof r.title === "string") return "pi"; // omp's first record
  if (typeof r.step_index === "number" && typeof r.type === "string") return "antigravity"; // agy's steps
  if (typeof r.type === "string") return "claude";
  return undefined;
}

/** What a parser and the ledger need about one file, given its path. */
export function sessionFileAt(path: string, host?: TranscriptHost): SessionFile {
  const abs = resolve(path);
  const inDb = host ?? (splitDbSessionPath(abs) ? detectHost(abs) : undefined);
  const stat = (inDb && ADAPTERS[inDb].stat) || fileStat;
  const st = stat(abs);
  if (!st)
    throw new CofferError(
      `no transcript file at ${abs}`,
      1,
      "Give a session id from `coffer distill list` or the path of a .jsonl/.json transcript.",
    );
  const h = inDb ?? detectHost(abs);
  if (!h) throw new CofferError(`cannot tell which agent wrote ${abs}`, 1, "Name it with --agent claude|codex|gemini.");
  const id = ADAPTERS[h].head(abs).session_id ?? basename(abs).replace(/\.jsonl?$/, "");
  return { host: h, path: abs, session_id: id, ...st };
}

/** A session by path, id, or unique id prefix (at least 4 characters). */
export function resolveSession(arg: string, hosts: readonly TranscriptHost[] = TRANSCRIPT_HOSTS): SessionFile {
  const looksLikePath = arg.includes("/") || arg.includes(sep) || /\.jsonl?$/.test(arg);
  if (looksLikePath || existsSync(arg)) return sessionFileAt(arg, hosts.length === 1 ? hosts[0] : undefined);
  const all = listSessions(hosts);
  const exact = all.filter((f) => f.session_id === arg);
  if (exact.length) return exact[0]!;
  const prefix = arg.length >= 4 ? all.filter((f) => f.session_id.startsWith(arg)) : [];
  if (prefix.length === 1) return prefix[0]!;
  if (prefix.length > 1) {
    throw new CofferError(
      `"${arg}" matches ${prefix.length} sessions (${prefix
        .slice(0, 3)
        .map((f) => f.session_id)
        .join(", ")}…)`,
      1,
      "Give more characters of the session id.",
    );
  }
  throw new CofferError(
    `no ${hosts.length === 1 ? `${hosts[0]} ` : ""}session "${arg}" found`,
    1,
    "List sessions with `coffer distill list`, or give the transcript's path.",
  );
}

/** Metadata from the start of the file (cwd, first activity) without reading all of it. */
export function sessionHead(file: SessionFile): SessionHead {
  return ADAPTERS[file.host].head(file.path);
}

/** Read and parse a whole file (bad lines are skipped; an unreadable file throws). */
export function parseSessionFile(file: SessionFile): ParsedTranscript {
  return parseTranscriptText(file.host, readSessionText(file), file.path);
}

/** Whether a host keeps its sessions in a database (no file to check, stat or hash). */
export function keptInDatabase(host: TranscriptHost): boolean {
  return ADAPTERS[host].read !== undefined;
}

/** What `parse` and `activity` read: the file's text, or a database session's rows rendered (throws when unreadable). */
export function readSessionText(file: { host: TranscriptHost; path: string }): string {
  return sessionContent(file).toString();
}

/** What the ledger hashes: the file's bytes, or a database session's rows rendered. */
export function sessionContent(file: { host: TranscriptHost; path: string }): string | Buffer {
  const read = ADAPTERS[file.host].read;
  return read ? read(file.path) : readFileSync(file.path);
}

export function parseTranscriptText(host: TranscriptHost, text: string, path?: string): ParsedTranscript {
  const parsed = ADAPTERS[host].parse(text);
  if (host === "gemini" && !parsed.cwd && path) parsed.cwd = geminiProjectPath(path);
  if (host === "cline" && !parsed.cwd && path) parsed.cwd = clineSessionCwd(path);
  if (host === "kimi" && !parsed.cwd && path) parsed.cwd = kimiSessionCwd(path);
  return parsed;
}
