/**
 * Only plain data is written: a Date, a Set, a typed array or a class's instance inside a step's value was written as
 * its own enumerable properties (a Date as `{}`: the value silently lost), where Python's `json` refuses every type
 * but dict, list and the scalars. Now the encoder refuses it, and so does an append (InputError, nothing written);
 * plain objects of any realm, prototype-free records and Maps are written as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { canonical, CanonicalEncodeError, InputError, Journal, type JsonValue } from '../src';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-plain-data-');

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const refused: [string, unknown, RegExp][] = [
  ['a Date', new Date(0), /a Date has no JSON encoding/],
  ['a Set', new Set([1]), /a Set has no JSON encoding/],
  ['a typed array', new Uint8Array([1, 2]), /a Uint8Array has no JSON encoding/],
  ['a Buffer', Buffer.from('x'), /a Buffer has no JSON encoding/],
  ['a class instance', new Point(1, 2), /a Point has no JSON encoding/],
  ['a RegExp', /x/, /a RegExp has no JSON encoding/],
  ['an object made on another', Object.create({ inherited: 1 }) as object, /has no JSON encoding/],
];

test.each(refused)('the encoder refuses %s, at any depth', (_what, v, message) => {
  expect(() => canonical(v as JsonValue)).toThrow(CanonicalEncodeError);
  expect(() => canonical({ a: [{ b: v }] } as JsonValue)).toThrow(message);
});

test.each(refused)('an append of a step holding %s is refused, and nothing is written', (what, v) => {
  const dir = path.join(root, what.replace(/\W+/g, '-'));
  const j = Journal.open(dir);
  expect(() => j.append({ prompt: 'p', tool_call: { name: 'T', input: { when: v } } as JsonValue })).toThrow(
    InputError,
  );
  const file = path.join(dir, '000000.jsonl');
  expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe('');
});

test('plain objects of any realm, prototype-free records and Maps are written as before', () => {
  const other = vm.runInNewContext('({ b: 1, a: [{ c: null }] })') as JsonValue;
  expect(canonical(other)).toBe('{"a":[{"c":null}],"b":1}');
  const bare = Object.assign(Object.create(null) as Record<string, JsonValue>, { z: 1, y: 'x' });
  expect(canonical(bare)).toBe('{"y":"x","z":1}');
  expect(canonical(new Map<string, JsonValue>([['k', 2]]) as unknown as JsonValue)).toBe('{"k":2}');
  const dir = path.join(root, 'plain');
  const j = Journal.open(dir);
  j.append({ prompt: 'p', tool_call: other, tool_result: bare });
  expect(readFileSync(path.join(dir, '000000.jsonl'), 'utf8')).toContain('"tool_call":{"a":[{"c":null}],"b":1}');
});
