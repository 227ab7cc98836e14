import { BoundedLabel, OTHER_LABEL_VALUE } from './bounded-label';

describe('BoundedLabel', () => {
  it('passes the first values through and reports later new ones as other', () => {
    const label = new BoundedLabel(2);
    expect(label.value('payment.succeeded')).toBe('payment.succeeded');
    expect(label.value('refund.succeeded')).toBe('refund.succeeded');
    expect(label.value('dispute.opened')).toBe(OTHER_LABEL_VALUE);
    expect(label.value('payment.succeeded')).toBe('payment.succeeded');
  });

  it('cuts long values and reads a missing one as empty', () => {
    const label = new BoundedLabel(5);
    expect(label.value('x'.repeat(300))).toHaveLength(100);
    expect(label.value(undefined)).toBe('');
  });
});
