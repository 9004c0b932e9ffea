export { scriptedReplies, startFakeProvider } from "./fake-provider.js";
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
