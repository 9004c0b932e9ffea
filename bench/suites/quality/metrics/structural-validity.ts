/**
 * M7, structural validity of a model request: every tool result answers a tool call sent before it,
 * every tool call is answered, the first message is a user message, an assistant never follows an
 * assistant, a tool result only follows an assistant or another tool result, and the fresh tail is
 * raw: the turn's prompt is in the request unchanged, and the request ends with the unfinished tool
 * exchange (the last step's call and results) or, before the first step, with the prompt.
 *
 * Assistant messages that ended in `error` or `aborted` are left out first: providers skip them
 * when they send history (`isUnfinished` in core), so their calls need no results.
 */
import { type AgentMessage, isAssistantMessage, isToolResultMessage, isUnfinished } from "@clew/core";
import { canonicalJson } from "../../../metrics/message-hash.js";

export type ViolationKind =
  | "orphan-tool-result"
  | "unanswered-tool-call"
  | "first-role"
  | "role-order"
  | "fresh-tail";

export interface StructuralViolation {
  kind: ViolationKind;
  /** Index of the offending message in the request. */
  index: number;
  detail: string;
}

/** The turn in progress: its prompt, and the messages of its last step (empty before the first). */
export interface FreshTail {
  prompt: AgentMessage;
  unfinished: readonly AgentMessage[];
}

/** Violations of `messages` (indexes refer to it after unfinished assistant messages are left out). */
export function checkStructure(messages: readonly AgentMessage[], tail: FreshTail): StructuralViolation[] {
  const sent = messages.filter((message) => !(isAssistantMessage(message) && isUnfinished(message)));
  return [...checkToolPairs(sent), ...checkRoles(sent), ...checkFreshTail(messages, tail)];
}

function checkToolPairs(messages: readonly AgentMessage[]): StructuralViolation[] {
  const violations: StructuralViolation[] = [];
  const called = new Set<string>();
  const answered = new Set<string>();
  messages.forEach((message, index) => {
    if (isAssistantMessage(message)) {
      for (const block of message.content) if (block.type === "toolCall") called.add(block.id);
    } else if (isToolResultMessage(message)) {
      if (!called.has(message.toolCallId))
        violations.push({ kind: "orphan-tool-result", index, detail: message.toolCallId });
      answered.add(message.toolCallId);
    }
  });
  messages.forEach((message, index) => {
    if (!isAssistantMessage(message)) return;
    for (const block of message.content) {
      if (block.type === "toolCall" && !answered.has(block.id))
        violations.push({ kind: "unanswered-tool-call", index, detail: block.id });
    }
  });
  return violations;
}

function checkRoles(messages: readonly AgentMessage[]): StructuralViolation[] {
  const violations: StructuralViolation[] = [];
  const first = messages[0];
  if (first !== undefined && roleOf(first) !== "user")
    violations.push({ kind: "first-role", index: 0, detail: roleOf(first) });
  for (let index = 1; index < messages.length; index++) {
    const previous = roleOf(messages[index - 1] as AgentMessage);
    const current = roleOf(messages[index] as AgentMessage);
    const badAssistant = current === "assistant" && previous === "assistant";
    const badResult = current === "toolResult" && previous !== "assistant" && previous !== "toolResult";
    if (badAssistant || badResult)
      violations.push({ kind: "role-order", index, detail: `${current} after ${previous}` });
  }
  return violations;
}

function checkFreshTail(messages: readonly AgentMessage[], tail: FreshTail): StructuralViolation[] {
  const end = tail.unfinished.length === 0 ? [tail.prompt] : tail.unfinished;
  const offset = messages.length - end.length;
  const endIntact =
    offset >= 0 &&
    end.every((message, index) => canonicalJson(messages[offset + index]) === canonicalJson(message));
  const prompt = canonicalJson(tail.prompt);
  const violations: StructuralViolation[] = [];
  if (!endIntact) {
    const detail =
      tail.unfinished.length === 0 ? "the prompt is not last" : "the unfinished tool exchange is not last";
    violations.push({ kind: "fresh-tail", index: Math.max(0, offset), detail });
  }
  if (!messages.some((message) => canonicalJson(message) === prompt))
    violations.push({ kind: "fresh-tail", index: 0, detail: "the turn's prompt was changed or left out" });
  return violations;
}

function roleOf(message: AgentMessage): string {
  return typeof message === "object" && message !== null && "role" in message ? String(message.role) : "?";
}

export interface StructureReport {
  requests: number;
  violations: number;
  byKind: Partial<Record<ViolationKind, number>>;
  /** The first few, to show what went wrong. */
  examples: string[];
}

/** Collects violations over many requests. */
export class StructureTally {
  private readonly report: StructureReport = { requests: 0, violations: 0, byKind: {}, examples: [] };

  add(label: string, violations: readonly StructuralViolation[]): void {
    this.report.requests += 1;
    this.report.violations += violations.length;
    for (const violation of violations) {
      this.report.byKind[violation.kind] = (this.report.byKind[violation.kind] ?? 0) + 1;
      if (this.report.examples.length < 5)
        this.report.examples.push(`${label}: ${violation.kind} at ${violation.index} (${violation.detail})`);
    }
  }

  result(): StructureReport {
    return { ...this.report, byKind: { ...this.report.byKind }, examples: [...this.report.examples] };
  }
}
