import { describe, expect, it } from "vitest";
import { extractIdentifiers, extractIdentifiersFromMessages } from "../../src/index.js";
import { assistantMessage, userMessage } from "../support.js";
import { bashExecutionMessage, toolCallMessage, toolResultMessage } from "./session-fixtures.js";

const TOOL_OUTPUT = `$ npm test
> @clew/core@0.1.0 test
FAIL packages/core/test/store.test.ts > opens the store
Error: connect ECONNREFUSED 127.0.0.1:5432
    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)
    at /home/ci/work/main/node_modules/pg/lib/client.js:132:7
Request id 9b2f6c1e-4a7d-4f3b-8e2a-0c5d7e9f1a2b, trace 3f9a2c7d81e4b6a0
Retrying https://api.example.com/v1/sessions?limit=20 ... HTTP 503 after 250ms (attempt 3, timeout 30s)
Set DATABASE_URL or PGHOST_ADDR; see ~/.config/clew/config.json and C:\\Users\\ci\\clew.ini.
TypeScript: error TS2345 in ./src/host/run-turn.ts(42,7). Memory 1.5 GiB, disk 92 %, upload 128 MB.
Node v20.19.4, npm 10.8.2. Tool call toolu_01Kae6sJBexjQUHEpDA9f5Uh. Run \`npx vitest run packages/core\` to reproduce.`;

describe("extractIdentifiers", () => {
  it("finds every kind of identifier in a realistic tool output, in order", () => {
    expect(extractIdentifiers(TOOL_OUTPUT)).toEqual([
      "@clew/core@0.1.0",
      "packages/core/test/store.test.ts",
      "ECONNREFUSED",
      "127.0.0.1:5432",
      "/home/ci/work/main/node_modules/pg/lib/client.js",
      "9b2f6c1e-4a7d-4f3b-8e2a-0c5d7e9f1a2b",
      "3f9a2c7d81e4b6a0",
      "https://api.example.com/v1/sessions?limit=20",
      "HTTP 503",
      "250ms",
      "30s",
      "DATABASE_URL",
      "PGHOST_ADDR",
      "~/.config/clew/config.json",
      "C:\\Users\\ci\\clew.ini",
      "TS2345",
      "./src/host/run-turn.ts",
      "1.5 GiB",
      "92 %",
      "128 MB",
      "v20.19.4",
      "10.8.2",
      "toolu_01Kae6sJBexjQUHEpDA9f5Uh",
      "npx vitest run packages/core",
    ]);
  });

  it.each([
    [
      "a git hash",
      "fixed in commit 83378aad7e74a0e2bb8f37c007a9685fb4609d8a today",
      "83378aad7e74a0e2bb8f37c007a9685fb4609d8a",
    ],
    ["a short hash", "see 3f2a9c1 for details", "3f2a9c1"],
    [
      "a URL with balanced parentheses",
      "(see https://en.wikipedia.org/wiki/Foo_(bar))",
      "https://en.wikipedia.org/wiki/Foo_(bar)",
    ],
    ["a relative path at a sentence end", "I changed src/app.ts.", "src/app.ts"],
    ["a scoped package", "install @mariozechner/pi-ai first", "@mariozechner/pi-ai"],
    ["localhost with a port", "listening on localhost:3000, ready", "localhost:3000"],
    ["an IPv4 address with CIDR", "allow 10.0.0.0/8 only", "10.0.0.0/8"],
    ["an ERR_ code", "threw ERR_MODULE_NOT_FOUND.", "ERR_MODULE_NOT_FOUND"],
    ["an E-number error code", "rustc said E0308", "E0308"],
    ["an HTTP status with reason", "got 404 Not Found from the API", "404 Not Found"],
    ["a status code", "status 429 again", "status 429"],
    ["a pre-release version", "upgrade to 2.0.0-beta.2 now", "2.0.0-beta.2"],
    ["a glued unit", "took 1.25s total", "1.25s"],
    ["a thousands-separated count", "keep 20,000 tokens", "20,000 tokens"],
    ["a needle code", "the deploy key is NDL-7K2M9QXA.", "NDL-7K2M9QXA"],
    ["an OpenAI call id", "result for call_Xy12ab34", "call_Xy12ab34"],
  ])("finds %s", (_kind, text, expected) => {
    expect(extractIdentifiers(text)).toContain(expected);
  });

  it.each([
    ["and/or and read/write in prose", "you can read and/or write"],
    ["an all-letter hex word", "the deadbeef placeholder"],
    ["an all-digit number", "there were 1234567 rows"],
    ["an invalid IP", "value 999.12.1.1 here"],
    ["plain sentences", "We decided to keep the old behaviour for now."],
    ["a number without a unit", "it returned 42 items"],
  ])("ignores %s", (_kind, text) => {
    expect(extractIdentifiers(text)).toEqual([]);
  });

  it("deduplicates and keeps first-appearance order", () => {
    expect(extractIdentifiers("b/c.ts then a/b.ts then b/c.ts, and a/b.ts")).toEqual(["b/c.ts", "a/b.ts"]);
  });

  it("does not list a path again inside the URL that contains it", () => {
    expect(extractIdentifiers("clone https://github.com/badlogic/pi-mono/tree/main/packages")).toEqual([
      "https://github.com/badlogic/pi-mono/tree/main/packages",
    ]);
  });

  it("answers an empty list for empty text", () => {
    expect(extractIdentifiers("")).toEqual([]);
  });
});

describe("extractIdentifiersFromMessages", () => {
  it("reads user and assistant text, tool-call arguments, tool results and bash executions", () => {
    const messages = [
      userMessage("please fix /srv/app/main.go"),
      toolCallMessage("edit", { path: "C:\\repo\\src\\lib.rs", oldText: "v1.2.3", newText: "v1.2.4" }),
      toolResultMessage("edit", "failed: ENOENT"),
      bashExecutionMessage("curl http://localhost:8080/health", "HTTP 502 after 30s"),
      assistantMessage("Decided to pin v1.2.4."),
    ];
    expect(extractIdentifiersFromMessages(messages)).toEqual([
      "/srv/app/main.go",
      "C:\\repo\\src\\lib.rs",
      "v1.2.3",
      "v1.2.4",
      "ENOENT",
      "http://localhost:8080/health",
      "HTTP 502",
      "30s",
    ]);
  });
});
