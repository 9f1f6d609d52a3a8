/**
 * Read a repository's history from the files under `.git` — never by spawning git, so the hook
 * path can use it: the commit HEAD points at, and how many commits were made since a moment
 * (loose objects, and pack files including deltified objects). Anything unreadable gives
 * `undefined`, never an exception: callers fall back to wall-clock wording.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { readRegularFile, readSmallText } from "../lib/small-file";

/**
 * zlib-wrapped inflate (git's object format) with Bun's native zlib: importing node:zlib pulls in
 * node:stream and costs the hook path ~10 ms. Data after the end of the stream (the next object in
 * a pack) is ignored; a truncated stream throws.
 */
function inflateSync(bytes: Uint8Array): Buffer {
  const out = Bun.inflateSync(bytes as Uint8Array<ArrayBuffer>, { windowBits: 15 });
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Refs, HEAD, packed-refs: regular files of bounded size only (a FIFO or /dev/zero reads as nothing). */
function readText(p: string): string | undefined {
  return readSmallText(p, 64 * 1024 * 1024);
}

/** Object and index files: regular files only, bounded. */
const MAX_BINARY = 1024 * 1024 * 1024;

/** The shared `.git` of a (possibly linked) worktree's git dir. */
export function commonGitDir(gitDir: string): string {
  const common = readText(join(gitDir, "commondir"))?.trim();
  return common ? resolve(gitDir, common) : gitDir;
}

/** The commit id HEAD resolves to (loose ref or packed-refs), or undefined. */
export function headCommit(gitDir: string): string | undefined {
  const head = readText(join(gitDir, "HEAD"))?.trim();
  if (!head) return undefined;
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref:\s*(.+)$/.exec(head)?.[1]?.trim();
  if (!ref) return undefined;
  const common = commonGitDir(gitDir);
  for (const dir of [gitDir, common]) {
    const loose = readText(join(dir, ref))?.trim();
    if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  }
  for (const line of (readText(join(common, "packed-refs")) ?? "").split("\n")) {
    const m = /^([0-9a-f]{40}) (.+)$/.exec(line.trim());
    if (m && m[2] === ref) return m[1];
  }
  return undefined;
}

type Pack = { idx: Buffer; pack: string; count: number };

/** Object reader for one repository: loose objects first, then every pack. */
class ObjectReader {
  private packs: Pack[] | undefined;
  constructor(private readonly objects: string) {}

  read(sha: string, depth = 0): { type: number; data: Buffer } | undefined {
    if (depth > 50) return undefined;
    const loose = join(this.objects, sha.slice(0, 2), sha.slice(2));
    if (existsSync(loose)) {
      const bytes = readRegularFile(loose, MAX_BINARY);
      if (!bytes) return undefined;
      const raw = inflateSync(bytes);
      const nul = raw.indexOf(0);
      const kind = raw.subarray(0, raw.indexOf(32)).toString();
      const type = { commit: 1, tree: 2, blob: 3, tag: 4 }[kind] ?? 0;
      return { type, data: raw.subarray(nul + 1) };
    }
    for (const p of this.loadPacks()) {
      const off = this.find(p, sha);
      if (off !== undefined) return this.readPacked(p, off, depth);
    }
    return undefined;
  }

  private loadPacks(): Pack[] {
    if (this.packs) return this.packs;
    this.packs = [];
    const dir = join(this.objects, "pack");
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(".idx"));
    } catch {}
    for (const n of names) {
      // A huge repository's pack index costs more than the answer is worth: unknown instead.
      if (statSync(join(dir, n)).size > 64 * 1024 * 1024) throw new Error("pack index too large");
      const idx = readRegularFile(join(dir, n), MAX_BINARY);
      if (!idx || idx.length < 8 + 256 * 4) continue;
      // v2 only: "\xfftOc", version 2, 256-entry fan-out.
      if (idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) continue;
      this.packs.push({ idx, pack: join(dir, n.replace(/\.idx$/, ".pack")), count: idx.readUInt32BE(8 + 255 * 4) });
    }
    return this.packs;
  }

  private find(p: Pack, sha: string): number | undefined {
    const want = Buffer.from(sha, "hex");
    const first = want[0]!;
    let lo = first === 0 ? 0 : p.idx.readUInt32BE(8 + (first - 1) * 4);
    let hi = p.idx.readUInt32BE(8 + first * 4);
    const names = 8 + 256 * 4;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const cmp = want.compare(p.idx, names + mid * 20, names + mid * 20 + 20);
      if (cmp === 0) {
        const offs = names + p.count * 24;
        const o = p.idx.readUInt32BE(offs + mid * 4);
        if (!(o & 0x80000000)) return o;
        const big = offs + p.count * 4 + (o & 0x7fffffff) * 8;
        return Number(p.idx.readBigUInt64BE(big));
      }
      if (cmp < 0) hi = mid;
      else lo = mid + 1;
    }
    return undefined;
  }

  private readPacked(p: Pack, offset: number, depth: number): { type: number; data: Buffer } | undefined {
    const fd = openSync(p.pack, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return undefined;
      const size = st.size;
      let want = 64 * 1024;
      for (;;) {
        const len = Math.min(want, size - offset);
        const buf = Buffer.alloc(len);
        readSync(fd, buf, 0, len, offset);
        let i = 0;
        let c = buf[i++]!;
        const type = (c >> 4) & 7;
        while (c & 0x80) c = buf[i++]!;
        let baseOffset: number | undefined;
        let baseSha: string | undefined;
        if (type === 6) {
          c = buf[i++]!;
          let o = c & 0x7f;
          while (c & 0x80) {
            c = buf[i++]!;
            o = ((o + 1) << 7) | (c & 0x7f);
          }
          baseOffset = offset - o;
        } else if (type === 7) {
          baseSha = buf.subarray(i, i + 20).toString("hex");
          i += 20;
        }
        let data: Buffer;
        try {
          data = inflateSync(buf.subarray(i));
        } catch (err) {
          if (len < size - offset && want < 64 * 1024 * 1024) {
            want *= 4; // the compressed object is longer than what was read
            continue;
          }
          throw err;
        }
        if (type >= 1 && type <= 4) return { type, data };
        const base =
          baseOffset !== undefined ? this.readPacked(p, baseOffset, depth + 1) : this.read(baseSha!, depth + 1);
        return base && { type: base.type, data: applyDelta(base.data, data) };
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Git's delta format: sizes, then copy-from-base and insert instructions. */
function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const varint = () => {
    let n = 0;
    let shift = 0;
    let c: number;
    do {
      c = delta[i++]!;
      n |= (c & 0x7f) << shift;
      shift += 7;
    } while (c & 0x80);
    return n;
  };
  varint(); // base size
  const out = Buffer.alloc(varint());
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) off |= delta[i++]! << (8 * b);
      for (let b = 0; b < 3; b++) if (op & (1 << (4 + b))) len |= delta[i++]! << (8 * b);
      if (len === 0) len = 0x10000;
      base.copy(out, o, off >>> 0, (off >>> 0) + len);
      o += len;
    } else if (op) {
      delta.copy(out, o, i, i + op);
      o += op;
      i += op;
    }
  }
  return out;
}

