export * from './accountant.js';
