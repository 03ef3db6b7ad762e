// The types of what test/launcher.test.ts imports from build-action.mjs (the build runs it as plain JavaScript).
export function actionSource(main: string, programs: Record<string, string>): string;
