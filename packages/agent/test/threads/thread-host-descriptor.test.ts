import {
  assertContextEngineHostSupport,
  ContextEngineHostUnsupportedError,
  type ContextEngineInfo,
  embeddedHostDescriptor,
} from "@clew/core";
import { describe, expect, it } from "vitest";
import { threadHostDescriptor } from "../../src/threads/thread-host-descriptor.js";

const THREAD_ENGINE: ContextEngineInfo = {
  id: "threaded",
  name: "Threaded engine",
  hostRequirements: {
    "agent-run": {
      requiredCapabilities: ["assemble-before-prompt", "thread-bootstrap-projection"],
      unsupportedMessage: "Use a model on the OpenAI Responses API.",
    },
  },
};

describe("threadHostDescriptor", () => {
  it("has every embedded capability plus thread-bootstrap-projection", () => {
    const descriptor = threadHostDescriptor({ llmComplete: true });
    expect(descriptor.capabilities).toEqual([
      ...embeddedHostDescriptor({ llmComplete: true }).capabilities,
      "thread-bootstrap-projection",
    ]);
    expect(() => assertContextEngineHostSupport(THREAD_ENGINE, "agent-run", descriptor)).not.toThrow();
  });

  it("claims no thread projection for a model API without server threads", () => {
    const descriptor = threadHostDescriptor({ api: "anthropic-messages" });
    expect(descriptor).toEqual(embeddedHostDescriptor({ llmComplete: false }));
    expect(() => assertContextEngineHostSupport(THREAD_ENGINE, "agent-run", descriptor)).toThrow(
      ContextEngineHostUnsupportedError,
    );
    expect(threadHostDescriptor({ api: "openai-responses" }).capabilities).toContain(
      "thread-bootstrap-projection",
    );
  });
});
