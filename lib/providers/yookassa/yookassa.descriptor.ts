import { ProviderDescriptor } from '../provider-descriptor.interface';
import { jsonObject, SigningInputError } from '../signing-input';
import { YooKassaNotificationObject } from './yookassa.provider';
import { yookassaDelivery } from './yookassa.signer';

/** YooKassa: its retry horizon and how the CLI builds a notification (YooKassa signs none). */
export const yookassaDescriptor: ProviderDescriptor = {
  kind: 'yookassa',
  name: 'YooKassa',
  retryHorizon: { days: 1, documented: 'keeps delivering for 24 hours' },
  signing: {
    title: 'YooKassa (unsigned: the endpoint trusts source addresses)',
    secret: null,
    timestamp: null,
    payload: 'the notification: { "event": "payment.succeeded", "object": { … } }',
    flags: [],
    sign: (input) => {
      const notification = jsonObject('yookassa', input, '{ "event": …, "object": { … } }');
      const { event, object } = notification;
      if (typeof event !== 'string' || object === null || typeof object !== 'object') {
        throw new SigningInputError(
          '--provider yookassa takes { "event": "payment.succeeded", "object": { … } } in --file',
        );
      }
      return yookassaDelivery({ event, object: object as YooKassaNotificationObject });
    },
  },
};
