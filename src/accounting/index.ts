export * from './accountant.js';
export * from './rdp.js';
export * from './zcdp.js';
export * from './composition.js';
