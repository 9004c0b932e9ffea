/**
 * Messages that break naive storage, for the lossless round-trip (M3): unicode of every kind, a
 * tool result over 100 KB, a signed thinking block, an image as base64, and an empty tool result.
 */
import type { SeededRandom } from "../random.js";
import type { AgentSessionWriter } from "./session-writer.js";
import { codeText } from "./tool-output.js";

// A 1×1 transparent PNG: small, valid, and base64 like any screenshot a user pastes.
const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** Appends the edge-case turns; returns the source ids of the messages that carry each case. */
export function writeEdgeTurns(
  writer: AgentSessionWriter,
  random: SeededRandom,
  options: { hugeToolResultBytes: number },
): Record<string, string> {
  const ids: Record<string, string> = {};
  ids.unicode = writer.startTurn(
    "Bitte prüfe die Datei docs/日本語.md — emoji 🧵🚀👩🏽‍💻, Arabic مرحبا بالعالم, Hebrew שלום, combining é, zero-width\u200bjoiner, and a lone surrogate-free astral 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.",
  );
  ids.thinking = writer.toolStep(
    "read",
    { path: "docs/日本語.md" },
    [{ type: "text", text: "# ドキュメント\n\nÜberschrift — “quotes” and ‘apostrophes’ … ✓" }],
    {
      type: "thinking",
      thinking: "The user wants the unicode file checked; read it first, then answer in kind.",
      thinkingSignature: "EqQBCkgIARABGAIiQL7x9Jc0dGhpbmtpbmctc2lnbmF0dXJlLWJlbmNo+/=",
    },
  );
  ids.image = writer.toolStep("screenshot", { url: "http://localhost:3000" }, [
    { type: "text", text: "Screenshot taken." },
    { type: "image", data: PNG_1X1, mimeType: "image/png" },
  ]);
  ids.empty = writer.toolStep("bash", { command: "touch build/.keep" }, []);
  writer.answer(
    "The file renders fine, the screenshot shows the page, and the touch command printed nothing.",
  );
  writer.startTurn("Read the generated bundle in dist/bundle.js so we can see why it is so large.");
  ids.huge = writer.toolStep("read", { path: "dist/bundle.js" }, [
    { type: "text", text: codeText(random, options.hugeToolResultBytes) },
  ]);
  writer.answer("The bundle inlines every handler; splitting it by module would cut it to a fraction.");
  return ids;
}
