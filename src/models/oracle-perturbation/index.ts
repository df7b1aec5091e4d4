// Public exports of src/models/oracle-perturbation/ (Neel, Roth, Vietri & Wu 2019; Neel, Roth & Wu 2018).
export {
  type CertifiedResult, checkPolicy, classificationData, classificationShape, type OracleReleaseOptions, placeholderData, runOracleRelease,
  UncertifiedOracleError, type UncertifiedPolicy,
} from './common.js';
export {
  opDisc, opDiscClassifier, type OpDiscClassifierOptions, type OpDiscParameters, type OpDiscRelease, opDiscSigma, opDiscUtilityBound,
} from './opdisc.js';
export { rspmClassifier, type RspmOptions, type RspmRelease, rspmSigma, rspmWeightedData } from './rspm.js';
export {
  opSamp, type OpSampInput, type OpSampOptions, opSampParameters, type OpSampParameters, type OpSampRelease, opSampSync, opSampUtilityBound,
} from './opsamp.js';
