import { RecentKeys } from './recent-keys';

describe('RecentKeys', () => {
  it('forgets the oldest key once full', () => {
    const keys = new RecentKeys(2);
    keys.add('a');
    keys.add('b');
    keys.add('c');
    expect(keys.has('a')).toBe(false);
    expect(keys.has('b')).toBe(true);
    expect(keys.has('c')).toBe(true);
    expect(keys.size).toBe(2);
  });

  it('counts a key added again as recent', () => {
    const keys = new RecentKeys(2);
    keys.add('a');
    keys.add('b');
    keys.add('a');
    keys.add('c');
    expect(keys.has('a')).toBe(true);
    expect(keys.has('b')).toBe(false);
  });
});
