#!/usr/bin/env node
/******/ (() => { // webpackBootstrap
/******/ 	"use strict";
var __webpack_exports__ = {};

;// CONCATENATED MODULE: ./src/errors.ts
/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). SPEC §6: 0 holds,
 * 1 does not hold, 2 usage or input error. The CLI and the Action print `message`
 * and never a stack trace.
 */
class StepchainError extends Error {
    exitCode;
    name = 'StepchainError';
    constructor(message, exitCode) {
        super(message);
        this.exitCode = exitCode;
    }
}
/** Bad arguments, a missing or unreadable file, a bad id or key: exit 2. */
class errors_UsageError extends StepchainError {
    name = 'UsageError';
    constructor(message) {
        super(message, 2);
    }
}
/** Something checked does not hold (or an operation was refused for integrity reasons): exit 1. */
class CheckFailure extends StepchainError {
    name = 'CheckFailure';
    constructor(message) {
        super(message, 1);
    }
}

;// CONCATENATED MODULE: ./src/cli/args.ts

/**
 * A small, strict argument parser: unknown options are usage errors, `--x=v` and
 * `--x v` both work, `--` ends options, and a lone `-` is a positional (stdin).
 */
function parseArgs(argv, spec, command) {
    const out = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
    const byShort = new Map();
    for (const [name, s] of Object.entries(spec))
        if (s.short)
            byShort.set(s.short, name);
    let i = 0;
    while (i < argv.length) {
        const arg = argv[i++];
        if (arg === '--') {
            out.positionals.push(...argv.slice(i));
            break;
        }
        let name;
        let inline;
        if (arg.startsWith('--')) {
            const eq = arg.indexOf('=');
            name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
            inline = eq < 0 ? undefined : arg.slice(eq + 1);
        }
        else if (arg.length === 2 && arg[0] === '-' && arg !== '-') {
            name = byShort.get(arg[1]);
            if (name === undefined)
                throw new errors_UsageError(`${command}: unknown option ${arg}`);
        }
        else {
            out.positionals.push(arg);
            continue;
        }
        const s = spec[name];
        if (s === undefined)
            throw new errors_UsageError(`${command}: unknown option --${name}`);
        if (s.kind === 'flag') {
            if (inline !== undefined)
                throw new errors_UsageError(`${command}: --${name} takes no value`);
            out.flags.add(name);
            continue;
        }
        const value = inline ?? argv[i++];
        if (value === undefined)
            throw new errors_UsageError(`${command}: --${name} needs a value`);
        if (s.kind === 'value') {
            if (out.values.has(name))
                throw new errors_UsageError(`${command}: --${name} given twice`);
            out.values.set(name, value);
        }
        else {
            out.lists.set(name, [...(out.lists.get(name) ?? []), value]);
        }
    }
    return out;
}
/** Exactly `count` positionals (named for the error message). */
function expectPositionals(args, names, command, optional = 0) {
    const min = names.length - optional;
    if (args.positionals.length < min) {
        throw new UsageError(`${command}: missing ${names.slice(args.positionals.length).map((n) => `<${n}>`).join(' ')}`);
    }
    if (args.positionals.length > names.length) {
        throw new UsageError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
    }
    return args.positionals;
}

;// CONCATENATED MODULE: ./src/cli/commands/index.ts
/**
 * Every CLI command, one module each. Keep this list sorted by concern; each
 * module is a thin layer over the library.
 */
const commands = [];

;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = require("node:fs");
;// CONCATENATED MODULE: ./src/cli/io.ts

function processIO() {
    return {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        json: (doc) => process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`),
        readStdin: () => (0,external_node_fs_namespaceObject.readFileSync)(0),
        isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
        env: process.env,
        cwd: process.cwd(),
    };
}

;// CONCATENATED MODULE: ./src/version.ts
/** The producer name written into receipts (`bernstein_version`) and shown by `--version`. */
const VERSION = '0.1.0';
const PRODUCER = (/* unused pure expression or super */ null && (`stepchain/${VERSION}`));

;// CONCATENATED MODULE: ./src/cli/main.ts





function usageText() {
    const lines = [`stepchain ${VERSION}: tamper-evident, replayable AI-agent runs`, '', 'Commands:'];
    for (const c of commands)
        lines.push(`  stepchain ${c.name.join(' ')} ${c.usage}`.trimEnd(), `      ${c.summary}`);
    lines.push('', 'Exit codes: 0 holds, 1 does not hold, 2 usage or input error. `--json` prints one JSON document.');
    return lines.join('\n');
}
/** Picks the command whose name words are the longest prefix of argv. */
function findCommand(argv) {
    let best;
    for (const c of commands) {
        if (c.name.every((w, i) => argv[i] === w) && (best === undefined || c.name.length > best.name.length))
            best = c;
    }
    return best && { command: best, rest: argv.slice(best.name.length) };
}
/** Runs one command line; returns the exit code. Never throws, never prints a stack trace. */
async function runCli(argv, io = processIO()) {
    if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
        io.out(usageText());
        return argv.length === 0 ? 2 : 0;
    }
    if (argv[0] === '--version' || argv[0] === 'version') {
        io.out(VERSION);
        return 0;
    }
    const found = findCommand(argv);
    if (found === undefined) {
        io.err(`stepchain: unknown command ${JSON.stringify(argv[0])} (see \`stepchain help\`)`);
        return 2;
    }
    const { command, rest } = found;
    if (rest.includes('--help') || rest.includes('-h')) {
        io.out(`usage: stepchain ${command.name.join(' ')} ${command.usage}\n\n${command.summary}`);
        return 0;
    }
    try {
        const args = parseArgs(rest, command.options, command.name.join(' '));
        return await command.run(args, io);
    }
    catch (e) {
        if (e instanceof StepchainError) {
            io.err(`stepchain: ${e.message}`);
            return e.exitCode;
        }
        // An unexpected failure is still one line; STEPCHAIN_DEBUG shows the stack.
        const err = e;
        io.err(`stepchain: internal error: ${err?.message ?? String(e)}`);
        if (io.env.STEPCHAIN_DEBUG)
            io.err(String(err?.stack));
        return 1;
    }
}

;// CONCATENATED MODULE: ./src/cli/index.ts

// The single-file bundle's entry (dist/cli.js).
void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
});

module.exports = __webpack_exports__;
/******/ })()
;