function parseCommit(data: Buffer): { parents: string[]; time: number } {
  const head = data.toString("utf8", 0, Math.min(data.length, 4096)).split("\n\n")[0]!;
  const parents: string[] = [];
  let time = 0;
  for (const line of head.split("\n")) {
    if (line.startsWith("parent ")) parents.push(line.slice(7, 47));
    else if (line.startsWith("committer ")) time = Number(/ (\d+) [+-]\d{4}$/.exec(line)?.[1] ?? 0);
  }
  return { parents, time };
}

/** Whether HEAD's branch ref (loose, else packed-refs) was written after `since`; undefined when detached or unknown. */
function refWrittenSince(gitDir: string, since: number): boolean | undefined {
  const ref = /^ref:\s*(.+)$/.exec(readText(join(gitDir, "HEAD"))?.trim() ?? "")?.[1]?.trim();
  if (!ref) return undefined;
  const common = commonGitDir(gitDir);
  for (const file of [join(gitDir, ref), join(common, ref), join(common, "packed-refs")]) {
    try {
      const st = statSync(file);
      if (st.isFile()) return st.mtimeMs > since;
    } catch {}
  }
  return undefined;
}

/**
 * Commits reachable from HEAD made after `since` (epoch ms), counted up to `max`; `undefined`
 * when HEAD or an object cannot be read. Walking stops at commits older than `since`.
 */
export function commitsSince(gitDir: string, since: number, max = 100): number | undefined {
  try {
    // Fast path: a branch whose ref file was not written since then has no new commits.
    if (refWrittenSince(gitDir, since) === false) return 0;
    const head = headCommit(gitDir);
    if (!head) return /^ref:\s*\S/.test(readText(join(gitDir, "HEAD")) ?? "") ? 0 : undefined; // unborn: no commits yet
    const reader = new ObjectReader(join(commonGitDir(gitDir), "objects"));
    const seen = new Set<string>();
    const todo = [head];
    let count = 0;
    while (todo.length && count < max) {
      const sha = todo.pop()!;
      if (seen.has(sha)) continue;
      seen.add(sha);
      const obj = reader.read(sha);
      if (obj?.type !== 1) return undefined;
      const c = parseCommit(obj.data);
      if (c.time * 1000 <= since) continue;
      count++;
      todo.push(...c.parents);
    }
    return count;
  } catch {
    return undefined;
  }
}

/**
 * Each entry of `.git/index` (versions 2 and 3): its path and the blob id staged for it. false
 * when the index cannot be read or holds more than `maxFiles` entries.
 */
