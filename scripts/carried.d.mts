// The types of what the tests import from carried.mjs (the build runs it as plain JavaScript).
export function packBytes(bytes: Uint8Array): string;
export function packJoint(texts: Buffer[]): {
  body: string;
  spans: { chars: number; bytes: number; from: number; length: number }[];
};
export const CARRIED_READER: string;
