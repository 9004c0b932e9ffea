/**
 * Opening an agent's store only to read it, next to a running gateway: a WAL reader never blocks
 * the writer and is never blocked by it. Nothing is migrated or written (background indexing is
 * off), so a store whose schema this code cannot read as it is gets refused rather than changed.
 */
import Database from "better-sqlite3";
import { LosslessStoreError } from "../../errors.js";
import { OLDEST_READABLE_VERSION, SCHEMA_VERSION } from "./schema.js";
import { SqliteLosslessStore } from "./sqlite-store.js";

/**
 * The store at `path`, read-only. Throws `LosslessStoreError` (operation `open`) when the file
 * does not exist, is not a database, or has a schema version outside `OLDEST_READABLE_VERSION` to
 * `SCHEMA_VERSION` (an older one is migrated when the engine next opens it for writing).
 */
export function openSqliteStoreReadOnly(path: string): SqliteLosslessStore {
  let database: Database.Database | undefined;
  try {
    database = new Database(path, { readonly: true, fileMustExist: true });
    database.pragma("busy_timeout = 5000");
    const version = Number(database.pragma("user_version", { simple: true }));
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `schema version ${version} is newer than this code reads (${OLDEST_READABLE_VERSION}–${SCHEMA_VERSION}); update Clew to read it`,
      );
    }
    if (version < OLDEST_READABLE_VERSION) {
      throw new Error(
        `schema version ${version}, this code reads ${OLDEST_READABLE_VERSION}–${SCHEMA_VERSION}; start the agent (or run a command that writes, such as clew lossless vacuum) to migrate it`,
      );
    }
    return new SqliteLosslessStore(database, path, Date.now, false);
  } catch (error) {
    database?.close();
    throw new LosslessStoreError("open", path, error);
  }
}
