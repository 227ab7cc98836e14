import { ProviderDescriptor } from '../provider-descriptor.interface';
import { requireSecret } from '../signing-input';
import { signMercadoPagoDelivery } from './mercado-pago.signer';

/** Mercado Pago: its retry horizon and how the CLI signs for it. */
export const mercadoPagoDescriptor: ProviderDescriptor = {
  kind: 'mercado-pago',
  name: 'Mercado Pago',
  aliases: ['mercadopago'],
  retryHorizon: {
    days: 4,
    documented:
      'Webhooks: a retry every 15 minutes, then at longer intervals after the third, with no end ' +
      'stated; the IPN schedule ends with a fifth attempt 96 hours after the first',
  },
  signing: {
    title: 'Mercado Pago (Webhooks)',
    secret: "the application's webhook secret signature",
    timestamp: 'ts= of x-signature (Unix seconds; default now)',
    payload: 'the notification; its data.id is signed, the rest of the body is not',
    flags: [
      {
        name: 'request-id',
        value: '<id>',
        help: 'x-request-id, signed with data.id and ts (default: a random UUID)',
      },
    ],
    sign: (input) =>
      signMercadoPagoDelivery({
        payload: input.text,
        secret: requireSecret('mercado-pago', input),
        timestamp: input.timestamp,
        requestId: input.options['request-id'],
      }),
  },
};
