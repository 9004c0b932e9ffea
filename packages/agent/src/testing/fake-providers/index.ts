export { type BreakpointCache, LOOKBACK_BLOCKS, withBreakpointCache } from "./breakpoint-cache.js";
export { scriptedReplies, startFakeProvider } from "./fake-provider.js";
export { type PrefixCache, PromptPrefixCache, promptUnitTokens, withPrefixCache } from "./prefix-cache.js";
export type {
  FakeProtocol,
  FakeProvider,
  FakeProviderOptions,
  FakeReply,
  FakeScript,
  FakeToolCall,
  FakeUsage,
  RecordedRequest,
} from "./types.js";
