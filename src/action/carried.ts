import type * as Artifact from '@actions/artifact';

/**
 * In dist/index.js, the loader of the programs the bundle carries as text (scripts/build-action.mjs defines it
 * ahead of the bundled code): a program's exports, compiled on its first use. Absent when src/ runs unbundled.
 */
declare const __stepchainCarried: ((name: string) => unknown) | undefined;

/** The artifact client's module: the carried program in the bundle, the package itself unbundled. */
export async function artifactModule(): Promise<Pick<typeof Artifact, 'DefaultArtifactClient'>> {
  if (typeof __stepchainCarried === 'function')
    return __stepchainCarried('artifact') as Pick<typeof Artifact, 'DefaultArtifactClient'>;
  // The bundle leaves this import out (an external of its build): it is reached only when src/ runs as it is.
  return import('@actions/artifact');
}
