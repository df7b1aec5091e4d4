export { type AccountantOptions, type LedgerEntry, type Neighbors, PrivacyAccountant, type PrivacyCost, type SpendRequest } from './accountant.js';
export {
  calibrateDpSgdSigma, computeRdp, DEFAULT_RDP_ORDERS, dpSgdEpsilon, logASampledGaussian, logErfc, RdpAccountant, type RdpConversion,
  rdpSampledGaussian, rdpToDelta, rdpToDp,
} from './rdp.js';
export { composeZcdp, gaussianSigmaForZcdp, gaussianZcdp, pureDpToZcdp, ZcdpAccountant, type ZcdpConversion, zcdpToDp } from './zcdp.js';
export {
  advancedComposition, advancedCompositionPerStep, kovPrivacyRegion, optimalComposition, optimalCompositionDelta, optimalCompositionPerStep,
  parallelComposition, sequentialComposition, spendParallel,
} from './composition.js';
export { PrivacyLossDistribution, DEFAULT_PLD_INTERVAL, type PldOptions, type SubsampledPldOptions } from './pld/pld.js';
export { PrivacyLossPmf, composePmf, selfComposePmf, DEFAULT_TAIL_MASS } from './pld/pmf.js';
export { gaussianPld, gaussianPair, type GaussianPldOptions } from './pld/gaussian.js';
export { laplacePld, laplacePair, type LaplacePldOptions } from './pld/laplace.js';
export { discreteLaplacePld, discreteLaplacePair, type DiscreteLaplacePldOptions } from './pld/discrete-laplace.js';
export { discreteGaussianPld, discreteGaussianPair, type DiscreteGaussianPldOptions } from './pld/discrete-gaussian.js';
export { randomizedResponsePld, randomizedResponsePair, type RandomizedResponsePldOptions } from './pld/randomized-response.js';
export { pureDpPld, pureDpPair, type PureDpPldOptions } from './pld/pure-dp.js';
export type { MechanismPair, ContinuousPair, AtomicPair } from './pld/pair.js';
export { planPrivacyCost, type PlanRelease, type PlanMechanism, type PlanPrivacyCost, type PlanPrivacyCostOptions } from './pld/plan-privacy-cost.js';
export { ZcdpFilter, zcdpBudget, type ZcdpFilterEntry, type ZcdpFilterOptions, type ZcdpSpendRequest } from './zcdp-filter.js';
export { planCharge, type LedgerAccounting, type ReleaseClaim, type PlanCharge } from './pld/plan-charge.js';
