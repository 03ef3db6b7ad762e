// The types of what test/launcher.test.ts imports from build-launcher.mjs (the build runs it as plain JavaScript).
export function bundleEntry(root: string, name: string): Promise<string>;
export function launcherSource(
  programs: { main: string; verify: string; hook: string },
  options?: { packed?: string[] },
): string;
