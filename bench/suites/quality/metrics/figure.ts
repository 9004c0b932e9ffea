/**
 * A reported figure, or why there is none. Metrics that do not apply to an engine say so
 * ("n/a (no recall tool)") instead of printing a number that would look like a measurement.
 */
export type Figure = number | NotApplicable;

export interface NotApplicable {
  na: string;
}

export function notApplicable(reason: string): NotApplicable {
  return { na: reason };
}

export function isNotApplicable(value: unknown): value is NotApplicable {
  return typeof value === "object" && value !== null && "na" in value;
}

/** `part / whole`, or 0 when `whole` is 0 (no cases means nothing was missed). */
export function share(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
