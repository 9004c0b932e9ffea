import type { SessionRuntimeCompactor } from "../host/host-options.js";
import { TranscriptHostSession } from "../sessions/transcript-host-session.js";
import { compactTranscript, type SummaryCompactionOptions } from "./summary-compaction.js";

/**
 * The runtime compaction `delegateCompactionToRuntime` reaches for sessions stored as
 * transcripts: summary compaction with the given summarizer and settings.
 */
export function createSummaryRuntimeCompactor(options: SummaryCompactionOptions): SessionRuntimeCompactor {
  return async (request, session) => {
    if (!(session instanceof TranscriptHostSession)) {
      return {
        ok: false,
        compacted: false,
        reason: "summary compaction needs a session stored as a transcript",
      };
    }
    const compactionRequest: Parameters<typeof compactTranscript>[1] = {};
    if (request.customInstructions !== undefined)
      compactionRequest.customInstructions = request.customInstructions;
    if (request.tokenBudget !== undefined) compactionRequest.tokenBudget = request.tokenBudget;
    if (request.abortSignal !== undefined) compactionRequest.signal = request.abortSignal;
    return compactTranscript(session.transcript, compactionRequest, options);
  };
}
