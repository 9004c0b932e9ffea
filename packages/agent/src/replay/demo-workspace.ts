import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * The workspace files and one skill of the demo project, so a demo replay shows injected files and
 * skills the way a real agent workspace does.
 */
export async function writeDemoWorkspace(workspaceDir: string): Promise<void> {
  await mkdir(join(workspaceDir, "skills", "release-notes"), { recursive: true });
  await writeFile(join(workspaceDir, "AGENTS.md"), AGENTS);
  await writeFile(join(workspaceDir, "TOOLS.md"), TOOLS);
  await writeFile(join(workspaceDir, "USER.md"), USER);
  await writeFile(join(workspaceDir, "skills", "release-notes", "SKILL.md"), SKILL);
}

const AGENTS = `# checkout-service: how we work

## Red lines
- Never retry a declined card more than once (compliance rule PCI-7.3).
- Never log PAYMENTS_API_KEY or card numbers; mask everything but the last 4 digits.
- Do not push to main; open a merge request against \`develop\`.

## Project layout
- src/payments/: charges, retries, refunds (retry policy in src/payments/retry-policy.ts)
- src/checkout/: cart totals and tax
- docs/decisions/: architecture decision records, numbered (0001 to 0007 so far)
- logs/: local service logs, one file per day

## Testing
- \`npm test\` runs unit tests; \`npm test -- payments\` only the payment suite.
- Integration tests talk to stripe-mock on 127.0.0.1:12111 and the payments proxy on port 8443.
- A flaky test is a bug: find the cause, do not add retries to the test.

## Style
TypeScript strict, no default exports, errors as typed classes in src/errors.ts.
${"Keep functions short and names spelled out; comments say why, not what.\n".repeat(12)}`;

const TOOLS = `# Tools in this workspace
- exec runs in the repository root; long test runs take about 90 s.
- The payments proxy logs to logs/checkout-YYYY-MM-DD.log.
- stripe-mock is version 0.188.0; its declines are random by design.
`;

const USER = `# About the user
Backend developer on the payments team. Prefers short answers with the exact file and line.
Time zone Europe/Madrid.
`;

const SKILL = `---
name: release-notes
description: Write release notes for a merge request from its commits and ADRs.
---
# Release notes
1. List the commits since the last tag with \`git log --oneline <tag>..HEAD\`.
2. Group them by area (payments, checkout, ci).
3. Link every ADR that changed.
`;
