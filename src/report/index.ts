// Public exports of src/report/ (one line per module): the report's charts, ticks and CSV, browser-safe.
export * from './ticks.js';
export * from './charts.js';
export * from './release.js';
export * from './csv.js';
export * from './html.js';
