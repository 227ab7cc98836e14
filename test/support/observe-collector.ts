import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** Stands in for `@nestjs/observe`'s collector: keeps each batch of telemetry its agent posts. */
export interface ObserveCollector {
  /** What the agent's `endpoint` (or `OBSERVE_ENDPOINT`) is set to. */
  readonly url: string;
  /** Each batch as text, gunzipped. */
  readonly batches: string[];
  close(): void;
}

export async function startObserveCollector(): Promise<ObserveCollector> {
  const batches: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      batches.push((body[0] === 0x1f ? gunzipSync(body) : body).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, batches, close: () => server.close() };
}
