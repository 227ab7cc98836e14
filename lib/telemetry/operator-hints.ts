/** The CLI and the admin routes' default path, as the hints of alerts and logs name them. */
export const CLI = 'npx nestjs-payment-webhooks';
export const ADMIN = '/webhooks-admin';

/** A value as one word of a command to copy into a shell: in single quotes unless plain. */
export function shellWord(value: string): string {
  return /^[\w.,:@/+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
