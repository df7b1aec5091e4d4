// Node-only entry (dpkit/node): data sources and engines, ledger files, the CLI, the HTML report,
// native solvers. Named lists: a new export is added here on purpose.
export { FileLedger, LEDGER_KEY_ENV, LedgerError, checkLedgerAnchor, checkPrivacyUnitOf, checkRelation, ledgerAnchor, readLedger, type LedgerOpenOptions, type LedgerReadOptions, type LedgerSummary } from './ledger.js';
export { FileLock, LockError, type LockOptions } from './lock.js';
export { ClickHouseEngine, DataEngine, DataSourceError, DuckDbEngine, QUERY_FAILED, SqlEngine, checkSource, decimalToNumber, fixedPointScale, gridMaxAbs, gridWidth, ident, literal, ratioToNumber, sourceSql, type Cell, type ClickHouseSourceSpec, type ColumnInfo, type DataSourceSpec, type FileSourceSpec, type HistogramRequest, type MissingPolicy, type Moments, type NumericRequest, type OpenOptions, type ProgressSink, type SqlSourceSpec } from './data.js';
export { DEFAULT_BOUNDS_SHARE, DEFAULT_SELECT_SHARE, MAX_LEVELS, STATS, SchemaError, loadAnalysis, loadSchema, planColumns, planCost, releaseClaim, releaseCost, type Analysis, type CategoricalColumn, type ColumnSchema, type DataSchema, type IdColumn, type NoiseMechanism, type NumericColumn, type ReleaseBase, type ReleaseSpec, type StatName, type UnitBounds } from './analysis.js';
export { equalEdges, executePlan, planRelease, releaseGroupSums, unitSensitivityText, validatePlanNoise, type ExecuteOptions, type PlannedRelease, type ReleaseResult } from './execute.js';
export { esc, fmt, fmtInterval, isConverted, regularisationWarning, renderReport, resultsCsv, type NoiseDensityPlot, type ReportAssumptions, type ReportInput } from './report.js';
export { progressBar, workerLpBackend, type WorkerLpBackend } from './lp-worker.js';
export { boundedGroupsSql, boundedMagnitudeBinsSql, boundedPerUnitSql, keyHex, type BoundingPlan, type MagnitudeBinsPlan, type SqlDialect } from './bounding-sql.js';
export { main as runCli, buildProgram, EXIT } from './cli.js';
export { cbcLpBackend, cbcHasThreads, type CbcBackendOptions } from './solvers/cbc.js';
