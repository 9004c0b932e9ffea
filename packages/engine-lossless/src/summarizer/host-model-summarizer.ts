/**
 * The summarizer of an engine told to use the host's model (`summarizer: "host-model"`, what the
 * plugin asks for unless configured otherwise): the model call the host offers engines as
 * `runtimeContext.llm` (Clew offers the agent's summary model, `agents.defaults.compaction.model`,
 * else its chat model), bound from the first hook call that carries one; until then, and with a
 * host that offers none, the extractive summarizer, under its own id, so every rule that tells a
 * model from the extractive summarizer (spend budget, upgrades, the recorder's level) holds as it
 * would with that summarizer configured.
 *
 * The first offer binds it for the engine's life: in Clew an engine serves one agent and is made
 * again when the config is reloaded. A host whose engine served several agents would summarize
 * them all with the first agent's model.
 *
 * The summarizer seam's contract holds: `summarize` rejects with the signal's reason once it
 * fires, and with the host's error when its call fails (the caller falls back).
 */
import {
  type ContextEngineRuntimeContext,
  createExtractiveSummarizer,
  createModelSummarizer,
  type SummarizeInput,
  type Summarizer,
  type SummaryCompleteFunction,
} from "@clew/core";

type HostModelCall = NonNullable<ContextEngineRuntimeContext["llm"]>;

export class HostModelSummarizer implements Summarizer {
  private model: Summarizer | undefined;
  private readonly extractive = createExtractiveSummarizer();

  get id(): string {
    return (this.model ?? this.extractive).id;
  }

  /** For reports: the model once bound, else that the host's model is awaited. */
  get label(): string {
    return this.model?.id ?? "host model (none offered yet: extractive until a turn brings one)";
  }

  /** Binds the host's model call, the first time one is offered; later offers change nothing. */
  offer(runtimeContext: ContextEngineRuntimeContext | undefined): void {
    const llm = runtimeContext?.llm;
    if (this.model !== undefined || llm === undefined || typeof llm.complete !== "function") return;
    const ref = typeof llm.ref === "string" && llm.ref.length > 0 ? llm.ref : "host";
    this.model = createModelSummarizer({ id: `model:${ref}`, complete: completeThrough(llm) });
  }

  summarize(input: SummarizeInput): Promise<string> {
    return (this.model ?? this.extractive).summarize(input);
  }
}

/** The model summarizer's call, made through the host's: one user message, no tools. */
function completeThrough(llm: HostModelCall): SummaryCompleteFunction {
  return async (request) => {
    const result = await llm.complete({
      systemPrompt: request.systemPrompt,
      messages: [{ role: "user", content: request.prompt, timestamp: Date.now() }],
      maxTokens: request.maxTokens,
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
    });
    const usage = result.usage;
    // Without both counts the engine's own count is the better figure for the spend budget.
    if (usage?.input === undefined || usage.output === undefined) return result.text;
    // Prompt tokens, cached ones included (what the spend budget counts).
    const inputTokens = usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
    const costUsd = usage.costUsd;
    return {
      text: result.text,
      usage: { inputTokens, outputTokens: usage.output, ...(costUsd === undefined ? {} : { costUsd }) },
    };
  };
}
