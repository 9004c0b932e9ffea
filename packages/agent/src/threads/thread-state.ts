/**
 * What Clew remembers about one session's server-side conversation thread (OpenAI Responses with
 * `previous_response_id`). One state per session; calls of a session run one at a time, so the
 * state needs no locking.
 */
export interface ThreadState {
  /** The projection epoch the thread was bootstrapped under (`undefined` when the engine gave none). */
  epoch: string | undefined;
  /** Id of the last response on the thread; `undefined` means there is no thread to continue. */
  lastResponseId: string | undefined;
  /**
   * Model-visible messages the server thread holds: the bootstrapped context, every message
   * appended since, and each reply. Diagnostic; continuation is anchored on `lastResponseId`.
   */
  serverMessageCount: number;
  /** The system prompt the thread was started with; the server keeps it, so a change needs a new thread. */
  systemPrompt: string | undefined;
  /** `provider|baseUrl|model id` of the thread; response ids do not carry over to another endpoint or model. */
  threadKey: string | undefined;
}

/** A state with no thread: the next thread call bootstraps. */
export function createThreadState(): ThreadState {
  return {
    epoch: undefined,
    lastResponseId: undefined,
    serverMessageCount: 0,
    systemPrompt: undefined,
    threadKey: undefined,
  };
}

/** Forgets the thread in place, so the next thread call sends the whole context again. */
export function resetThreadState(state: ThreadState): void {
  Object.assign(state, createThreadState());
}
