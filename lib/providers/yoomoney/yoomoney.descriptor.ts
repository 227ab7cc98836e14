import { ProviderDescriptor } from '../provider-descriptor.interface';
import { formFields, requireSecret } from '../signing-input';
import { signYooMoneyDelivery } from './yoomoney.signer';

/** YooMoney wallet notifications: retry horizon and CLI signing. */
export const yoomoneyDescriptor: ProviderDescriptor = {
  kind: 'yoomoney',
  name: 'YooMoney',
  retryHorizon: {
    days: 1,
    documented: 'three attempts: immediately, after 10 minutes and after an hour',
  },
  signing: {
    title: 'YooMoney (wallet notifications)',
    secret: "the wallet's notification secret",
    timestamp: null,
    payload: 'the notification fields as a flat object, without sha1_hash',
    flags: [],
    sign: (input) =>
      signYooMoneyDelivery({
        payload: formFields('yoomoney', input, 'the notification fields'),
        notificationSecret: requireSecret('yoomoney', input),
      }),
  },
};
