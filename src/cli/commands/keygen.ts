import path from 'node:path';
import { InputError } from '../../errors';
import { writeKeyPair } from '../../receipt';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION } from '../common';

export const keygenCommand: Command = {
  name: ['keygen'],
  usage: '-o PRIVATE.pem [--public PUBLIC.pem] [--json]',
  summary: 'Create an Ed25519 key pair for signing receipts (private key mode 0600; never overwrites a file).',
  description:
    'The private key is written as PEM PKCS#8 with mode 0600, the public key as PEM SPKI. An existing file is never ' +
    'replaced (a lost private key cannot be recovered): remove it first to make a new one.',
  options: {
    ...JSON_OPTION,
    output: { kind: 'value', short: 'o', value: 'FILE', description: 'Where to write the private key (required).' },
    public: {
      kind: 'value',
      value: 'FILE',
      description: 'Where to write the public key (default: print it, for verifiers).',
    },
  },
  examples: [
    { run: 'stepchain keygen -o stepchain.key --public keys/receipts.pub', what: 'a key pair; commit only the .pub' },
  ],
  exitCodes: { 0: 'written', 2: 'usage error, a file exists, or its directory does not' },
  run(args, io) {
    expectPositionals(args, [], 'keygen');
    const out = args.values.get('output');
    if (out === undefined) throw new InputError('keygen: missing -o PRIVATE.pem');
    const pub = args.values.get('public');
    const privateFile = path.resolve(io.cwd, out);
    const publicFile = pub === undefined ? undefined : path.resolve(io.cwd, pub);
    const pair = writeKeyPair(privateFile, publicFile);
    if (args.flags.has('json')) {
      io.json({
        ok: true,
        key_id: pair.keyId,
        private_key: privateFile,
        public_key: publicFile ?? null,
        public_key_pem: pair.publicKeyPem,
      });
      return 0;
    }
    io.out(`wrote private key ${out} (mode 0600), key id ${pair.keyId}`);
    if (pub !== undefined) io.out(`wrote public key ${pub}`);
    else io.out(`public key (give it to verifiers, e.g. save as a .pem file):\n${pair.publicKeyPem.trimEnd()}`);
    return 0;
  },
};
