import { webhookJobData, webhookJobId } from './webhook-job';

describe('webhook jobs', () => {
  const at = new Date('2026-12-01T10:00:00.123Z');

  it('derives the job id from the inbox id, the attempt and when it fell due, without ":"', () => {
    const id = webhookJobId('5f0c8a9e-7a51-4d0e-9a55-0c1b1a2b3c4d', 3, at);
    expect(id).toBe(`5f0c8a9e-7a51-4d0e-9a55-0c1b1a2b3c4d-3-${at.getTime()}`);
    expect(id).not.toContain(':');
    expect(webhookJobId('e', 3, at)).not.toBe(webhookJobId('e', 4, at));
    expect(webhookJobId('e', 1, at)).not.toBe(webhookJobId('e', 1, new Date(at.getTime() + 1)));
  });

  it('reads the ids a job carries', () => {
    expect(webhookJobData({ id: 'j', data: { event: 'e1', attempt: 2 }, timestamp: 0 })).toEqual({
      event: 'e1',
      attempt: 2,
    });
  });

  it.each([
    ['no data', undefined],
    ['a string', 'e1'],
    ['no event', { attempt: 1 }],
    ['an empty event', { event: '', attempt: 1 }],
    ['attempt 0', { event: 'e1', attempt: 0 }],
    ['a fractional attempt', { event: 'e1', attempt: 1.5 }],
    ['an attempt as text', { event: 'e1', attempt: '1' }],
    ['an event longer than an inbox id', { event: 'e'.repeat(37), attempt: 1 }],
  ])('refuses a job with %s, naming what a webhook job carries', (_, data) => {
    expect(() => webhookJobData({ id: 'j-1', data, timestamp: 0 })).toThrow(
      /BullMQ job j-1 is not a webhook job: its data must be \{ event: <inbox id>, attempt: <positive integer> \}/,
    );
  });

  it('names a forged job of any size in a bounded message', () => {
    const id = 'j'.repeat(1 << 20);
    const data = { event: 'e'.repeat(1 << 20), attempt: 1 };
    let message = '';
    try {
      webhookJobData({ id, data, timestamp: 0 });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.length).toBeLessThan(1_000);
    expect(message).toContain(`BullMQ job ${'j'.repeat(200)}… (${id.length} characters)`);
    expect(message).toContain(`(${JSON.stringify(data).length} characters)`);
  });
});
