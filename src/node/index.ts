// Node-only entry (dpkit/node): data sources, ledger files, CLI, HTML report.
export {};
export * from './lp-worker.js';
