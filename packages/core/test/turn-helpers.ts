/**
 * Turn helpers shared by the host lifecycle tests: hosts with one test engine selected (guarded)
 * or as the default (unguarded), one-call turns, and a two-step tool-loop model.
 */
import type {
  ClewConfig,
  ContextEngineHost,
  HostSession,
  ModelStepFunction,
  RunTurnParams,
} from "../src/index.js";
import {
  defineEngine,
  type EngineParts,
  registerEngine,
  slotConfig,
  toolCallMessage,
  toolResultMessage,
} from "./fixtures.js";
import { assistantMessage, createTestHost, EchoModel, testModel } from "./support.js";

export const SYSTEM = "You are a test.";

export function engineHost(parts: EngineParts, options: { config?: ClewConfig } = {}) {
  const context = createTestHost({ config: options.config ?? slotConfig("acme") });
  registerEngine(context.registry, "acme", defineEngine("acme", parts));
  return context;
}

/** A host whose default (unguarded) engine is the given one: host-level fallbacks become visible. */
export function defaultEngineHost(parts: EngineParts) {
  const context = createTestHost();
  context.registry.registerContextEngine("legacy", async () => defineEngine("legacy", parts), {
    owner: "core",
    allowSameOwnerRefresh: true,
  });
  return context;
}

export function turn(host: ContextEngineHost, session: HostSession, overrides: Partial<RunTurnParams> = {}) {
  return host.runTurn({
    session,
    prompt: "hello",
    systemPrompt: SYSTEM,
    model: testModel,
    callModel: new EchoModel().step,
    ...overrides,
  });
}

/** A model that asks for one tool on its first call and answers on the second. */
export function toolLoopModel() {
  const requests: Parameters<ModelStepFunction>[0][] = [];
  const step: ModelStepFunction = async (request) => {
    requests.push({ ...request, messages: [...request.messages] });
    if (request.step === 0) {
      return {
        messages: [toolCallMessage("call-1", "search"), toolResultMessage("call-1", "search", "found")],
        done: false,
      };
    }
    return { messages: [assistantMessage("done")], done: true };
  };
  return { requests, step };
}
