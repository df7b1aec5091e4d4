/**
 * A PrivacyAccountant that records every question asked of it ('check', 'costOf', 'spend'), for the
 * tests that prove a refusal came before the budget check (no call) or was charged (a 'spend').
 */
import { PrivacyAccountant, type SpendRequest } from '../../src/accounting/accountant.js';

export class SpyAccountant extends PrivacyAccountant {
  calls: string[] = [];
  constructor(eps = 1000) {
    super({ eps, delta: 0.5 });
  }
  override check(r: Parameters<PrivacyAccountant['check']>[0]): void {
    this.calls.push('check');
    super.check(r);
  }
  override costOf(r: Parameters<PrivacyAccountant['costOf']>[0]) {
    this.calls.push('costOf');
    return super.costOf(r);
  }
  override spend(r: SpendRequest) {
    this.calls.push('spend');
    return super.spend(r);
  }
}
