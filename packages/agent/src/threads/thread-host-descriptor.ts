import { type ContextEngineHostDescriptor, embeddedHostDescriptor } from "@clew/core";
import { THREAD_PROJECTION_APIS } from "./thread-projection.js";

export interface ThreadHostDescriptorOptions {
  /** Whether the host offers engines a model call (`runtime-llm-complete`). Default false. */
  llmComplete?: boolean;
  /**
   * The API of the model the host calls. When given and its server keeps no threads, the
   * descriptor is the embedded one: claiming the capability there would let an engine that
   * requires thread projection run on a host that projects every turn.
   */
  api?: string;
}

/**
 * Clew's embedded runner whose model call goes through `createThreadProjectingCallModel`: every
 * embedded capability plus `thread-bootstrap-projection`.
 */
export function threadHostDescriptor(options: ThreadHostDescriptorOptions = {}): ContextEngineHostDescriptor {
  const embedded = embeddedHostDescriptor({ llmComplete: options.llmComplete ?? false });
  if (options.api !== undefined && !THREAD_PROJECTION_APIS.includes(options.api)) return embedded;
  return {
    id: "clew-embedded-threads",
    label: "Clew embedded runner with provider threads",
    capabilities: [...embedded.capabilities, "thread-bootstrap-projection"],
  };
}
