import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonObject, requireSecret } from '../signing-input';
import { signTBankDelivery } from './tbank.signer';

/** T-Bank: its retry horizon and how the CLI signs for it. */
export const tbankDescriptor: ProviderDescriptor = {
  kind: 'tbank',
  name: 'T-Bank',
  aliases: ['tinkoff'],
  retryHorizon: { days: 1, documented: 'once an hour for 24 hours' },
  signing: {
    title: 'T-Bank',
    secret: 'the terminal password',
    timestamp: null,
    payload: 'the notification object without Token (Token is computed and appended)',
    flags: [],
    sign: (input) => {
      const payload = jsonObject('tbank', input, 'the notification without Token');
      return signTBankDelivery({ payload, password: requireSecret('tbank', input) });
    },
  },
};
