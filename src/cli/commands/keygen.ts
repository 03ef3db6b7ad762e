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
  options: { ...JSON_OPTION, output: { kind: 'value', short: 'o' }, public: { kind: 'value' } },
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
