import { createHash } from 'node:crypto';
import { tbankToken } from './tbank-token';

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// NOTE: T-Bank's documented Init example (providers.md §6).
const INIT = {
  TerminalKey: 'MerchantTerminalKey',
  Amount: 19200,
  OrderId: '21090',
  Description: 'Подарочная карта на 1000 рублей',
};
const INIT_PASSWORD = 'usaf8fw8fsw21g';
const INIT_TOKEN = '0024a00af7c350a3a67ca168ce06502aa72772456662e38696d48b56ee9c97d9';

describe('tbankToken', () => {
  it('reproduces the documented Init vector', () => {
    expect(tbankToken(INIT, INIT_PASSWORD)).toBe(INIT_TOKEN);
  });

  it('hashes the documented concatenation of the sorted values, computed independently', () => {
    const documented = '19200Подарочная карта на 1000 рублей21090usaf8fw8fsw21gMerchantTerminalKey';
    expect(sha256Hex(documented)).toBe(INIT_TOKEN);
    expect(tbankToken(INIT, INIT_PASSWORD)).toBe(sha256Hex(documented));
  });

  it('leaves nested objects and arrays (Receipt, DATA) out, as documented', () => {
    const withNested = {
      ...INIT,
      Receipt: { Email: 'a@example.com', Items: [{ Name: 'Card', Price: 19200 }] },
      DATA: { Phone: '+70000000000' },
      Shops: [{ ShopCode: '1' }],
    };
    expect(tbankToken(withNested, INIT_PASSWORD)).toBe(INIT_TOKEN);
  });

  it('ignores a Token and a Password already in the fields', () => {
    expect(tbankToken({ ...INIT, Token: 'stale', Password: 'other' }, INIT_PASSWORD)).toBe(
      INIT_TOKEN,
    );
  });

  it('reproduces a real demo-terminal notification, booleans and numbers included', () => {
    const notification = {
      TerminalKey: '1772186527637DEMO',
      OrderId: 'lde1q7xbsoisn1vjj2k6s',
      Success: true,
      Status: 'AUTHORIZED',
      PaymentId: 8111987112,
      ErrorCode: '0',
      Amount: 1000,
      CardId: 659561464,
      Pan: '430000******0777',
      ExpDate: '1230',
      Token: '17bf87f32797d961db48f4500cc9110be5cc2f480e4e555e2440eec09108a760',
    };
    expect(tbankToken(notification, 'rpnstdt1ekalr00f')).toBe(notification.Token);
  });

  it('reproduces the second demo-terminal notification', () => {
    const notification = {
      TerminalKey: '1696908061914DEMO',
      OrderId: 'a24a9ca2-e323-49aa-bff6-493e5deebc0c',
      Success: true,
      Status: 'AUTHORIZED',
      PaymentId: 3367515924,
      ErrorCode: '0',
      Amount: 5000,
      CardId: 356460362,
      Pan: '430000******0777',
      ExpDate: '1122',
    };
    expect(tbankToken(notification, '7wqy8w821dqbldev')).toBe(
      '188ef1adacba53d889aa427184aaa47b7ee7eb306427dc5ab3dc1a7f87c4b7d5',
    );
  });

  it('changes with the password, any value and a false boolean', () => {
    const base = tbankToken(INIT, INIT_PASSWORD);
    expect(tbankToken(INIT, `${INIT_PASSWORD}x`)).not.toBe(base);
    expect(tbankToken({ ...INIT, Amount: 19201 }, INIT_PASSWORD)).not.toBe(base);
    expect(tbankToken({ ...INIT, Recurrent: false }, INIT_PASSWORD)).toBe(
      sha256Hex('19200Подарочная карта на 1000 рублей21090usaf8fw8fsw21gfalseMerchantTerminalKey'),
    );
  });

  it('sorts keys by code unit (ASCII), upper-case before lower-case', () => {
    const token = tbankToken({ b: '2', B: '1', a: '3' }, 'pw');
    // Keys in ASCII order: B, Password, a, b.
    expect(token).toBe(sha256Hex('1pw32'));
  });
});
