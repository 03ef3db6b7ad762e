/**
 * The public API is what docs/api.md says it is: the names its "Every name exported" section lists are exactly the
 * names src/index.ts exports (values and types, read by the TypeScript compiler), and every example imports only
 * exported names. A new export is documented, or it stays internal.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './helpers/paths';

const doc = readFileSync(path.join(repoRoot, 'docs', 'api.md'), 'utf8');

function exported(): { values: string[]; types: string[] } {
  const file = path.join(repoRoot, 'src', 'index.ts');
  // The compiler options the library's declarations are built with (tsconfig.lib.json, scripts/build.mjs).
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(repoRoot, 'tsconfig.lib.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, ' '));
      },
    },
  )!;
  const options = { ...config.options, noEmit: true };
  // JSDoc parsed as tsc parses it (its default for a build: only what can make a type error in a .ts file); parsing
  // every doc comment of the ~540 files (@types/node's most of all) was a tenth of this file's CPU.
  const host = ts.createCompilerHost(options);
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const program = ts.createProgram({ rootNames: [file], options, host });
  // An export the compiler cannot resolve would be counted as a value: src/index.ts must check cleanly.
  const index = program.getSourceFile(file)!;
  expect(program.getSemanticDiagnostics(index).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))).toEqual(
    [],
  );
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(index)!;
  const values: string[] = [];
  const types: string[] = [];
  for (const s of checker.getExportsOfModule(module)) {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    (target.flags & ts.SymbolFlags.Value ? values : types).push(s.name);
  }
  return { values: values.sort(), types: types.sort() };
}

/** The backquoted names of one paragraph of the "Every name exported" section (`Values:` or `Types:`). */
function listed(label: string): string[] {
  const section = doc.slice(doc.indexOf('## Every name exported'));
  const para = section.split('\n\n').find((p) => p.startsWith(`${label}:`));
  if (para === undefined) throw new Error(`docs/api.md: no "${label}:" list`);
  return [...para.matchAll(/`([A-Za-z_$][\w$]*)`/g)].map((m) => m[1]!).sort();
}

const api = exported();

test('docs/api.md lists exactly the values src/index.ts exports', () => {
  expect(listed('Values')).toEqual(api.values);
});

test('docs/api.md lists exactly the types src/index.ts exports', () => {
  expect(listed('Types')).toEqual(api.types);
});

test("every example of docs/api.md imports only exported names from 'stepchain'", () => {
  const all = new Set([...api.values, ...api.types]);
  const imported = [...doc.matchAll(/import \{([^}]*)\} from 'stepchain'/g)].flatMap((m) =>
    m[1]!
      .split(',')
      .map((n) => n.trim().replace(/^type\s+/, ''))
      .filter((n) => n !== ''),
  );
  expect(imported.length).toBeGreaterThan(20);
  expect(imported.filter((n) => !all.has(n))).toEqual([]);
});