function eachIndexEntry(gitDir: string, maxFiles: number, fn: (path: string, blob: string) => void): boolean {
  const idx = readRegularFile(join(gitDir, "index"), MAX_BINARY);
  if (idx?.toString("latin1", 0, 4) !== "DIRC") return false;
  const version = idx.readUInt32BE(4);
  const count = idx.readUInt32BE(8);
  if ((version !== 2 && version !== 3) || count > maxFiles) return false;
  let off = 12;
  for (let n = 0; n < count; n++) {
    const flags = idx.readUInt16BE(off + 60);
    const p = off + 62 + (version === 3 && flags & 0x4000 ? 2 : 0);
    const end = idx.indexOf(0, p);
    fn(idx.toString("utf8", p, end), idx.toString("hex", off + 40, off + 60));
    // entries are NUL-padded to a multiple of 8 bytes
    off = off + Math.ceil((end - off + 1) / 8) * 8;
  }
  return true;
}

/**
 * Tracked files (from `.git/index`, versions 2 and 3) whose modification time is after `since`
 * (epoch ms): what changed in the worktree since then, committed or not. `undefined` when the
 * index cannot be read or holds more than `maxFiles` entries (a stat per file is the cost).
 */
export function filesChangedSince(
  gitDir: string,
  worktree: string,
  since: number,
  maxFiles = 20000,
): string[] | undefined {
  try {
    const changed: string[] = [];
    const ok = eachIndexEntry(gitDir, maxFiles, (path) => {
      try {
        if (statSync(join(worktree, path)).mtimeMs > since) changed.push(path);
      } catch {
        changed.push(path); // deleted since
      }
    });
    return ok ? changed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which of `files` (paths relative to the worktree) git would call untracked or modified: not in
 * `.git/index`, or their content is not the blob staged for them (git's own blob id, computed
 * here). Read from the index file, never by spawning git. `undefined` when the index is unreadable.
 */
export function notInIndex(gitDir: string, worktree: string, files: string[]): Set<string> | undefined {
  try {
    const wanted = new Set(files);
    const staged = new Map<string, string>();
    if (!eachIndexEntry(gitDir, 200_000, (path, blob) => wanted.has(path) && staged.set(path, blob))) return undefined;
    const out = new Set<string>();
    for (const f of files) {
      const blob = staged.get(f);
      const bytes = blob ? readRegularFile(join(worktree, f), MAX_BINARY) : undefined;
      if (!blob || !bytes) {
        out.add(f);
        continue;
      }
      const h = new Bun.CryptoHasher("sha1");
      h.update(`blob ${bytes.length}\0`);
      h.update(bytes);
      if (h.digest("hex") !== blob) out.add(f);
    }
    return out;
  } catch {
    return undefined;
  }
}

export type RepoChanges = {
  /** Commits on the current branch made since then; undefined when the history cannot be read. */
  commits?: number;
  /** Tracked files modified since then (committed or not); undefined when not checked or unreadable. */
  files?: number;
};

/**
 * How far a worktree moved on since `since` (epoch ms), from `.git` files only. `files: true`
 * also stats every tracked file (the CLI can afford it; the hook path asks for commits only).
 */
export function repoChangesSince(
  repo: { gitDir: string; worktree: string },
  since: number,
  opts: { files?: boolean } = {},
): RepoChanges {
  return {
    commits: commitsSince(repo.gitDir, since),
    files: opts.files ? filesChangedSince(repo.gitDir, repo.worktree, since)?.length : undefined,
  };
}

/** "40 s", "12 min", "3 h", "2 d": how long ago, for people. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** `[user] name = ...` of one git config file's text (the last one wins, as in git). */
export function userNameFromGitConfig(text: string): string | undefined {
  let inUser = false;
  let name: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inUser = /^\[\s*user\s*\]/i.test(line);
      continue;
    }
    const m = inUser ? /^name\s*=\s*(.*)$/i.exec(line) : null;
    if (m) name = m[1]!.replace(/^"(.*)"$/, "$1").trim() || undefined;
  }
  return name;
}

/**
 * The git user name a commit in this repository would carry, from config files only (the
 * repository's, then `~/.gitconfig`, then `$XDG_CONFIG_HOME/git/config`); undefined when none sets it.
 */
export function gitUserName(gitDir: string, home: string | undefined): string | undefined {
  const files = [join(commonGitDir(gitDir), "config")];
  if (home) {
    files.push(join(home, ".gitconfig"));
    files.push(join(process.env.XDG_CONFIG_HOME || join(home, ".config"), "git", "config"));
  }
  // the most specific file that sets it wins, as in git (repository, ~/.gitconfig, then XDG)
  for (const f of files) {
    const name = userNameFromGitConfig(readText(f) ?? "");
    if (name) return name;
  }
  return undefined;
}
