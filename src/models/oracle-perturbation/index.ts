// Public exports of src/models/oracle-perturbation/ (Neel, Roth, Vietri & Wu 2019; Neel, Roth & Wu 2018).
export * from './common.js';
export * from './opdisc.js';
export * from './rspm.js';
export * from './opsamp.js';
