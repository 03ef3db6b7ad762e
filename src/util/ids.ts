import { InputError } from '../errors';

const ID = /^[A-Za-z0-9_.-]{1,128}$/;

/** Whether `id` is a safe single path segment (docs/format.md §2): never `.` or `..`. */
export function isSafeId(id: string): boolean {
  return ID.test(id) && id !== '.' && id !== '..';
}

/** Refuses an unsafe agent, run, session or fork id before any path is built from it. */
export function assertSafeId(id: string, what = 'id'): string {
  if (!isSafeId(id)) {
    throw new InputError(
      `unsafe ${what} ${JSON.stringify(id)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`,
    );
  }
  return id;
}
