/**
 * stepchain's library API: everything the CLI and the Action are built on.
 * The per-step journal and canonical JSON are exported flat; each other concern
 * is exported flat as well, so `import { verifyReceipt } from 'stepchain'`.
 */
export * from './canonical';
export * from './errors';
export * from './journal';
export * from './record';
export * from './receipt';
export * from './git';
export * from './runs';
export * from './audit';
export * from './replay';
export * from './report';
export * from './check';
export * from './project';
export { VERSION, PRODUCER } from './version';
