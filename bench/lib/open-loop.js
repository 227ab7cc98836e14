'use strict';
/**
 * Open-loop load generator, run as its own process: sends signed Stripe deliveries at a fixed
 * rate whatever the server does, and measures each answer's latency from the moment the
 * request was *due*, not from when it could be sent. A closed-loop client (wrk, including
 * wrk's per-connection `delay()`) waits for an answer before the next request, so a slow
 * server lowers the offered load and its stalls go unmeasured (coordinated omission); this
 * is what wrk2's `-R` avoids, and wrk2 is not packaged.
 *
 * Usage: node open-loop.js '<json options>'
 *   { url, path?, rate, durationSec, tag, warmupSec?, maxSockets?, ackedIdsFile? }
 * The first `warmupSec` seconds (same rate, no pause after) warm the generator's own code and
 * connections; their deliveries carry the tag `<tag>x` and are not measured.
 * Prints one line `BENCH_JSON {...}` with counts and latency percentiles (ms).
 */
const http = require('node:http');
const { writeFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const { signedDelivery, STRIPE_PATH } = require('./events');
const { percentiles } = require('./stats');

const options = JSON.parse(process.argv[2]);
const { url, rate, durationSec, tag } = options;
const warmup = Math.round(rate * (options.warmupSec ?? 0));
const measured = Math.round(rate * durationSec);
const total = warmup + measured;
const target = new URL(options.path ?? STRIPE_PATH, url);
// NOTE: an idle connection is dropped after 4 s, before the server's 5 s keep-alive timeout
// closes it: a request written on a connection the server is closing fails without reaching it,
// which would count as an error of the target.
const agent = new http.Agent({
  keepAlive: true,
  maxSockets: options.maxSockets ?? 512,
  timeout: 4000,
});

const latencies = [];
/** Latencies by 10 s window of due time, so a long run shows when latency rose. */
const WINDOW_MS = 10_000;
const windows = [];
const acked = [];
const statuses = {};
const errorCodes = {};
let answered = 0;
let errors = 0;
let non2xx = 0;
let next = 0;
let maxInFlight = 0;
let inFlight = 0;
let lastSecond = -1;
let signedAt = 0;
let measuredFrom = 0;

/** Sends delivery `n`, due at `dueAt` (performance.now() ms). */
function send(n, dueAt) {
  // NOTE: sign with the current second so long runs stay inside the 300 s timestamp window.
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    signedAt = second;
  }
  const counted = n >= warmup;
  const delivery = counted
    ? signedDelivery(tag, n - warmup, signedAt)
    : signedDelivery(`${tag}x`, n, signedAt);
  if (counted && measuredFrom === 0) measuredFrom = dueAt;
  inFlight += 1;
  maxInFlight = Math.max(maxInFlight, inFlight);
  const request = http.request(
    target,
    {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(delivery.body),
        'stripe-signature': delivery.signature,
      },
    },
    (response) => {
      response.resume();
      response.on('end', () => {
        inFlight -= 1;
        if (!counted) {
          maybeFinish();
          return;
        }
        const latency = performance.now() - dueAt;
        latencies.push(latency);
        const window = Math.floor((dueAt - measuredFrom) / WINDOW_MS);
        (windows[window] ??= []).push(latency);
        answered += 1;
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          acked.push(delivery.id);
        } else {
          non2xx += 1;
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
        maybeFinish();
      });
    },
  );
  request.on('error', (error) => {
    if (counted) {
      errors += 1;
      errorCodes[error.code ?? error.message] = (errorCodes[error.code ?? error.message] ?? 0) + 1;
    }
    inFlight -= 1;
    maybeFinish();
  });
  request.end(delivery.body);
}

const start = performance.now() + 20;

function pump() {
  const now = performance.now();
  const due = Math.min(total, Math.floor(((now - start) * rate) / 1000) + 1);
  while (next < due) {
    send(next, start + (next * 1000) / rate);
    next += 1;
  }
  if (next < total) {
    setTimeout(pump, Math.max(0, start + (next * 1000) / rate - performance.now()));
  } else {
    sendingEndedAt = performance.now();
  }
}

let sendingEndedAt = 0;
let finished = false;

function maybeFinish() {
  if (finished || next < total || inFlight > 0) return;
  finished = true;
  const elapsedSec = (performance.now() - measuredFrom) / 1000;
  if (options.ackedIdsFile) {
    writeFileSync(options.ackedIdsFile, acked.join('\n'));
  }
  const result = {
    offeredRate: rate,
    sent: next - warmup,
    answered,
    acked: acked.length,
    non2xx,
    errors,
    errorCodes,
    statuses,
    maxInFlight,
    sendSec: (sendingEndedAt - measuredFrom) / 1000,
    elapsedSec,
    ackRate: acked.length / elapsedSec,
    latencyMs: percentiles(latencies, [50, 90, 99, 99.9]),
    latencyWindowsMs: windows.map((values, i) => ({
      fromSec: (i * WINDOW_MS) / 1000,
      ...percentiles(values ?? [], [50, 99]),
    })),
  };
  process.stdout.write(`BENCH_JSON ${JSON.stringify(result)}\n`);
  agent.destroy();
}

setTimeout(pump, 20);
