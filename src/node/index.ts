// Node-only entry (dpkit/node): data sources, ledger files, CLI, HTML report.
export * from './ledger.js';
export * from './lock.js';
export * from './data.js';
export * from './analysis.js';
export * from './execute.js';
export * from './report.js';
export { main as runCli, buildProgram, EXIT } from './cli.js';
export * from './lp-worker.js';
export { cbcLpBackend, cbcHasThreads, type CbcBackendOptions } from './solvers/cbc.js';
export * from './bounding-sql.js';
