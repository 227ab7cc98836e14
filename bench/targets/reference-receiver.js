'use strict';
/**
 * The reference the benchmark's ratios are taken against: the smallest honest webhook receiver
 * one would write by hand. `node:http`, a Stripe-style HMAC check on the raw bytes (with the
 * 300 s timestamp window), one `INSERT … ON CONFLICT DO NOTHING` per request into PostgreSQL
 * (synchronous_commit as the server has it, `on` by default), and 200 only after the commit.
 *
 * Environment: PORT, DATABASE_URL, STRIPE_WEBHOOK_SECRET, POOL_SIZE (default 10, as the sample).
 */
const http = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');
const { Pool } = require('pg');

const SECRET = process.env.STRIPE_WEBHOOK_SECRET;
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;

const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL_SIZE ?? 10),
});

const INSERT =
  'INSERT INTO reference_events (event_id, type, body, received_at) VALUES ($1, $2, $3, $4) ' +
  'ON CONFLICT (event_id) DO NOTHING';

/** True when one v1 signature of the Stripe-Signature header matches the body. */
function verified(header, body, nowSeconds) {
  if (typeof header !== 'string') return false;
  let timestamp;
  const signatures = [];
  for (const item of header.split(',')) {
    const separator = item.indexOf('=');
    const key = item.slice(0, separator);
    const value = item.slice(separator + 1);
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(Buffer.from(value, 'hex'));
  }
  if (timestamp === undefined || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest();
  return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
}

function answer(response, status) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 });
  response.end();
}

async function receive(request, body, response) {
  const receivedAt = new Date();
  if (!verified(request.headers['stripe-signature'], body, Math.floor(receivedAt / 1000))) {
    return answer(response, 400);
  }
  let event;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return answer(response, 400);
  }
  if (typeof event?.id !== 'string' || typeof event.type !== 'string') {
    return answer(response, 400);
  }
  try {
    await pool.query(INSERT, [event.id, event.type, body.toString('utf8'), receivedAt]);
  } catch {
    return answer(response, 503);
  }
  answer(response, 200);
}

const server = http.createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/webhooks/stripe') {
    request.resume();
    return answer(response, 404);
  }
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    if (size > MAX_BODY_BYTES) return answer(response, 413);
    void receive(request, Buffer.concat(chunks), response);
  });
});

async function main() {
  await pool.query(
    'CREATE TABLE IF NOT EXISTS reference_events (event_id varchar(255) PRIMARY KEY, ' +
      'type varchar(255) NOT NULL, body text NOT NULL, received_at timestamptz NOT NULL)',
  );
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}

process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
