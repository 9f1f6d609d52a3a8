/**
 * Opening another tool's SQLite database for reading only (Kilo's, Goose's): never created, never
 * written (`readonly`, and `query_only` besides), a short busy wait, and the tables and columns
 * the reader needs checked first. A database that is missing, busy or locked, or shaped unlike
 * what the reader knows, gives no rows and a reason a person can act on: never an exception.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";

/** Rows, or why there are none. */
export type ForeignRead<T> = { ok: true; value: T } | { ok: false; reason: string };

/** How long a read waits for another process's write to finish before it gives up. */
const BUSY_MS = 250;

/** Tables -> the columns the reader selects from them. */
export type NeededColumns = Record<string, readonly string[]>;

function missingSchema(db: Database, need: NeededColumns): string | undefined {
  for (const [table, columns] of Object.entries(need)) {
    const have = new Set(
      (db.query(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name),
    );
    if (!have.size) return `no ${table} table`;
    const missing = columns.filter((c) => !have.has(c));
    if (missing.length) return `the ${table} table has no ${missing.join(", ")}`;
  }
  return undefined;
}

/**
 * Run `read` on the database at `path`, opened read-only, once `need` is there. `what` names the
 * database in reasons ("Kilo's database").
 */
export function readForeign<T>(
  path: string,
  what: string,
  need: NeededColumns,
  read: (db: Database) => T,
): ForeignRead<T> {
  if (!existsSync(path)) return { ok: false, reason: `${what} is not there (${path})` };
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
    db.exec("PRAGMA query_only = 1");
    const missing = missingSchema(db, need);
    if (missing)
      return {
        ok: false,
        reason: `${what} has a schema Coffer does not know (${missing}); a newer version may have changed it`,
      };
    return { ok: true, value: read(db) };
  } catch (err) {
    const message = (err as Error).message;
    if (/\b(busy|locked)\b/i.test(message))
      return { ok: false, reason: `${what} is busy (${message}); it is read again on the next pass` };
    return { ok: false, reason: `${what} cannot be read (${message})` };
  } finally {
    db?.close();
  }
}
