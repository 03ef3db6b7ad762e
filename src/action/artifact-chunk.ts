// The artifact client as a program of its own: dist/index.js carries it compressed in its last comment and compiles
// it only when a run uploads (scripts/build-action.mjs). It is about 40% of the Action's code (Azure storage,
// protobuf, zip), and V8 would otherwise parse it on every run, most of which upload nothing.
export { DefaultArtifactClient } from '@actions/artifact';
