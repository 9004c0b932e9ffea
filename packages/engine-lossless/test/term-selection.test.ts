import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import { TermSelection } from "../src/store/sqlite/term-selection.js";
import { textRecord } from "./support/search-index.js";
import { recordingPhraseReads } from "./support/term-counts.js";

let directory: string;
let store: SqliteLosslessStore;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-lossless-terms-"));
  store = openSqliteStore(join(directory, "lossless.db"), { backgroundIndexDelayMs: false });
  // 600 messages: "deploy" in every one, "rollback" in a third, "kestrel" in one.
  const records = Array.from({ length: 600 }, (_, index) => {
    const words = [
      "deploy log line",
      index % 3 === 0 ? "rollback" : "steady",
      index === 417 ? "kestrel" : "",
    ];
    return textRecord("s1", index + 1, words.join(" "));
  });
  await store.appendMessages("s1", records);
});

afterEach(async () => {
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

describe("search term selection (sqlite)", () => {
  it("ranks by the rare term when a query mixes it with terms in most messages", async () => {
    const hits = await store.searchMessages("s1", ["deploy", "kestrel", "rollback"], 50);
    expect(hits.map((hit) => hit.key)).toEqual([418]);
  });

  it("still answers a query made only of common terms, by its first two", async () => {
    const hits = await store.searchMessages("s1", ["deploy", "rollback"], 1_000);
    expect(hits).toHaveLength(600);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      // All three reach the cap (200 of 600 messages): which is least common is not counted.
      expect(new TermSelection(database).select(["rollback", "steady", "deploy"])).toEqual([
        "rollback",
        "steady",
      ]);
    } finally {
      database.close();
    }
  });

  it("takes a phrase of common words as common without matching it, unless nothing rarer is asked", async () => {
    await store.searchMessages("s1", ["deploy"], 1); // brings the deferred full-text index up to date
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const phraseReads: string[] = [];
      const selection = new TermSelection(recordingPhraseReads(database, phraseReads));
      expect(selection.selectCounted(["log line", "kestrel"]).map((entry) => entry.term)).toEqual([
        "kestrel",
      ]);
      expect(phraseReads).toEqual([]);
      const common = selection.selectCounted(["log line", "deploy"]);
      expect(common.map((entry) => [entry.term, entry.newestIds?.length])).toEqual([
        ["log line", 200],
        ["deploy", undefined],
      ]);
      // Its newest matches, newest first (600 messages have it).
      expect(common[0]?.newestIds).toEqual(Array.from({ length: 200 }, (_, index) => 600 - index));
      expect(phraseReads).toEqual(['"log line"']);
      // A phrase with a rare word is matched: its matches are few and it ranks.
      expect(selection.selectCounted(["rollback kestrel", "deploy"]).map((entry) => entry.term)).toEqual([
        "rollback kestrel",
      ]);
    } finally {
      database.close();
    }
  });

  it("still finds a rare phrase of common words when nothing else in the query is rare", async () => {
    // Both words are in hundreds of messages; the phrase only in this one.
    await store.appendMessages("s1", [textRecord("s1", 601, "steady rollback at last")]);
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const selection = new TermSelection(database);
      const selected = (terms: string[]) => selection.selectCounted(terms).map((entry) => entry.term);
      // Wherever the phrase stands, and with a word that matches nothing beside it.
      expect(selected(["deploy", "steady", "steady rollback"])).toEqual(["steady rollback"]);
      expect(selected(["steady rollback", "deploy"])).toEqual(["steady rollback"]);
      expect(selected(["steady rollback", "zzqx"])).toEqual(["steady rollback"]);
      // A word that matches nothing does not leave a common one out either.
      expect(selected(["zzqx", "deploy"])).toEqual(["deploy"]);
    } finally {
      database.close();
    }
    const hits = await store.searchMessages("s1", ["deploy", "steady", "steady rollback"], 3, {
      maxRanked: 50,
    });
    expect(hits[0]?.key).toBe(601);
  });

  it("matches at most four phrases of a query, those with the rarest words first", async () => {
    // "deploy zetaN" in N + 1 messages: each phrase matches no more than its rare word does.
    const records = Array.from({ length: 6 }, (_, phrase) =>
      Array.from({ length: phrase + 1 }, () => `deploy zeta${phrase}`),
    ).flat();
    await store.appendMessages(
      "s1",
      records.map((text, index) => textRecord("s1", 601 + index, text)),
    );
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const reads: string[] = [];
      const counts: string[] = [];
      const selection = new TermSelection(recordingPhraseReads(database, reads, counts));
      // Written most common first: the rarest are matched all the same, and kept in query order.
      const phrases = [5, 4, 3, 2, 1, 0].map((phrase) => `deploy zeta${phrase}`);
      const selected = selection.selectCounted(phrases);
      expect(selected.map((entry) => [entry.term, entry.matches])).toEqual([
        ["deploy zeta3", 4],
        ["deploy zeta2", 3],
        ["deploy zeta1", 2],
        ["deploy zeta0", 1],
      ]);
      expect(reads).toEqual([0, 1, 2, 3].map((phrase) => `"deploy zeta${phrase}"`));
      // Each phrase's words are counted from its end back to a rare one: "deploy" never is.
      expect(counts).toEqual([5, 4, 3, 2, 1, 0].map((phrase) => `"zeta${phrase}"`));
      // A phrase with a word no message has matches nothing: it is not matched, nor takes a place.
      reads.length = 0;
      selection.selectCounted(["deploy zzqx", ...phrases]);
      expect(reads).toEqual([0, 1, 2, 3].map((phrase) => `"deploy zeta${phrase}"`));
      // Phrases of common words only, with nothing rarer asked: the first four are matched whole.
      reads.length = 0;
      const common = ["deploy log", "log line", "line steady", "line rollback", "deploy line", "log deploy"];
      expect(selection.selectCounted(common).map((entry) => entry.term)).toEqual(["deploy log", "log line"]);
      expect(reads).toEqual(common.slice(0, 4).map((phrase) => `"${phrase}"`));
    } finally {
      database.close();
    }
  });

  it("tries phrases past those that match nothing, eight at most in all", async () => {
    // "alpha1 deploy omega" once, "omega" in 101 messages: by its last rare word the phrase may
    // match 101, so four phrases that may match one each are tried first; they match nothing.
    await store.appendMessages("s1", [
      textRecord("s1", 601, "alpha1 deploy omega"),
      ...Array.from({ length: 100 }, (_, index) => textRecord("s1", 602 + index, `omega ${index}`)),
      ...Array.from({ length: 8 }, (_, index) => textRecord("s1", 702 + index, `beta${index} alone`)),
    ]);
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const reads: string[] = [];
      const selection = new TermSelection(recordingPhraseReads(database, reads));
      const betas = Array.from({ length: 8 }, (_, index) => `deploy beta${index}`);
      const found = selection.selectCounted(["alpha1 deploy omega", ...betas.slice(0, 4)]);
      expect(found.map((entry) => [entry.term, entry.matches])).toEqual([["alpha1 deploy omega", 1]]);
      expect(
        await store.searchMessages("s1", ["alpha1 deploy omega", ...betas.slice(0, 4)], 5, {
          maxRanked: 200,
        }),
      ).toMatchObject([{ key: 601 }]);
      // Eight phrases matching nothing: the ninth is not tried, nor are phrases of common words,
      // which are not returned either (ranked as words they would be matched after all).
      reads.length = 0;
      expect(selection.selectCounted([...betas, "alpha1 deploy omega", "deploy log"])).toEqual([]);
      expect(reads).toEqual(betas.map((phrase) => `"${phrase}"`));
    } finally {
      database.close();
    }
  });

  it("tries phrases past printable ASCII last, since their words' counts need not bound them", async () => {
    // Decomposed accents: the word split cuts at the marks ("re", "sume"), the tokenizer does not,
    // so "sume" counts 0 while 250 messages have the phrase.
    const accented = ["draft re\u0301sume\u0301", "menu cafe\u0301s", "plan nai\u0308ve", "bread pa\u0303o"];
    await store.appendMessages("s1", [
      ...accented.flatMap((phrase, which) =>
        Array.from({ length: 250 }, (_, index) =>
          textRecord("s1", 601 + which * 250 + index, `x ${phrase} ${index}`),
        ),
      ),
      textRecord("s1", 1601, "deploy kestrel"),
    ]);
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const selected = new TermSelection(database).selectCounted([...accented, "deploy kestrel"]);
      expect(selected.map((entry) => [entry.term, entry.matches])).toEqual([["deploy kestrel", 1]]);
    } finally {
      database.close();
    }
  });

  it("reads a phrase's newest matches even when a kept count fell behind", async () => {
    // Another connection deletes the newest session and its row ids are used again: the counts
    // this store keeps for "zeta" (0, up to row 700) then fall behind.
    const other = openSqliteStore(join(directory, "lossless.db"), { backgroundIndexDelayMs: false });
    try {
      await store.appendMessages(
        "s2",
        Array.from({ length: 100 }, (_, index) => textRecord("s2", index + 1, "other")),
      );
      expect(await store.searchMessages("s2", ["deploy zeta"], 10, { maxRanked: 1_000 })).toEqual([]);
      await other.deleteSession("s2");
      await other.appendMessages(
        "s3",
        Array.from({ length: 100 }, (_, index) => textRecord("s3", index + 1, `deploy zeta ${index}`)),
      );
      await other.searchMessages("s3", ["deploy"], 1);
      // Row ids 601 to 700 again: "zeta" was counted 0, and is counted afresh, alone or in a phrase.
      expect(await store.searchMessages("s3", ["deploy zeta"], 1_000, { maxRanked: 1_000 })).toHaveLength(
        100,
      );
      expect(await store.searchMessages("s3", ["zeta"], 1_000, { maxRanked: 1_000 })).toHaveLength(100);
      await other.appendMessages(
        "s3",
        Array.from({ length: 150 }, (_, index) =>
          textRecord("s3", index + 101, `deploy zeta ${index + 100}`),
        ),
      );
      await other.searchMessages("s3", ["deploy"], 1);
      // 250 matches, counted as 150: more than the cap of 200, so the newest are read after all.
      const hits = await store.searchMessages("s3", ["deploy zeta"], 1_000, { maxRanked: 1_000 });
      expect(hits.map((hit) => hit.key).sort((left, right) => left - right)).toEqual(
        Array.from({ length: 200 }, (_, index) => 51 + index),
      );
    } finally {
      await other.close();
    }
  });

  it("reads a phrase's newest matches when its words' counts may not bound it", async () => {
    // Decomposed accents: the word split cuts "résumé" at its marks, the tokenizer does not, so
    // no message has the word "sume" while 250 have the phrase. The cap here is 200.
    const phrase = "re\u0301sume\u0301 draft";
    await store.appendMessages(
      "s1",
      Array.from({ length: 250 }, (_, index) => textRecord("s1", 601 + index, `my ${phrase} ${index}`)),
    );
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const [entry] = new TermSelection(database).selectCounted([phrase]);
      expect(entry?.newestIds).toEqual(Array.from({ length: 200 }, (_, index) => 850 - index));
    } finally {
      database.close();
    }
  });

  it("finds a word a read-only store counted before its writer indexed it", async () => {
    const writer = openSqliteStore(join(directory, "writer.db"), { backgroundIndexDelayMs: false });
    try {
      await writer.appendMessages("s", [textRecord("s", 1, "deploy log")]);
      await writer.searchMessages("s", ["deploy"], 1);
      await writer.appendMessages("s", [textRecord("s", 2, "a stilt walker"), textRecord("s", 3, "stilt")]);
      const reader = openSqliteStoreReadOnly(join(directory, "writer.db"));
      try {
        // Not indexed yet: the reader finds nothing, and counts "stilt" 0 up to row 3.
        expect(await reader.searchMessages("s", ["stilt"], 10, { maxRanked: 200 })).toEqual([]);
        await writer.searchMessages("s", ["deploy"], 1);
        const hits = await reader.searchMessages("s", ["stilt"], 10, { maxRanked: 200 });
        expect(hits.map((hit) => hit.key).sort()).toEqual([2, 3]);
      } finally {
        await reader.close();
      }
    } finally {
      await writer.close();
    }
  });

  it("counts a word's matches only up to the index's watermark, which it read first", async () => {
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"));
    try {
      // As if a writer had indexed rows 101–600 between the size read and the count: the count
      // must stop at the size, or those rows would be counted again once the size moves on.
      database.prepare("UPDATE index_watermarks SET indexed_to = 100 WHERE name = 'messages'").run();
      const [deploy] = new TermSelection(database).selectCounted(["deploy"]);
      expect(deploy).toMatchObject({ term: "deploy", matches: 100, capped: false });
    } finally {
      database.close();
    }
  });

  it("keeps every term in a store too small for any term to be common", async () => {
    const small = openSqliteStore(join(directory, "small.db"), { backgroundIndexDelayMs: false });
    try {
      await small.appendMessages("s1", [
        textRecord("s1", 1, "deploy now"),
        textRecord("s1", 2, "deploy later"),
      ]);
      expect((await small.searchMessages("s1", ["deploy", "later"], 10)).map((hit) => hit.key)).toEqual([
        2, 1,
      ]);
    } finally {
      await small.close();
    }
  });

  it("matches a long pasted path by its rarest run of four words, and recall_search by the whole path", async () => {
    const path = "/users/ann/src/app/theme/theme.ts:213";
    // "users ann src app" in 250 messages: common (the cap is 200 here), so the whole path is costly.
    await store.appendMessages("s1", [
      ...Array.from({ length: 250 }, (_, index) => textRecord("s1", 601 + index, "users ann src app notes")),
      textRecord("s1", 851, `opened ${path} today`),
      textRecord("s1", 852, "see /opt/other/theme/theme.ts:213 as well"),
      ...Array.from({ length: 60 }, (_, index) =>
        textRecord("s1", 853 + index, `users ann src app kite ${index}`),
      ),
    ]);
    await store.searchMessages("s1", ["deploy"], 1);
    const database = new Database(join(directory, "lossless.db"), { readonly: true });
    try {
      const reads: string[] = [];
      const selection = new TermSelection(recordingPhraseReads(database, reads));
      const [entry] = selection.selectCounted([path]);
      expect(reads).toEqual(['"theme theme ts 213"']);
      expect(entry?.term).toBe(path);
      expect(entry?.newestIds).toEqual([852, 851]);
      // Short phrases, phrases of rare words only, and phrases past printable ASCII (where the
      // tokenizer and the word split may cut differently) are matched whole.
      reads.length = 0;
      const whole = ["src/app/theme.ts", "opened/today/see/as/well", "/users/ann/re\u0301sume\u0301/cv.pdf"];
      for (const term of whole) selection.selectCounted([term, "kestrel"]);
      expect(reads).toEqual(whole.map((term) => `"${term}"`));
      // A run matching more than 50 messages says little: the whole path is matched after it.
      reads.length = 0;
      const [kites] = selection.selectCounted(["/users/ann/src/app/kite"]);
      expect(reads).toEqual([`"ann src app kite"`, `"/users/ann/src/app/kite"`]);
      expect(kites?.newestIds).toEqual(Array.from({ length: 60 }, (_, index) => 912 - index));
      // A path of common words only, with nothing rarer asked, is matched whole: its newest matches
      // are what it finds, and a run would find newer messages about other paths.
      reads.length = 0;
      selection.selectCounted(["/users/ann/src/app/notes"]);
      expect(reads).toEqual(['"/users/ann/src/app/notes"']);
    } finally {
      database.close();
    }
    // The bounded search ranks both; the unbounded one (recall_search) matches the path as written.
    const bounded = await store.searchMessages("s1", [path], 10, { maxRanked: 200 });
    expect(bounded.map((hit) => hit.key).sort()).toEqual([851, 852]);
    expect((await store.searchMessages("s1", [path], 10)).map((hit) => hit.key)).toEqual([851]);
  });
});
