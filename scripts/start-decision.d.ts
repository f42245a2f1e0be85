// Types of start-decision.js for the tests (the script itself is plain JavaScript run by Node).
export type LaunchDecision = { launcher: 'electron'; electronPath: string } | { launcher: 'headless'; reason: string };

export function chooseLauncher(facts: {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  electronPath: string | null;
}): LaunchDecision;

export function electronBinary(
  packageDir: string | null,
  env: Record<string, string | undefined>,
  files: { exists: (path: string) => boolean; read: (path: string) => string },
): string | null;

export function fallbackLine(reason: string): string;
