/**
 * The losses of the ERM models, as functions of the score z = x . theta and the label y, with the
 * constants the privacy proofs need (Chaudhuri, Monteleoni & Sarwate 2011, Sec. 3-4):
 * |l'(z)| <= 1 and |l''(z)| <= c for the classification losses.
 *
 * - 'logistic': labels y in {0, 1}; l(z) = log(1 + e^z) - y z; l'(z) = sigma(z) - y in (-1, 1);
 *   l''(z) = sigma(z)(1 - sigma(z)) <= 1/4, so c = 1/4.
 * - 'huber' (Chapelle 2007; DPpack eq. 16): labels y in {-1, +1}, margin m = y z;
 *   l = 0 if m > 1 + h, (1 + h - m)^2/(4h) if |1 - m| <= h, 1 - m if m < 1 - h;
 *   |dl/dz| <= 1 and |d^2l/dz^2| <= 1/(2h), so c = 1/(2h).
 * - 'squared' (KST linear regression): l(z) = (z - y)^2 / 2, l'(z) = z - y, l''(z) = 1.
 */
export type LossKind = 'logistic' | 'huber' | 'squared';

/** The CMS curvature bound c = sup |l''| of a classification loss. */
export function lossCurvature(kind: 'logistic' | 'huber', huberH = 0.5): number {
  return kind === 'logistic' ? 0.25 : 1 / (2 * huberH);
}

/** Logistic loss log(1 + e^z) - y z, computed without overflow. */
export function logisticLoss(z: number, y: number): number {
  return Math.log1p(Math.exp(-Math.abs(z))) + Math.max(z, 0) - y * z;
}

/** d/dz of the logistic loss: sigma(z) - y. */
export function logisticLossDeriv(z: number, y: number): number {
  return sigmoid(z) - y;
}

/** The logistic function 1 / (1 + e^-z), computed without overflow. */
export function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

/** Huber loss of the margin y z (y in {-1, +1}). */
export function huberLoss(z: number, y: number, h: number): number {
  const m = y * z;
  if (m > 1 + h) return 0;
  if (m < 1 - h) return 1 - m;
  const t = 1 + h - m;
  return (t * t) / (4 * h);
}

/** d/dz of the Huber loss (y in {-1, +1}). */
export function huberLossDeriv(z: number, y: number, h: number): number {
  const m = y * z;
  if (m > 1 + h) return 0;
  if (m < 1 - h) return -y;
  return (-y * (1 + h - m)) / (2 * h);
}
