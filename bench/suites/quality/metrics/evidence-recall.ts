/**
 * M1, evidence-recall@budget: for each question, is each evidence turn in what the model was sent
 * at budget B? `raw` = the turn's whole text appears verbatim (whitespace normalized); `covered` =
 * raw, or a summary in the context lists the turn's id among its sources (the stub summarizer's
 * `⟦id⟧` labels; ids never occur in workload text, so a label can only come from a summary).
 */
import type { AgentMessage } from "@clew/core";
import { contextText } from "../harness/message-text.js";
import { labelledSources } from "../harness/provenance-summarizer.js";
import { mean, share } from "./figure.js";

export interface EvidenceCheck {
  questionId: string;
  category: string;
  budget: number;
  evidence: string[];
  raw: string[];
  covered: string[];
  /** Set when no request was made (the turn failed); every evidence id then counts as missing. */
  failed?: string;
}

export interface EvidenceRates {
  questions: number;
  /** Share of questions with every evidence turn present. */
  allRaw: number;
  allCovered: number;
  /** Mean share of each question's evidence turns present. */
  meanRaw: number;
  meanCovered: number;
}

export interface EvidenceRecallReport {
  /** Keyed by budget (tokens). */
  byBudget: Record<string, EvidenceRates & { byCategory: Record<string, EvidenceRates> }>;
}

/**
 * Which of `evidence` are present in `messages` (the request without its pending question).
 * `evidenceText` gives the normalized text of an evidence turn.
 */
export function findEvidence(
  messages: readonly AgentMessage[],
  evidence: readonly string[],
  evidenceText: (id: string) => string,
): { raw: string[]; covered: string[] } {
  const text = contextText(messages);
  const labels = labelledSources(text);
  const raw = evidence.filter((id) => {
    const wanted = evidenceText(id);
    return wanted.length > 0 && text.includes(wanted);
  });
  const covered = evidence.filter((id) => raw.includes(id) || labels.has(id));
  return { raw, covered };
}

export function rateEvidence(checks: readonly EvidenceCheck[]): EvidenceRates {
  const complete = (found: (check: EvidenceCheck) => string[]) =>
    share(checks.filter((check) => found(check).length === check.evidence.length).length, checks.length);
  const fraction = (found: (check: EvidenceCheck) => string[]) =>
    mean(checks.map((check) => share(found(check).length, check.evidence.length)));
  return {
    questions: checks.length,
    allRaw: complete((check) => check.raw),
    allCovered: complete((check) => check.covered),
    meanRaw: fraction((check) => check.raw),
    meanCovered: fraction((check) => check.covered),
  };
}

/** Rates per budget, and per category within each budget. Questions without evidence are skipped. */
export function summarizeEvidence(checks: readonly EvidenceCheck[]): EvidenceRecallReport {
  const report: EvidenceRecallReport = { byBudget: {} };
  const answerable = checks.filter((check) => check.evidence.length > 0);
  for (const budget of [...new Set(answerable.map((check) => check.budget))].sort((a, b) => a - b)) {
    const atBudget = answerable.filter((check) => check.budget === budget);
    const byCategory: Record<string, EvidenceRates> = {};
    for (const category of [...new Set(atBudget.map((check) => check.category))])
      byCategory[category] = rateEvidence(atBudget.filter((check) => check.category === category));
    report.byBudget[String(budget)] = { ...rateEvidence(atBudget), byCategory };
  }
  return report;
}
