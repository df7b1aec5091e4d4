// Public exports of src/models/ (one line per module).
export {};
export * from './matrix.js';
export * from './erm/index.js';
export * from './erm/classifier.js';
export * from './logistic.js';
export * from './svm.js';
export * from './linear.js';
export * from './dpsgd/index.js';
export * from './naive-bayes.js';
export * from './knorm-logistic.js';
export * from './functional-linear.js';
export * from './tuning.js';
export * from './oracle-perturbation/index.js';
export * from './coordinate-descent.js';
export * from './linear-classifier.js';
