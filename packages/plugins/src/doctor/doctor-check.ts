/**
 * What `clew doctor` reports: one check per line, each `ok`, `warning` or `error`, with the fix
 * when there is one. Checks are data; nothing here throws or prints.
 */

export type DoctorStatus = "ok" | "warning" | "error";

export interface DoctorCheck {
  /** Stable, dotted id of what was checked: `config`, `plugin.<id>`, `context-engine.host`, ... */
  id: string;
  status: DoctorStatus;
  /** One line, naming the file, plugin or engine it is about. */
  message: string;
  /** What to do about it, as a command or an edit, when there is something to do. */
  fix?: string;
}

/** The process exit status for these checks: 0 all ok, 1 warnings only, 2 any error. */
export function doctorExitCode(checks: readonly DoctorCheck[]): 0 | 1 | 2 {
  if (checks.some((check) => check.status === "error")) return 2;
  if (checks.some((check) => check.status === "warning")) return 1;
  return 0;
}

/** The worst status among the checks (`ok` for none). */
export function overallStatus(checks: readonly DoctorCheck[]): DoctorStatus {
  return (["ok", "warning", "error"] as const)[doctorExitCode(checks)];
}

const MARKS: Record<DoctorStatus, string> = { ok: "✓", warning: "!", error: "✗" };

/** `✓|!|✗ <message>` plus ` → <fix>`; one line per check, newline-terminated. */
export function formatDoctorChecks(checks: readonly DoctorCheck[]): string {
  return checks
    .map((check) => {
      const fix = check.fix === undefined ? "" : ` → ${oneLine(check.fix)}`;
      return `${MARKS[check.status]} ${oneLine(check.message)}${fix}\n`;
    })
    .join("");
}

/** Messages from elsewhere (schema problems, stacks) may span lines; a check is one line. */
export function oneLine(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  // "Invalid config:" followed by its problems reads as one sentence; other lines are a list.
  return lines.reduce(
    (joined, line) => (joined === "" ? line : `${joined}${joined.endsWith(":") ? " " : "; "}${line}`),
    "",
  );
}

export function check(id: string, status: DoctorStatus, message: string, fix?: string): DoctorCheck {
  return fix === undefined ? { id, status, message } : { id, status, message, fix };
}
