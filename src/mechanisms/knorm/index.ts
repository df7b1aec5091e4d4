// Public exports of src/mechanisms/knorm/.
export { type BuiltinNorm, checkNormSpec, type ConvexBody, coordinateBounds, gauge, type KNormSpec, normL1, normL2, normLinf } from './ball.js';
export { convexHull2D, convexHullHV, hullVolume, type HVPolytope, polygonArea, verticesFromHalfspaces, volume3D } from './geometry.js';
export { certifyBox, monteCarloVolume, padBox, Polytope, type PolytopeForm, type VolumeEstimate } from './polytope.js';
export {
  checkRejectionFeasible, gammaQuantile, knownAcceptance, type RejectionOptions, type RejectionStats, sampleKNormInto, sampleKNormNoise,
  sampleUniformInBody,
} from './sample.js';
export { kNormMechanism, type KNormMechanismOptions, type KNormRelease } from './mechanism.js';
export {
  type CandidateNorm, type CandidateReport, compareKNorms, type KNormComparison, kNormEntropy, lpBallLogVolume, lpBallVolume, polytopeVolume,
  sensitivitySpace, type SensitivitySpaceSpec,
} from './compare.js';
