/**
 * A full git object id as git prints it (a commit's, a tree's, a blob's): 40 lower-case hex digits in a SHA-1
 * repository, 64 in a SHA-256 one. The one spelling of that rule: it was written out in a dozen places, most as
 * `{40,64}`, which took any length between too (no git prints 50 digits: such an id is no object's).
 */
export const OBJECT_ID_HEX = '[0-9a-f]{40}(?:[0-9a-f]{24})?';

const OBJECT_ID = new RegExp(`^${OBJECT_ID_HEX}$`);

/** Whether `s` is exactly a full object id (OBJECT_ID_HEX): no surrounding space, no upper case. */
export function isObjectId(s: string): boolean {
  return OBJECT_ID.test(s);
}
