import { closestName, editDistance } from './closest-name';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['stripe', 'stripe', 0],
    ['strpe', 'stripe', 1],
    ['Echo.fial', 'Echo.fail', 1],
    ['stirpe', 'stripe', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['paypal', 'stripe', 6],
  ])('%j to %j is %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('closestName', () => {
  const endpoints = ['stripe', 'stripe-eu', 'paypal', 'adyen'];

  it('names the known name a typo is nearest to', () => {
    expect(closestName('strpe', endpoints)).toBe('stripe');
    expect(closestName('Stripe', endpoints)).toBe('stripe');
    expect(closestName('paypall', endpoints)).toBe('paypal');
    expect(closestName('Echo.fial', ['Echo.fail', 'Echo.ok'])).toBe('Echo.fail');
    expect(closestName('OrderHandlers.onpaid', ['OrderHandlers.onPaid'])).toBe(
      'OrderHandlers.onPaid',
    );
  });

  it('names none when nothing is near, or two are equally near', () => {
    expect(closestName('mollie', endpoints)).toBeUndefined();
    expect(closestName('ab', ['cd'])).toBeUndefined();
    expect(closestName('stripe-uu', ['stripe-eu', 'stripe-us'])).toBeUndefined();
    expect(closestName('anything', [])).toBeUndefined();
  });
});
