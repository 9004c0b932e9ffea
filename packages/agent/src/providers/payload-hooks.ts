/**
 * pi-ai takes one `onPayload` per call; a call may need several (the thread projection's, the
 * reply cap's, Anthropic's cache breakpoints). Each sees the body the one before it returned.
 */
import type { SimpleStreamOptions } from "@mariozechner/pi-ai";

export type PayloadHook = NonNullable<SimpleStreamOptions["onPayload"]>;

/** The hooks in order, skipping those not given; undefined when none is. */
export function chainPayloadHooks(...hooks: Array<PayloadHook | undefined>): PayloadHook | undefined {
  const present = hooks.filter((hook): hook is PayloadHook => hook !== undefined);
  if (present.length <= 1) return present[0];
  return async (payload, model) => {
    let current = payload;
    for (const hook of present) current = (await hook(current, model)) ?? current;
    return current;
  };
}
