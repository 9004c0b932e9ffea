import type Database from "better-sqlite3";

/**
 * `database`, recording in `reads` the MATCH expression of every read of phrase match ids (the
 * costly query that term selection avoids or narrows), and in `counts` that of every count.
 */
export function recordingPhraseReads(
  database: Database.Database,
  reads: string[],
  counts: string[] = [],
): Database.Database {
  return new Proxy(database, {
    get(target, property) {
      if (property !== "prepare") return Reflect.get(target, property, target);
      return (sql: string) => {
        const statement = target.prepare(sql);
        // Either order: newest first, or every match when fewer than the cap.
        const phraseRead = sql.startsWith("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?");
        const count = sql.includes("count(*)") && sql.includes("messages_fts MATCH ?");
        if (!phraseRead && !count) return statement;
        const method = phraseRead ? "all" : "get";
        const original = statement[method].bind(statement);
        return Object.assign(statement, {
          [method]: (...args: unknown[]) => {
            (phraseRead ? reads : counts).push(String(args[0]));
            return original(...args);
          },
        });
      };
    },
  });
}
