import { isObjectId } from '../src/git/object-id';

// The one rule for a full git object id (src/git/object-id.ts): 40 hex digits (SHA-1) or 64 (SHA-256), as git
// prints them. Most places spelled it `{40,64}`, which took every length between too.
test('a full object id is 40 or 64 lower-case hex digits, nothing else', () => {
  expect(isObjectId('a'.repeat(40))).toBe(true);
  expect(isObjectId('0123456789abcdef'.repeat(4))).toBe(true);
  for (const n of [0, 39, 41, 50, 63, 65]) expect(isObjectId('a'.repeat(n))).toBe(false);
  expect(isObjectId('A'.repeat(40))).toBe(false);
  expect(isObjectId(`${'a'.repeat(40)}\n`)).toBe(false);
  expect(isObjectId(` ${'a'.repeat(40)}`)).toBe(false);
  expect(isObjectId('g'.repeat(40))).toBe(false);
});
